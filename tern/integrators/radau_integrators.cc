// Run-time adapters (IntegratorBase<double>) for Radau IIA of order 5:
// radau5 (error-controlled) and radau5_fixed.
#include "tern/integrators/implicit_integrator_adapter.h"
#include "tern/integrators/implicit_rules.h"
#include "tern/integrators/integrator_factories.h"

namespace tern::internal {

std::unique_ptr<IntegratorBase<double>> MakeRadauIntegrator(
    const std::string& name) {
  if (name == "radau5") {
    return std::make_unique<ImplicitIntegrator<RadauIIA5, true>>();
  }
  if (name == "radau5_fixed") {
    return std::make_unique<ImplicitIntegrator<RadauIIA5, false>>();
  }
  return nullptr;
}

}  // namespace tern::internal
