#include "tern/common/value.h"

#include <cxxabi.h>

#include <cstdlib>

namespace tern {

std::string NiceTypeName(const std::type_info& info) {
  int status = 0;
  char* s = abi::__cxa_demangle(info.name(), nullptr, nullptr, &status);
  std::string out = (status == 0 && s) ? s : info.name();
  std::free(s);
  return out;
}

std::string AbstractValue::type_name() const {
  return NiceTypeName(type_info());
}

void AbstractValue::ThrowTypeMismatch(const std::type_info& requested) const {
  throw std::logic_error("AbstractValue: requested a value of type " +
                         NiceTypeName(requested) + " but it holds " +
                         type_name());
}

}  // namespace tern
