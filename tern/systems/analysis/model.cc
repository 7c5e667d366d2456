#include "tern/systems/analysis/model.h"

#include <cxxabi.h>
#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>

namespace tern::internal {

std::string DemangledTypeName(const std::type_info& info) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(info.name(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? std::string(name.get())
                             : std::string(info.name());
}

void ThrowSizeMismatch(const char* caller, const std::string& model_name,
                       const char* what, Eigen::Index got,
                       Eigen::Index expected) {
  throw std::invalid_argument(
      fmt::format("{}: {} has size {} but model '{}' expects {}", caller, what,
                  got, model_name, expected));
}

void ThrowNonFiniteTime(const char* caller, const std::string& model_name,
                        double t, double dt) {
  throw std::invalid_argument(
      fmt::format("{}: model '{}': t = {} and dt = {} must be finite", caller,
                  model_name, t, dt));
}

}  // namespace tern::internal
