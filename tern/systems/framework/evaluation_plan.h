#pragma once
// EvaluationPlan: fast repeated evaluation of a root context's time
// derivatives while only time and continuous state change between calls, as
// inside an integration step. The Simulator evaluates its right-hand side
// through one.
//
// Record() evaluates the derivatives once while the output cache notes every
// output it recomputes, in the order the computations finished (each after
// the outputs it read). The plan keeps those that depend on time or
// continuous state (directly, or through an input). Eval() recomputes them
// in that order, before the leaves' derivatives: outputs declared with a
// kernel (LeafSystem::DeclareVectorOutputKernel) are computed by calling the
// kernel directly with input pointers resolved at Record(); the others
// through their calc, whose input reads then find a fresh cache instead of
// recursing upstream. Nothing is looked up or version-checked per output.
//
// Outputs outside the plan are still computed on demand, so a diagram whose
// evaluation pattern changes stays correct; an output in the plan that is no
// longer read is computed anyway (a cost, not an error).
//
// Prepare() must be called after anything other than time and continuous
// state changed (a discrete or unrestricted update, parameters, fixed
// inputs) and before the next Eval(): it brings up to date the outputs that
// kernels read directly but the plan does not compute.
#include <utility>
#include <vector>

#include "tern/common/eigen_types.h"
#include "tern/systems/framework/ports.h"

namespace tern {

template <typename T>
class System;
template <typename T>
class LeafSystem;
template <typename T>
class OutputPort;

namespace internal {

template <typename T>
class EvaluationPlan {
 public:
  EvaluationPlan() = default;
  EvaluationPlan(const EvaluationPlan&) = delete;
  EvaluationPlan& operator=(const EvaluationPlan&) = delete;

  // Forgets the plan (call when the context is replaced or re-initialized).
  void Clear();
  bool recorded() const { return storage_ != nullptr; }

  // Evaluates the time derivatives of `context` (a root context of
  // `system`, whose time and continuous state were just set) into *xdot
  // and records the plan. Allocates.
  void Record(const System<T>& system, const Context<T>& context,
              VectorX<T>* xdot);
  // See the class comment. Does not allocate.
  void Prepare() const;
  // Evaluates the time derivatives with the plan into *xdot (presized).
  // The context's time and continuous state must have been set (which
  // marks what depends on them stale) since the last evaluation. Does not
  // allocate beyond what the leaves' own computations do.
  void Eval(VectorX<T>* xdot) const;

  // Outputs the plan recomputes per Eval, and how many of them by kernel.
  int num_steps() const { return static_cast<int>(steps_.size()); }
  int num_kernel_steps() const;

 private:
  // A scalar kernel call (T = double only): fn(u0, u1), where an input equal
  // to the previous step's output is taken from the register that holds it
  // (u*_last) instead of from memory.
  struct ScalarCall {
    ScalarKernel<T> fn{nullptr};
    const T* u0{nullptr};
    const T* u1{nullptr};
    bool u0_last{false};
    bool u1_last{false};
  };
  struct Step {
    ScalarCall scalar;
    // For a scalar step: it and the steps after it that form a chain with
    // it (each reads the previous output as u0 and not as u1).
    int chain{0};
    OutputKernel<T> kernel{nullptr};  // null: recompute through the calc
    const OutputPort<T>* port{nullptr};
    const System<T>* system{nullptr};    // the port's leaf system
    const Context<T>* context{nullptr};  // its context
    // Its cache entry and value. A computed entry is marked fresh by its
    // serial alone: should the context change, its version counters (not
    // updated here) send the next read to a recomputation.
    CacheEntry<T>* entry{nullptr};
    T* y{nullptr};
    // Kernel input pointers in input_pointers_ (-1: reads no inputs), and
    // the inputs handed to the kernel (set when Record() finishes).
    int inputs_begin{-1};
    KernelInputs<T> inputs{nullptr};
  };
  struct ContinuousLeaf {
    const LeafSystem<T>* system{nullptr};
    const Context<T>* context{nullptr};
    Eigen::Index start{0}, size{0};  // its part of xdot
    // Its time-derivatives kernel with resolved inputs, if it has one whose
    // inputs all resolve; else null (DoCalcTimeDerivatives is called).
    OutputKernel<T> kernel{nullptr};
    int inputs_begin{-1};
    KernelInputs<T> inputs{nullptr};
    ScalarCall scalar;  // a one-state leaf's scalar derivative kernel
  };
  using Needs = std::vector<std::pair<const OutputPort<T>*, const Context<T>*>>;
  // Appends to input_pointers_ a stable pointer to each vector input of the
  // leaf with context `ctx`, and to *needs the upstream outputs that must
  // be brought up to date by Prepare(); returns the first index, or -1 (and
  // appends nothing) if some input cannot be resolved.
  static T Call(const ScalarCall& call, const System<T>& system,
                const Context<T>& context, const T& last) {
    return call.fn(system, context, call.u0_last ? last : *call.u0,
                   call.u1_last ? last : *call.u1);
  }
  // Sets up *call to `fn` of the leaf `system` whose resolved inputs start
  // at inputs_begin (-1: none), after the steps recorded so far.
  void SetUpScalarCall(ScalarKernel<T> fn, const System<T>& system,
                       int inputs_begin, ScalarCall* call) const;
  int ResolveInputs(const Context<T>& ctx,
                    const std::vector<const CacheEntry<T>*>& planned,
                    Needs* needs);

  const ContextStorage<T>* storage_{nullptr};
  std::vector<Step> steps_;
  std::vector<const T*> input_pointers_;
  // Upstream outputs that kernels read but the plan does not compute (they
  // depend on neither time nor continuous state).
  Needs prepare_;
  std::vector<ContinuousLeaf> leaves_;
};

}  // namespace internal
}  // namespace tern
