#pragma once
// OdeFunction: the right-hand side xdot = f(t, x) handed to integration
// rules by a driver that is not a plain callable (the Simulator's Context
// wrapper, a name-selected integrator). Rules themselves are templates over
// any callable `f(t, x, &xdot)`; this interface is how a run-time driver
// provides one.
#include "tern/common/eigen_types.h"

namespace tern {

template <typename T>
class OdeFunction {
 public:
  virtual ~OdeFunction() = default;
  // Writes f(t, x) into *xdot, which has x's size already.
  virtual void Eval(const T& t, const VectorX<T>& x, VectorX<T>* xdot) = 0;
  void operator()(const T& t, const VectorX<T>& x, VectorX<T>* xdot) {
    Eval(t, x, xdot);
  }
};

}  // namespace tern
