// CheckContactStability against closed forms: RK4's stability interval on
// the imaginary axis (|h omega| <= 2 sqrt 2), forward Euler's growth on an
// undamped oscillator, and the effective mass of a free cube at the
// corners of its box.
#include "tern/multibody/plant/contact_stability.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace tern {
namespace {

TEST(ContactStability, Rk4OnAnUndampedOscillatorIsStableUpToTwoRootTwo) {
  const double m = 0.5, k = 2e5, omega = std::sqrt(k / m);
  const double limit = 2 * std::sqrt(2.0) / omega;
  EXPECT_LE(OscillatorAmplification("rk4", 0.999 * limit, m, k, 0), 1 + 1e-9);
  EXPECT_GT(OscillatorAmplification("rk4", 1.001 * limit, m, k, 0), 1 + 1e-6);
  // Forward Euler grows by sqrt(1 + (h omega)^2) per step.
  const double h = 1e-3;
  EXPECT_NEAR(OscillatorAmplification("euler", h, m, k, 0),
              std::sqrt(1 + h * h * omega * omega), 1e-12);
}

// A 1 kg cube of side a on a floating joint over the ground, both
// materials k (in series k / 2), no dashpot.
struct CubeOnGround {
  RigidBodyTree<double> tree{"cube"};
  GeometryModel model;
  explicit CubeOnGround(double k, double a = 0.1) {
    Joint<double> j;
    j.name = "floating";
    j.type = JointType::kFloating;
    tree.AddBody("cube", 0, j,
                 SpatialInertia<double>::FromCom(
                     1.0, Vector3<double>::Zero(),
                     Matrix3<double>::Identity() * (a * a / 6)));
    model = GeometryModel(tree.num_bodies());
    const ContactProperties props{1.0, 0.0, k, 0.0};
    Geometry ground;
    ground.name = "ground";
    ground.shape = Shape::HalfSpace();
    ground.properties = props;
    model.AddGeometry(ground);
    Geometry box;
    box.name = "box";
    box.body = 1;
    box.shape = Shape::Box(a, a, a);
    box.properties = props;
    model.AddGeometry(box);
  }
};

TEST(ContactStability, FreeCubeNeedsTheStepOfItsCornerEffectiveMass) {
  const CubeOnGround s(1e6);
  VectorX<double> q = VectorX<double>::Zero(7);
  q[3] = 1;  // at the origin, identity quaternion [qw qx qy qz]
  // At a corner p (|p|^2 = 3 a^2 / 4) of a cube of inertia m a^2 / 6:
  // J H^-1 J^T = I / m + (|p|^2 I - p p^T) / i, largest 1 / m + 4.5 / m.
  const double m_eff = 1 / 5.5, k = 5e5;
  const double limit = 2 * std::sqrt(2.0) / std::sqrt(k / m_eff);
  EXPECT_FALSE(CheckContactStability(s.tree, s.model, q, "rk4", 0.99 * limit));
  const auto f = CheckContactStability(s.tree, s.model, q, "rk4", 2 * limit);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->body, "cube");
  EXPECT_EQ(f->geometry, "box");
  EXPECT_NEAR(f->effective_mass, m_eff, 1e-12);
  EXPECT_NEAR(f->stiffness, k, 1e-6);
  EXPECT_GT(f->amplification, 1);
  EXPECT_NEAR(f->stable_step, limit, 1e-9 * limit);
  // Implicit and error-controlled rules are not checked.
  EXPECT_FALSE(CheckContactStability(s.tree, s.model, q, "implicit_euler_fixed",
                                     2 * limit));
  EXPECT_FALSE(CheckContactStability(s.tree, s.model, q, "dopri5", 1.0));
  // Excluded from the ground: nothing to touch, nothing to check.
  CubeOnGround apart(1e6);
  apart.model.ExcludeBodyPair(0, 1);
  EXPECT_FALSE(
      CheckContactStability(apart.tree, apart.model, q, "rk4", 2 * limit));
}

TEST(ContactStability, BadInputIsNamed) {
  const CubeOnGround s(1e6);
  const VectorX<double> q = VectorX<double>::Zero(3);
  EXPECT_THROW(CheckContactStability(s.tree, s.model, q, "rk4", 1e-3),
               std::invalid_argument);
  VectorX<double> q7 = VectorX<double>::Zero(7);
  q7[3] = 1;
  EXPECT_THROW(CheckContactStability(s.tree, s.model, q7, "rk4", -1),
               std::invalid_argument);
  EXPECT_THROW(CheckContactStability(s.tree, s.model, q7, "no_such_rule", 1e-3),
               std::invalid_argument);
}

}  // namespace
}  // namespace tern
