#pragma once
// Internal: the registry behind MakeIntegrator is split over several .cc
// files (one per family of rules) to keep compile units small. Each family
// returns nullptr for names it does not own.
#include <memory>
#include <string>
#include <vector>

#include "tern/integrators/integrator_base.h"

namespace tern::internal {

template <typename T>
std::unique_ptr<IntegratorBase<T>> MakeErrorControlledExplicitIntegrator(
    const std::string& name);
std::vector<std::string> ErrorControlledExplicitIntegratorNames();

template <typename T>
std::unique_ptr<IntegratorBase<T>> MakeSecondOrderIntegrator(
    const std::string& name);
std::vector<std::string> SecondOrderIntegratorNames();

// Implicit rules exist for double only; for AutoDiffXd this throws
// std::invalid_argument for their names.
template <typename T>
std::unique_ptr<IntegratorBase<T>> MakeImplicitIntegrator(
    const std::string& name);
std::vector<std::string> ImplicitIntegratorNames();

// Families behind MakeImplicitIntegrator<double>, each in its own .cc file;
// nullptr for names they do not own.
std::unique_ptr<IntegratorBase<double>> MakeRosenbrockIntegrator(
    const std::string& name);
std::unique_ptr<IntegratorBase<double>> MakeRadauIntegrator(
    const std::string& name);

}  // namespace tern::internal
