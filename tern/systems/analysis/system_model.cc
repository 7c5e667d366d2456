#include "tern/systems/analysis/system_model.h"

#include <fmt/format.h>

#include <stdexcept>

#include "tern/systems/framework/context.h"
#include "tern/systems/framework/ports.h"

namespace tern {
namespace {

template <typename T>
Eigen::Index InputSize(const System<T>& system, const char* caller) {
  if (system.num_input_ports() == 0) return 0;
  if (system.num_input_ports() > 1) {
    throw std::invalid_argument(fmt::format(
        "{}: system '{}' has {} input ports; a model needs at most one (export "
        "a single vector input from a diagram)",
        caller, system.GetPathName(), system.num_input_ports()));
  }
  const InputPort<T>& port = system.get_input_port(0);
  if (port.get_data_type() != PortDataType::kVector) {
    throw std::invalid_argument(
        fmt::format("{}: input port {} is not a vector port", caller,
                    port.GetFullDescription()));
  }
  return port.size();
}

}  // namespace

SystemModel::SystemModel(const System<double>& system,
                         const System<AutoDiffXd>& system_ad)
    : system_(&system),
      system_ad_(&system_ad),
      context_(system.CreateDefaultContext()),
      context_ad_(system_ad.CreateDefaultContext()),
      num_states_(system.num_continuous_states()),
      num_inputs_(InputSize(system, "SystemModel")) {
  if (system_ad.num_continuous_states() != num_states_ ||
      InputSize(system_ad, "SystemModel") != num_inputs_) {
    throw std::invalid_argument(fmt::format(
        "SystemModel: system '{}' has {} continuous states and {} inputs but "
        "its AutoDiffXd twin '{}' has {} and {}",
        system.GetPathName(), num_states_, num_inputs_, system_ad.GetPathName(),
        system_ad.num_continuous_states(),
        InputSize(system_ad, "SystemModel")));
  }
}

SystemModel::~SystemModel() = default;

std::string SystemModel::name() const { return system_->GetPathName(); }

template <class T>
requires(std::is_same_v<T, double> ||
         std::is_same_v<T, AutoDiffXd>) void SystemModel::
    Dynamics(const VectorX<T>& x, const VectorX<T>& u, const T& t,
             VectorX<T>* xdot) const {
  const System<T>* system;
  Context<T>* context;
  if constexpr (std::is_same_v<T, double>) {
    system = system_;
    context = context_.get();
  } else {
    system = system_ad_;
    context = context_ad_.get();
  }
  context->SetTimeAndContinuousState(t, x);
  if (num_inputs_ > 0) system->get_input_port(0).FixValue(context, u);
  xdot->resize(num_states_);
  system->CalcTimeDerivatives(*context, xdot);
}

template void SystemModel::Dynamics<double>(const VectorX<double>&,
                                            const VectorX<double>&,
                                            const double&,
                                            VectorX<double>*) const;
template void SystemModel::Dynamics<AutoDiffXd>(const VectorX<AutoDiffXd>&,
                                                const VectorX<AutoDiffXd>&,
                                                const AutoDiffXd&,
                                                VectorX<AutoDiffXd>*) const;

SystemLinearization LinearizeSystem(const System<AutoDiffXd>& system,
                                    const Eigen::VectorXd& x0,
                                    const Eigen::VectorXd& u0, double t,
                                    int output_port,
                                    const Context<AutoDiffXd>* context) {
  const Eigen::Index n = system.num_continuous_states();
  const Eigen::Index m = InputSize(system, "LinearizeSystem");
  if (x0.size() != n || u0.size() != m) {
    throw std::invalid_argument(fmt::format(
        "LinearizeSystem: x0 has size {} and u0 size {} but system '{}' has {} "
        "continuous states and {} inputs",
        x0.size(), u0.size(), system.GetPathName(), n, m));
  }
  if (output_port >= system.num_output_ports()) {
    throw std::invalid_argument(fmt::format(
        "LinearizeSystem: system '{}' has no output port {} (it has {})",
        system.GetPathName(), output_port, system.num_output_ports()));
  }
  std::unique_ptr<Context<AutoDiffXd>> ctx = system.CreateDefaultContext();
  if (context != nullptr) ctx->SetTimeStateAndParametersFrom(*context);
  const VectorX<AutoDiffXd> x = InitializeAutoDiff(x0, n + m, 0);
  const VectorX<AutoDiffXd> u = InitializeAutoDiff(u0, n + m, n);
  ctx->SetTimeAndContinuousState(AutoDiffXd(t), x);
  if (m > 0) system.get_input_port(0).FixValue(ctx.get(), u);
  VectorX<AutoDiffXd> xdot(n);
  system.CalcTimeDerivatives(*ctx, &xdot);
  const Eigen::MatrixXd Jf = ExtractGradient(xdot, n + m);
  SystemLinearization result;
  result.A = Jf.leftCols(n);
  result.B = Jf.rightCols(m);
  if (output_port >= 0) {
    const VectorX<AutoDiffXd>& y =
        system.get_output_port(output_port).Eval(*ctx);
    const Eigen::MatrixXd Jg = ExtractGradient(y, n + m);
    result.C = Jg.leftCols(n);
    result.D = Jg.rightCols(m);
  }
  return result;
}

}  // namespace tern
