#pragma once
// Models for discretization (DESIGN.md "A model is a function").
//
// A model is any type that gives its sizes and its continuous dynamics
// xdot = f(x, u, t):
//   static constexpr int kNumStates, kNumInputs;   // when known at compile
//   Eigen::Index num_states() const, num_inputs();  // time, else at run time
//   template <class T> StateVector Dynamics(const X& x, const U& u,
//                                           const T& t) const;
// or the in-place form
//   template <class T> void Dynamics(const X& x, const U& u, const T& t,
//                                    X* xdot) const;
// where X = Eigen::Matrix<T, kNumStates, 1> and U = Eigen::Matrix<T,
// kNumInputs, 1> (VectorX<T> for run-time sizes). Optional members:
//   void Jacobian(const X& x, const U& u, double t, J* jac) const;
//       jac = [df/dx df/du], n x (n + m), in double: the analytic Jacobian
//       used by JacobianMethod::kAnalytic.
//   A(), B(): a linear time-invariant model xdot = A x + B u (for the
//       Exponential rule).
//   template <class T> X DiscreteDynamics(x, u, t, dt) const: the model's own
//       discrete map (for the PassThrough rule).
//   std::string name() const: used in error messages.
#include <cmath>
#include <string>
#include <type_traits>
#include <typeinfo>

#include "tern/common/eigen_types.h"

namespace tern {

namespace internal {

template <class M>
concept HasStaticSizes = requires {
  { M::kNumStates } -> std::convertible_to<int>;
  { M::kNumInputs } -> std::convertible_to<int>;
};

template <class M>
concept HasDynamicSizes = requires(const M& m) {
  { m.num_states() } -> std::convertible_to<Eigen::Index>;
  { m.num_inputs() } -> std::convertible_to<Eigen::Index>;
};

template <class M>
consteval int StaticNumStates() {
  if constexpr (HasStaticSizes<M>) {
    return M::kNumStates;
  } else {
    return Eigen::Dynamic;
  }
}

template <class M>
consteval int StaticNumInputs() {
  if constexpr (HasStaticSizes<M>) {
    return M::kNumInputs;
  } else {
    return Eigen::Dynamic;
  }
}

// Demangled C++ name of a type, for error messages.
std::string DemangledTypeName(const std::type_info& info);

}  // namespace internal

// Compile-time sizes of a model (Eigen::Dynamic when only known at run time).
template <class M>
inline constexpr int kNumStatesOf = internal::StaticNumStates<M>();
template <class M>
inline constexpr int kNumInputsOf = internal::StaticNumInputs<M>();
template <class M>
inline constexpr int kNumKnotOf = (kNumStatesOf<M> == Eigen::Dynamic ||
                                   kNumInputsOf<M> == Eigen::Dynamic)
                                      ? Eigen::Dynamic
                                      : kNumStatesOf<M> + kNumInputsOf<M>;

// Vector and matrix types of a model on scalar T.
template <class M, class T>
using StateOf = Vector<T, kNumStatesOf<M>>;  // (n)
template <class M, class T>
using InputOf = Vector<T, kNumInputsOf<M>>;  // (m)
template <class M, class T>
using KnotVectorOf = Vector<T, kNumKnotOf<M>>;  // (n + m) z = [x; u]
// n x (n + m): [d/dx d/du] of a map of (x, u) to a state-sized vector.
template <class M>
using JacobianOf = Eigen::Matrix<double, kNumStatesOf<M>, kNumKnotOf<M>>;
template <class M>
using StateMatrixOf =
    Eigen::Matrix<double, kNumStatesOf<M>, kNumStatesOf<M>>;  // n x n
template <class M>
using InputMatrixOf =
    Eigen::Matrix<double, kNumStatesOf<M>, kNumInputsOf<M>>;  // n x m

// A type that can be discretized: sizes and a double-valued Dynamics.
template <class M>
concept Model = (internal::HasStaticSizes<M> || internal::HasDynamicSizes<M>)&&(
    requires(const M& m, const StateOf<M, double>& x,
             const InputOf<M, double>& u, double t) { m.Dynamics(x, u, t); } ||
    requires(const M& m, const StateOf<M, double>& x,
             const InputOf<M, double>& u, double t,
             StateOf<M, double>* xdot) { m.Dynamics(x, u, t, xdot); });

// A model that provides its continuous Jacobian [df/dx df/du] analytically.
template <class M>
concept HasAnalyticJacobian = requires(const M& m, const StateOf<M, double>& x,
                                       const InputOf<M, double>& u, double t,
                                       JacobianOf<M>* jac) {
  m.Jacobian(x, u, t, jac);
};

// A linear time-invariant model xdot = A x + B u.
template <class M>
concept LinearModel = requires(const M& m) {
  { m.A() } -> std::convertible_to<Eigen::MatrixXd>;
  { m.B() } -> std::convertible_to<Eigen::MatrixXd>;
};

template <class M>
Eigen::Index NumStates(const M& model) {
  if constexpr (internal::HasStaticSizes<M>) {
    (void)model;
    return M::kNumStates;
  } else {
    return model.num_states();
  }
}

template <class M>
Eigen::Index NumInputs(const M& model) {
  if constexpr (internal::HasStaticSizes<M>) {
    (void)model;
    return M::kNumInputs;
  } else {
    return model.num_inputs();
  }
}

// The model's name() if it has one, else its demangled type name.
template <class M>
std::string ModelName(const M& model) {
  if constexpr (requires { std::string(model.name()); }) {
    return std::string(model.name());
  } else {
    (void)model;
    return internal::DemangledTypeName(typeid(M));
  }
}

// Evaluates xdot = f(x, u, t) into *xdot through whichever form the model
// provides. x and u must already be the model's vector types on scalar T.
template <class M, class T>
void EvalDynamics(const M& model, const StateOf<M, T>& x,
                  const InputOf<M, T>& u, const T& t, StateOf<M, T>* xdot) {
  if constexpr (requires { model.Dynamics(x, u, t, xdot); }) {
    xdot->resize(x.size());
    model.Dynamics(x, u, t, xdot);
  } else {
    *xdot = model.Dynamics(x, u, t);
  }
}

namespace internal {
// A vector of type V with n entries (V's own size when fixed: the
// one-argument constructor of a fixed 1-vector would set its value).
template <class V>
V SizedVector(Eigen::Index n) {
  if constexpr (V::SizeAtCompileTime == Eigen::Dynamic) {
    return V(n);
  } else {
    (void)n;
    return V();
  }
}

// True if the model's Dynamics accepts scalar T.
template <class M, class T>
concept DynamicsAcceptsScalar = requires(const M& m, const StateOf<M, T>& x,
                                         const InputOf<M, T>& u, const T& t,
                                         StateOf<M, T>* xdot) {
  m.Dynamics(x, u, t);
}
|| requires(const M& m, const StateOf<M, T>& x, const InputOf<M, T>& u,
            const T& t, StateOf<M, T>* xdot) {
  m.Dynamics(x, u, t, xdot);
};

// Throws std::invalid_argument naming `caller`, the model and the vector if
// x or u has the wrong size.
void ThrowSizeMismatch(const char* caller, const std::string& model_name,
                       const char* what, Eigen::Index got,
                       Eigen::Index expected);

// Throws std::invalid_argument naming `caller` and the model: t and dt must
// be finite (a NaN or infinite step would return NaN).
[[noreturn]] void ThrowNonFiniteTime(const char* caller,
                                     const std::string& model_name, double t,
                                     double dt);
template <class M>
void CheckTimeStep(const char* caller, const M& model, double t, double dt) {
  if (!(std::isfinite(t) && std::isfinite(dt))) {
    ThrowNonFiniteTime(caller, ModelName(model), t, dt);
  }
}

template <class M>
void CheckStateInputSizes(const char* caller, const M& model, Eigen::Index nx,
                          Eigen::Index nu) {
  if (nx != NumStates(model)) {
    ThrowSizeMismatch(caller, ModelName(model), "x", nx, NumStates(model));
  }
  if (nu != NumInputs(model)) {
    ThrowSizeMismatch(caller, ModelName(model), "u", nu, NumInputs(model));
  }
}
}  // namespace internal

}  // namespace tern
