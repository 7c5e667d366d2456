#pragma once
// ConstantVectorSource: a source whose output y is a constant vector. The
// value is a numeric parameter (per Context), so it can be changed without
// rebuilding the diagram. Output "y0" depends only on parameters, so it never
// forms part of an algebraic loop.
#include "tern/systems/framework/leaf_system.h"

namespace tern {

template <typename T>
class ConstantVectorSource final : public LeafSystem<T> {
 public:
  // y = value; `value` may have any size (including 0).
  explicit ConstantVectorSource(const VectorX<double>& value);
  // y = [value] (size 1).
  explicit ConstantVectorSource(double value);

  // The value in `context` (this system's context or a root containing it).
  const VectorX<T>& get_source_value(const Context<T>& context) const;
  // Mutable value; its size is fixed.
  VectorX<T>& get_mutable_source_value(Context<T>* context) const;

 private:
  void CalcOutput(const Context<T>& context, VectorX<T>* y) const;
};

}  // namespace tern
