// Run-time adapters (IntegratorBase) for the second-order rules. The state
// is x = [q; v]; f must be a SecondOrderOdeFunction<T>.
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <type_traits>

#include "tern/common/autodiff.h"
#include "tern/integrators/integrator_error.h"
#include "tern/integrators/integrator_factories.h"
#include "tern/integrators/second_order_rules.h"

namespace tern {
namespace {

// Presents a SecondOrderOdeFunction as the model type the rules expect.
// Counts vdot evaluations as derivative evaluations.
template <typename T>
struct SecondOrderCaller {
  SecondOrderOdeFunction<T>* f;
  IntegratorStatistics* stats;
  void Qdot(const T& t, const VectorX<T>& q, const VectorX<T>& v,
            VectorX<T>* qdot) const {
    f->EvalQdot(t, q, v, *qdot);
  }
  void Vdot(const T& t, const VectorX<T>& q, const VectorX<T>& v,
            VectorX<T>* vdot) const {
    ++stats->derivative_evaluations;
    f->EvalVdot(t, q, v, *vdot);
  }
  bool VdotJacobianV(const double& t, const VectorX<T>& q, const VectorX<T>& v,
                     MatrixX<T>* J) const {
    return f->EvalVdotJacobianV(t, q, v, J);
  }
  bool QdotJacobianQ(const double& t, const VectorX<T>& q, const VectorX<T>& v,
                     MatrixX<T>* J) const {
    return f->EvalQdotJacobianQ(t, q, v, J);
  }
};

template <template <typename, typename> class Rule, typename T>
class SecondOrderIntegrator final : public IntegratorBase<T> {
 public:
  using RuleType = Rule<VectorX<T>, VectorX<T>>;
  explicit SecondOrderIntegrator() : rule_(0, 0) {}
  std::string name() const override { return RuleType::kName; }
  int order() const override { return RuleType::kOrder; }
  bool supports_error_control() const override { return false; }
  bool requires_second_order() const override { return true; }
  bool is_implicit() const override {
    return !std::is_same_v<RuleType, SemiExplicitEuler<VectorX<T>>> &&
           !std::is_same_v<RuleType, VelocityVerlet<VectorX<T>>>;
  }
  // n = nq + nv. The split comes from InitializeSecondOrder, or else from
  // the SecondOrderOdeFunction at the first Step (which then sizes the
  // scratch once).
  void Initialize(Eigen::Index n) override {
    n_ = n;
    nq_ = -1;
  }
  void InitializeSecondOrder(Eigen::Index nq, Eigen::Index nv) override {
    n_ = nq + nv;
    rule_.Resize(nq, nv);
    q_.resize(nq);
    v_.resize(nv);
    nq_ = nq;
  }
  // Forgets what the rule keeps between steps (Verlet's reused vdot).
  void Reset() override {
    if constexpr (requires(RuleType & r) { r.Reset(); }) rule_.Reset();
  }
  T Step(OdeFunction<T>& f, const T& t, const T& t_limit,
         VectorX<T>* x) override {
    auto* so = dynamic_cast<SecondOrderOdeFunction<T>*>(&f);
    if (so == nullptr) {
      throw std::invalid_argument(fmt::format(
          "{}: needs second-order structure; pass a SecondOrderOdeFunction "
          "(qdot = N(q) v, vdot = vdot(t, q, v))",
          name()));
    }
    const Eigen::Index nq = so->num_positions(), nv = so->num_velocities();
    if (x->size() != nq + nv || x->size() != n_) {
      throw std::invalid_argument(fmt::format(
          "{}: state has size {} but nq + nv = {} + {} and Initialize was "
          "called with {}",
          name(), x->size(), nq, nv, n_));
    }
    if (nq != nq_) {
      // Sizes known only now; this resize happens once per split.
      rule_.Resize(nq, nv);
      q_.resize(nq);
      v_.resize(nv);
      nq_ = nq;
    }
    ValidateSettings(this->settings_, RuleType::kName);
    bool lands = false;
    const double hd = internal::FixedStepFrom(
        RuleType::kName, this->settings_.fixed_step, ExtractDoubleOrThrow(t),
        ExtractDoubleOrThrow(t_limit), &lands);
    const T h = lands ? T(t_limit - t) : T(hd);
    const T t_next = lands ? t_limit : T(t + h);
    q_ = x->head(nq);
    v_ = x->tail(nv);
    SecondOrderCaller<T> caller{so, &this->stats_};
    const auto before = NewtonCounts();
    rule_.Step(caller, t, h, &q_, &v_);
    const auto after = NewtonCounts();
    this->stats_.newton_iterations += after[0] - before[0];
    this->stats_.jacobian_evaluations += after[1] - before[1];
    this->stats_.lu_factorizations += after[2] - before[2];
    for (Eigen::Index i = 0; i < nq + nv; ++i) {
      const double xi = ExtractDoubleOrThrow(i < nq ? q_(i) : v_(i - nq));
      if (!std::isfinite(xi)) {
        throw IntegratorStepError(
            fmt::format(
                "{}: state component {} became non-finite in the step from t = "
                "{} with h = {}",
                name(), i, ExtractDoubleOrThrow(t), ExtractDoubleOrThrow(h)),
            i);
      }
    }
    x->head(nq) = q_;
    x->tail(nv) = v_;
    ++this->stats_.steps;
    return t_next;
  }

 private:
  std::array<std::int64_t, 3> NewtonCounts() const {
    if constexpr (requires(const RuleType& r) { r.newton_iterations(); }) {
      return {rule_.newton_iterations(), rule_.jacobian_evaluations(),
              rule_.lu_factorizations()};
    } else {
      return {0, 0, 0};
    }
  }

  RuleType rule_;
  VectorX<T> q_, v_;
  Eigen::Index n_{0}, nq_{-1};
};

}  // namespace

namespace internal {

template <typename T>
std::unique_ptr<IntegratorBase<T>> MakeSecondOrderIntegrator(
    const std::string& name) {
  if (name == "semi_explicit_euler") {
    return std::make_unique<SecondOrderIntegrator<SemiExplicitEuler, T>>();
  }
  if (name == "velocity_verlet") {
    return std::make_unique<SecondOrderIntegrator<VelocityVerlet, T>>();
  }
  if (name == "semi_implicit_euler_v" || name == "semi_implicit_euler_q") {
    if constexpr (std::is_same_v<T, double>) {
      if (name == "semi_implicit_euler_v") {
        return std::make_unique<SecondOrderIntegrator<SemiImplicitEulerV, T>>();
      }
      return std::make_unique<SecondOrderIntegrator<SemiImplicitEulerQ, T>>();
    } else {
      throw std::invalid_argument(fmt::format(
          "MakeIntegrator: '{}' is available for double only", name));
    }
  }
  return nullptr;
}

std::vector<std::string> SecondOrderIntegratorNames() {
  return {"semi_explicit_euler", "semi_implicit_euler_q",
          "semi_implicit_euler_v", "velocity_verlet"};
}

template std::unique_ptr<IntegratorBase<double>>
MakeSecondOrderIntegrator<double>(const std::string&);
template std::unique_ptr<IntegratorBase<AutoDiffXd>>
MakeSecondOrderIntegrator<AutoDiffXd>(const std::string&);

}  // namespace internal
}  // namespace tern
