// Cart-pole balanced by a discrete LQR controller.
//
// 1. The cart-pole model (tern/systems/analysis/example_models.h) is
//    discretized with RK4 at the controller's period and linearized about
//    the upright: DiscreteTimeLinearize<RK4>.
// 2. DiscreteTimeLinearQuadraticRegulator gives u = -K (x - x_up).
// 3. A diagram of the continuous plant and a sampled controller (discrete
//    state holding u, updated every dt from the measured state) is simulated
//    with the Simulator from a 0.3 rad tilt; the state is printed every
//    0.25 s. Exit status 1 if the pole does not come back upright.
#include <cmath>
#include <cstdio>

#include "tern/systems/analysis/example_models.h"
#include "tern/systems/analysis/linearize.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/controllers/linear_quadratic_regulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/framework/leaf_system.h"

namespace {

using tern::Context;
using tern::DiscreteValues;
using tern::EventStatus;
using tern::VectorX;
using Model = tern::examples::Cartpole;

const Eigen::Vector4d kUpright(0, M_PI, 0, 0);

// The continuous cart-pole: input "u" (force, N), output "x" (state).
class CartpolePlant final : public tern::LeafSystem<double> {
 public:
  CartpolePlant() : tern::LeafSystem<double>("cartpole") {
    DeclareContinuousState(4);
    DeclareVectorInputPort("u", 1);
    DeclareVectorOutputPort("x", 4, &CartpolePlant::CalcX, tern::ticket::kXc);
  }
  void DoCalcTimeDerivatives(const Context<double>& context,
                             Eigen::Ref<VectorX<double>> xdot) const override {
    const Eigen::Vector4d x = context.get_continuous_state_vector();
    const tern::Vector<double, 1> u = get_input_port().Eval(context);
    xdot = model_.Dynamics(x, u, context.get_time());
  }

 private:
  void CalcX(const Context<double>& context, VectorX<double>* x) const {
    *x = context.get_continuous_state_vector();
  }
  Model model_;
};

// u[k+1] = -K (x(t_k) - x_up), sampled every dt and held (discrete state).
class DiscreteLqrController final : public tern::LeafSystem<double> {
 public:
  DiscreteLqrController(const Eigen::MatrixXd& K, double dt)
      : tern::LeafSystem<double>("lqr"), K_(K) {
    DeclareVectorInputPort("x", 4);
    DeclareDiscreteState(1);
    DeclarePeriodicDiscreteUpdateEvent(dt, 0.0, &DiscreteLqrController::Update);
    DeclareVectorOutputPort("u", 1, &DiscreteLqrController::CalcU,
                            tern::ticket::kXd);
  }

 private:
  EventStatus Update(const Context<double>& context,
                     DiscreteValues<double>* next) const {
    const VectorX<double>& x = get_input_port().Eval(context);
    next->get_mutable_vector() = -K_ * (x - kUpright);
    return EventStatus::Succeeded();
  }
  void CalcU(const Context<double>& context, VectorX<double>* u) const {
    *u = context.get_discrete_state_vector();
  }
  Eigen::MatrixXd K_;
};

}  // namespace

int main() {
  const double dt = 0.02;  // s, controller period
  const Model model;
  const auto [Ad, Bd] = tern::DiscreteTimeLinearize<tern::RK4>(
      model, kUpright, tern::Vector<double, 1>::Zero(), 0.0, dt);
  const Eigen::Matrix4d Q = Eigen::Vector4d(10, 10, 1, 1).asDiagonal();
  const Eigen::MatrixXd R = Eigen::MatrixXd::Constant(1, 1, 0.1);
  const auto lqr = tern::DiscreteTimeLinearQuadraticRegulator(Ad, Bd, Q, R);
  std::printf("K = [%.3f %.3f %.3f %.3f]\n", lqr.K(0, 0), lqr.K(0, 1),
              lqr.K(0, 2), lqr.K(0, 3));

  tern::DiagramBuilder<double> builder;
  auto* plant = builder.AddSystem<CartpolePlant>();
  auto* controller = builder.AddSystem<DiscreteLqrController>(lqr.K, dt);
  builder.Connect(plant->get_output_port(), controller->get_input_port());
  builder.Connect(controller->get_output_port(), plant->get_input_port());
  auto diagram = builder.Build();

  tern::Simulator<double> simulator(*diagram);
  simulator.reset_integrator<tern::RK4>(1e-3);
  Context<double>& plant_context =
      plant->GetMyMutableContextFromRoot(&simulator.get_mutable_context());
  plant_context.get_mutable_continuous_state_vector() =
      Eigen::Vector4d(0, M_PI - 0.3, 0, 0);

  std::printf("   t      p       theta-pi  pdot    thetadot  u\n");
  for (int k = 0; k <= 20; ++k) {
    simulator.AdvanceTo(0.25 * k);
    const VectorX<double> x = plant_context.get_continuous_state_vector();
    const VectorX<double>& u = controller->get_output_port().Eval(
        controller->GetMyContextFromRoot(simulator.get_context()));
    std::printf("%5.2f  %7.4f  %8.4f  %7.4f  %8.4f  %7.3f\n", 0.25 * k, x(0),
                x(1) - M_PI, x(2), x(3), u(0));
  }
  const VectorX<double> x = plant_context.get_continuous_state_vector();
  const bool upright = (x - kUpright).cwiseAbs().maxCoeff() < 1e-2;
  std::printf(upright ? "balanced upright\n" : "did NOT balance\n");
  return upright ? 0 : 1;
}
