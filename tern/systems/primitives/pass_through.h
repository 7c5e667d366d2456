#pragma once
// PassThrough: y = u, direct feedthrough. Useful to export one diagram input
// to several blocks or to name a signal.
#include "tern/systems/framework/leaf_system.h"

namespace tern {

template <typename T>
class PassThrough final : public LeafSystem<T> {
 public:
  // size >= 1.
  explicit PassThrough(int size);

 private:
  void CalcOutput(const Context<T>& context, VectorX<T>* y) const;
};

}  // namespace tern
