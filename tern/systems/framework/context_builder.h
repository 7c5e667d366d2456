#pragma once
// Internal: builds the Context tree and its flat storage for a root system,
// and resolves, once, where every input port's value comes from.
#include <memory>

#include "tern/systems/framework/context.h"

namespace tern::internal {

template <typename T>
class ContextBuilder {
 public:
  static std::unique_ptr<Context<T>> Create(const System<T>& root);
  // Copies fixed input values between two context trees of one system.
  static void CopyFixedInputs(const Context<T>& source, Context<T>* dest);
};

}  // namespace tern::internal
