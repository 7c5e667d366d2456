#include "tern/systems/primitives/affine_system.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "tern/common/default_scalars.h"
#include "tern/systems/primitives/primitive_checks.h"

namespace tern {
namespace {

void CheckShape(const std::string& block, const char* name,
                const MatrixX<double>& M, Eigen::Index rows, Eigen::Index cols,
                const char* why) {
  if (M.rows() != rows || M.cols() != cols) {
    throw std::invalid_argument(
        fmt::format("{}: {} is {}x{} but must be {}x{} ({})", block, name,
                    M.rows(), M.cols(), rows, cols, why));
  }
  internal::CheckFinite(block.c_str(), name, M);
}

}  // namespace

template <typename T>
AffineSystem<T>::AffineSystem(const MatrixX<double>& A,
                              const MatrixX<double>& B,
                              const VectorX<double>& f0,
                              const MatrixX<double>& C,
                              const MatrixX<double>& D,
                              const VectorX<double>& y0, double time_period)
    : AffineSystem("AffineSystem", A, B, f0, C, D, y0, time_period) {}

template <typename T>
AffineSystem<T>::AffineSystem(std::string name, const MatrixX<double>& A,
                              const MatrixX<double>& B,
                              const VectorX<double>& f0,
                              const MatrixX<double>& C,
                              const MatrixX<double>& D,
                              const VectorX<double>& y0, double time_period)
    : LeafSystem<T>(),
      A_(A),
      B_(B),
      C_(C),
      D_(D),
      f0_(f0),
      y0_(y0),
      time_period_(time_period) {
  const Eigen::Index n = A.rows(), m = B.cols(), p = C.rows();
  CheckShape(name, "A", A, n, n, "n x n, n = rows of A");
  CheckShape(name, "B", B, n, m, "n x m, m = columns of B");
  CheckShape(name, "f0", f0, n, 1, "n");
  CheckShape(name, "C", C, p, n, "p x n, p = rows of C");
  CheckShape(name, "D", D, p, m, "p x m");
  CheckShape(name, "y0", y0, p, 1, "p");
  if (!(time_period >= 0) || !std::isfinite(time_period)) {
    throw std::invalid_argument(fmt::format(
        "{}: time_period must be finite and >= 0 (0 = continuous), got {}",
        name, time_period));
  }
  At_ = A_.template cast<T>();
  Bt_ = B_.template cast<T>();
  Ct_ = C_.template cast<T>();
  Dt_ = D_.template cast<T>();
  f0t_ = f0_.template cast<T>();
  y0t_ = y0_.template cast<T>();
  has_feedthrough_ = (D_.array() != 0.0).any();

  Prerequisites state_ticket = ticket::kNothing;
  if (n > 0) {
    if (is_discrete()) {
      this->DeclareDiscreteState(static_cast<int>(n));
      this->DeclarePeriodicDiscreteUpdateEvent(time_period_, 0.0,
                                               &AffineSystem::Update);
      state_ticket = ticket::kXd;
    } else {
      this->DeclareContinuousState(static_cast<int>(n));
      state_ticket = ticket::kXc;
    }
  }
  if (m > 0) this->DeclareVectorInputPort("u", static_cast<int>(m));
  if (p > 0) {
    this->DeclareVectorOutputPort(
        "y", static_cast<int>(p), &AffineSystem::CalcOutput,
        has_feedthrough_ ? ticket::kAllSources : state_ticket);
  }
}

template <typename T>
Eigen::Ref<const VectorX<T>> AffineSystem<T>::StateOf(
    const Context<T>& context) const {
  if (is_discrete()) return context.get_discrete_state(0);
  return context.get_continuous_state_vector();
}

template <typename T>
VectorX<T> AffineSystem<T>::get_state(const Context<T>& context) const {
  const Context<T>& mine = this->GetMyContextFromRoot(context);
  if (num_states() == 0) return VectorX<T>(0);
  return StateOf(mine);
}

template <typename T>
void AffineSystem<T>::set_state(Context<T>* context,
                                const Eigen::Ref<const VectorX<T>>& x) const {
  if (x.size() != num_states()) {
    throw std::invalid_argument(fmt::format(
        "AffineSystem '{}': set_state got a state of size {}, expected {}",
        this->GetPathName(), x.size(), num_states()));
  }
  if (num_states() == 0) return;
  Context<T>& mine = this->GetMyMutableContextFromRoot(context);
  if (is_discrete()) {
    mine.SetDiscreteState(0, x);
  } else {
    mine.SetContinuousState(x);
  }
}

template <typename T>
void AffineSystem<T>::DoCalcTimeDerivatives(
    const Context<T>& context, Eigen::Ref<VectorX<T>> derivatives) const {
  derivatives.noalias() = At_ * context.get_continuous_state_vector();
  if (num_inputs() > 0)
    derivatives.noalias() += Bt_ * this->get_input_port(0).Eval(context);
  derivatives += f0t_;
}

template <typename T>
EventStatus AffineSystem<T>::Update(const Context<T>& context,
                                    DiscreteValues<T>* next) const {
  VectorX<T>& x_next = next->get_mutable_vector(0);
  x_next.noalias() = At_ * context.get_discrete_state(0);
  if (num_inputs() > 0)
    x_next.noalias() += Bt_ * this->get_input_port(0).Eval(context);
  x_next += f0t_;
  return EventStatus::Succeeded();
}

template <typename T>
void AffineSystem<T>::CalcOutput(const Context<T>& context,
                                 VectorX<T>* y) const {
  *y = y0t_;
  if (num_states() > 0) {
    if (is_discrete()) {
      y->noalias() += Ct_ * context.get_discrete_state(0);
    } else {
      y->noalias() += Ct_ * context.get_continuous_state_vector();
    }
  }
  if (has_feedthrough_)
    y->noalias() += Dt_ * this->get_input_port(0).Eval(context);
}

template <typename T>
LinearSystem<T>::LinearSystem(const MatrixX<double>& A,
                              const MatrixX<double>& B,
                              const MatrixX<double>& C,
                              const MatrixX<double>& D, double time_period)
    : AffineSystem<T>("LinearSystem", A, B, VectorX<double>::Zero(A.rows()), C,
                      D, VectorX<double>::Zero(C.rows()), time_period) {}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(AffineSystem)
TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(LinearSystem)

}  // namespace tern
