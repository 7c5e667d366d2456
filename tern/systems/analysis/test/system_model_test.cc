#include "tern/systems/analysis/system_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tern/systems/analysis/discrete_jacobian.h"
#include "tern/systems/analysis/linearize.h"
#include "tern/systems/framework/context.h"
#include "tern/systems/framework/leaf_system.h"

namespace tern {
namespace {

// Damped pendulum as a block on scalar T: x = [theta, omega], input torque
// u, output y = [sin(theta); omega + 2 u] (so D is nonzero).
template <typename T>
class PendulumSystem final : public LeafSystem<T> {
 public:
  PendulumSystem() : LeafSystem<T>("pendulum") {
    this->DeclareContinuousState(2);
    this->DeclareVectorInputPort("tau", 1);
    this->DeclareVectorOutputPort("y", 2, &PendulumSystem::CalcY);
  }
  void DoCalcTimeDerivatives(const Context<T>& context,
                             Eigen::Ref<VectorX<T>> xdot) const override {
    using std::sin;
    const auto x = context.get_continuous_state_vector();
    const VectorX<T>& u = this->get_input_port().Eval(context);
    xdot(0) = x(1);
    xdot(1) = -9.81 * sin(x(0)) - 0.2 * x(1) + u(0);
  }

 private:
  void CalcY(const Context<T>& context, VectorX<T>* y) const {
    using std::sin;
    const auto x = context.get_continuous_state_vector();
    const VectorX<T>& u = this->get_input_port().Eval(context);
    (*y)(0) = sin(x(0));
    (*y)(1) = x(1) + 2.0 * u(0);
  }
};

// The same pendulum as a plain model.
struct PendulumModel {
  static constexpr int kNumStates = 2;
  static constexpr int kNumInputs = 1;
  template <class T>
  Vector<T, 2> Dynamics(const Vector<T, 2>& x, const Vector<T, 1>& u,
                        const T& /*t*/) const {
    using std::sin;
    return Vector<T, 2>(x(1), -9.81 * sin(x(0)) - 0.2 * x(1) + u(0));
  }
};

TEST(SystemModelTest, DiscretizesLikeThePlainModel) {
  const PendulumSystem<double> system;
  const PendulumSystem<AutoDiffXd> system_ad;
  const SystemModel model(system, system_ad);
  EXPECT_EQ(model.num_states(), 2);
  EXPECT_EQ(model.num_inputs(), 1);
  const Eigen::Vector2d x(0.4, -0.3);
  const Vector<double, 1> u(0.7);
  const Eigen::VectorXd xn = DiscreteDynamics<RK4>(
      model, Eigen::VectorXd(x), Eigen::VectorXd(u), 0.0, 0.05);
  const Eigen::Vector2d xn_plain =
      DiscreteDynamics<RK4>(PendulumModel{}, x, u, 0.0, 0.05);
  EXPECT_LT((xn - xn_plain).cwiseAbs().maxCoeff(), 1e-15);

  Eigen::MatrixXd J_ad, J_fd;
  DiscreteJacobian<RK4>(model, x, u, 0.0, 0.05, &J_ad);
  DiscreteJacobian<RK4>(model, x, u, 0.0, 0.05, &J_fd,
                        JacobianMethod::kCentralDifference);
  Eigen::Matrix<double, 2, 3> J_plain;
  DiscreteJacobian<RK4>(PendulumModel{}, x, u, 0.0, 0.05, &J_plain);
  EXPECT_LT((J_ad - J_plain).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LT((J_fd - J_plain).cwiseAbs().maxCoeff(), 1e-8);
}

TEST(SystemModelTest, LinearizeSystemGivesABCD) {
  const PendulumSystem<AutoDiffXd> system;
  const double theta = 0.4;
  const auto lin = LinearizeSystem(system, Eigen::Vector2d(theta, 0.1),
                                   Eigen::VectorXd::Constant(1, 0.5));
  Eigen::Matrix2d A;
  A << 0, 1, -9.81 * std::cos(theta), -0.2;
  EXPECT_LT((lin.A - A).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LT((lin.B - Eigen::Vector2d(0, 1)).cwiseAbs().maxCoeff(), 1e-14);
  Eigen::Matrix2d C;
  C << std::cos(theta), 0, 0, 1;
  EXPECT_LT((lin.C - C).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LT((lin.D - Eigen::Vector2d(0, 2)).cwiseAbs().maxCoeff(), 1e-14);
}

TEST(SystemModelTest, WrongSizesNameTheSystem) {
  const PendulumSystem<AutoDiffXd> system;
  try {
    LinearizeSystem(system, Eigen::Vector3d::Zero(), Eigen::VectorXd::Zero(1));
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("pendulum"), std::string::npos)
        << e.what();
  }
  try {
    LinearizeSystem(system, Eigen::Vector2d::Zero(), Eigen::VectorXd::Zero(1),
                    0.0, 3);
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no output port 3"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tern
