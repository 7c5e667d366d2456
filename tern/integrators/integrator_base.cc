#include "tern/integrators/integrator_base.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>
#include <vector>

#include "tern/common/autodiff.h"
#include "tern/common/default_scalars.h"
#include "tern/integrators/explicit_rules.h"
#include "tern/integrators/integrator_error.h"
#include "tern/integrators/integrator_factories.h"

namespace tern {

namespace internal {

void ThrowBadFixedStep(const char* rule, double fixed_step, double t,
                       double t_limit, double h) {
  if (!(std::isfinite(fixed_step) && fixed_step > 0)) {
    throw std::invalid_argument(
        fmt::format("{}: settings.fixed_step = {}: must be finite and > 0",
                    rule, fixed_step));
  }
  if (!std::isfinite(t) || !std::isfinite(t_limit)) {
    throw std::invalid_argument(fmt::format(
        "{}: Step from t = {} towards t_limit = {}: times must be finite", rule,
        t, t_limit));
  }
  if (!(t_limit > t)) {
    throw std::invalid_argument(
        fmt::format("{}: Step called with t_limit = {} not after t = {}", rule,
                    t_limit, t));
  }
  throw std::invalid_argument(fmt::format(
      "{}: settings.fixed_step = {} is below the time resolution at t = {} "
      "(t + h == t): the integration would never advance",
      rule, h, t));
}

void ThrowNonFiniteState(const char* rule, Eigen::Index i, double t, double h,
                         double before) {
  throw IntegratorStepError(
      fmt::format("{}: state component {} became non-finite in the step from "
                  "t = {} with h = {} (it was {} before the step)",
                  rule, i, t, h, before),
      i);
}

}  // namespace internal

template <typename T>
void IntegratorBase<T>::DenseOutput(const T& t, VectorX<T>* x) {
  (void)x;
  throw std::logic_error(fmt::format(
      "{}: no dense output (asked for t = {}); fixed-step rules localize "
      "events by repeating the step with a shorter h",
      name(), ExtractDoubleOrThrow(t)));
}

namespace {
template <typename T>
using Factory = std::function<std::unique_ptr<IntegratorBase<T>>()>;

template <typename T>
const std::map<std::string, Factory<T>>& FixedStepRegistry() {
  static const std::map<std::string, Factory<T>> registry = {
      {"euler",
       [] {
         return std::make_unique<FixedStepIntegrator<ExplicitEuler, T>>();
       }},
      {"rk2", [] { return std::make_unique<FixedStepIntegrator<RK2, T>>(); }},
      {"rk3", [] { return std::make_unique<FixedStepIntegrator<RK3, T>>(); }},
      {"rk4", [] { return std::make_unique<FixedStepIntegrator<RK4, T>>(); }},
  };
  return registry;
}
}  // namespace

template <typename T>
std::unique_ptr<IntegratorBase<T>> MakeIntegrator(
    const std::string& name, const IntegratorSettings& settings) {
  std::unique_ptr<IntegratorBase<T>> integrator;
  const auto& registry = FixedStepRegistry<T>();
  if (auto it = registry.find(name); it != registry.end()) {
    integrator = it->second();
  } else if (name == "default") {
    integrator =
        internal::MakeErrorControlledExplicitIntegrator<T>(kDefaultIntegrator);
  } else {
    integrator = internal::MakeErrorControlledExplicitIntegrator<T>(name);
    if (!integrator) integrator = internal::MakeSecondOrderIntegrator<T>(name);
    if (!integrator) integrator = internal::MakeImplicitIntegrator<T>(name);
  }
  if (!integrator) {
    throw std::invalid_argument(
        fmt::format("MakeIntegrator: unknown integrator '{}'; known: {}", name,
                    KnownIntegratorNames()));
  }
  ValidateSettings(settings, name.c_str());
  integrator->mutable_settings() = settings;
  return integrator;
}

std::string KnownIntegratorNames() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : FixedStepRegistry<double>()) {
    names.push_back(name);
  }
  for (auto&& list : {internal::ErrorControlledExplicitIntegratorNames(),
                      internal::SecondOrderIntegratorNames(),
                      internal::ImplicitIntegratorNames()}) {
    names.insert(names.end(), list.begin(), list.end());
  }
  names.push_back("default");
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(IntegratorBase)
template class FixedStepIntegrator<ExplicitEuler, double>;
template class FixedStepIntegrator<ExplicitEuler, AutoDiffXd>;
template class FixedStepIntegrator<RK2, double>;
template class FixedStepIntegrator<RK2, AutoDiffXd>;
template class FixedStepIntegrator<RK3, double>;
template class FixedStepIntegrator<RK3, AutoDiffXd>;
template class FixedStepIntegrator<RK4, double>;
template class FixedStepIntegrator<RK4, AutoDiffXd>;
template std::unique_ptr<IntegratorBase<double>> MakeIntegrator<double>(
    const std::string&, const IntegratorSettings&);
template std::unique_ptr<IntegratorBase<AutoDiffXd>> MakeIntegrator<AutoDiffXd>(
    const std::string&, const IntegratorSettings&);

}  // namespace tern
