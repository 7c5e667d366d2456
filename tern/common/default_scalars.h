#pragma once
// Explicit instantiation of scalar-templated classes and functions: headers
// declare, a .cc defines and instantiates on the default scalars, so client
// code never recompiles the templates.
#include "tern/common/autodiff.h"

// In a .cc after the definitions: TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(X)
#define TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(ClassName) \
  template class ClassName<double>;                          \
  template class ClassName<::tern::AutoDiffXd>;

// In a header after the declaration, to stop implicit instantiation.
#define TERN_DECLARE_CLASS_ON_DEFAULT_SCALARS(ClassName) \
  extern template class ClassName<double>;               \
  extern template class ClassName<::tern::AutoDiffXd>;

// The same for a struct (a class key that differs from the definition's is
// clang's -Wmismatched-tags).
#define TERN_INSTANTIATE_STRUCT_ON_DEFAULT_SCALARS(StructName) \
  template struct StructName<double>;                          \
  template struct StructName<::tern::AutoDiffXd>;
#define TERN_DECLARE_STRUCT_ON_DEFAULT_SCALARS(StructName) \
  extern template struct StructName<double>;               \
  extern template struct StructName<::tern::AutoDiffXd>;
