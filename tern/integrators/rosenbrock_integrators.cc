// Run-time adapters (IntegratorBase<double>) for the Rosenbrock rules:
// kaps_rentrop4 and rodas4 (alias rosenbrock4, the name Boost.Odeint gives
// the same RODAS method).
#include "tern/integrators/implicit_integrator_adapter.h"
#include "tern/integrators/implicit_rules.h"
#include "tern/integrators/integrator_factories.h"
#include "tern/integrators/rodas4.h"

namespace tern::internal {

std::unique_ptr<IntegratorBase<double>> MakeRosenbrockIntegrator(
    const std::string& name) {
  if (name == "kaps_rentrop4") {
    return std::make_unique<ImplicitIntegrator<KapsRentrop4, true>>();
  }
  if (name == "rodas4" || name == "rosenbrock4") {
    return std::make_unique<ImplicitIntegrator<Rodas4, true>>();
  }
  return nullptr;
}

}  // namespace tern::internal
