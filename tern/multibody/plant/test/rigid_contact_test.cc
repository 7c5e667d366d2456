#include "tern/multibody/plant/rigid_contact.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "tern/integrators/explicit_rules.h"
#include "tern/math/rotation.h"
#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/plant/compliant_contact.h"
#include "tern/multibody/plant/contact_common.h"
#include "tern/multibody/plant/rigid_body_system.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/test_support/allocation_counter.h"

namespace tern {
namespace {

// RigidContact in RigidBodySystem: the acceleration-level LCP, the impact
// law and its witness functions, Painlevé detection, the contact-force
// output.

constexpr double kG = 9.81;

using ActuatorList = std::vector<std::shared_ptr<const Actuator<double>>>;

// One free body (mass m, inertia I about its center) with one geometry
// `shape` (named `name`, properties `props`) above the ground half-space
// z = 0 (named "ground", properties `ground`).
struct FreeBodyOnPlane {
  RigidBodyTree<double> tree{"scene"};
  GeometryModel model;
  FreeBodyOnPlane(const std::string& name, double m, const Matrix3<double>& I,
                  Shape shape, ContactProperties props,
                  ContactProperties ground_props,
                  const RigidTransform<double>& X_BG = {},
                  const std::string& geometry_name = "") {
    Joint<double> j;
    j.name = "floating";
    j.type = JointType::kFloating;
    tree.AddBody(
        name, 0, j,
        SpatialInertia<double>::FromCom(m, Vector3<double>::Zero(), I));
    model = GeometryModel(tree.num_bodies());
    Geometry ground;
    ground.name = "ground";
    ground.body = 0;
    ground.shape = Shape::HalfSpace();
    ground.properties = ground_props;
    model.AddGeometry(ground);
    Geometry g;
    g.name = geometry_name.empty() ? name : geometry_name;
    g.body = 1;
    g.X_BG = X_BG;
    g.shape = shape;
    g.properties = props;
    model.AddGeometry(g);
  }
  std::shared_ptr<const RigidContact> Contact(
      RigidContactParameters p = {}) const {
    return std::make_shared<RigidContact>(tree, model, p);
  }
};

ContactProperties Material(double mu, double e) {
  ContactProperties p;
  p.friction = mu;
  p.restitution = e;
  return p;
}

FreeBodyOnPlane Ball(double e, double mu = 0.5) {
  return FreeBodyOnPlane("ball", 1.0, Matrix3<double>::Identity() * 0.004,
                         Shape::Sphere(0.1), Material(mu, e),
                         Material(mu, 0.0));
}

FreeBodyOnPlane Box(double mu) {
  return FreeBodyOnPlane("box", 1.0, Matrix3<double>::Identity() * (0.01 / 6),
                         Shape::Box(0.1, 0.1, 0.1), Material(mu, 0.0),
                         Material(mu, 0.0));
}

VectorX<double> Pose(double x, double z) {
  VectorX<double> q(7);
  q << x, 0, z, 1, 0, 0, 0;
  return q;
}

VectorX<double> Twist(double vx, double vz) {
  VectorX<double> v = VectorX<double>::Zero(6);
  v[3] = vx;
  v[5] = vz;
  return v;
}

const WitnessFunction<double>* FindWitness(const RigidBodySystem<double>& plant,
                                           const std::string& name) {
  for (const auto& w : plant.witness_functions()) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

RigidBodySystemOptions WithContact(std::shared_ptr<const RigidContact> rc,
                                   int capacity = 0) {
  RigidBodySystemOptions o;
  o.rigid_contact = std::move(rc);
  o.contact_force_output_capacity = capacity;
  return o;
}

// A ball (e = 0.8) dropped from 1 m: after each impact the apex height
// z + vz^2 / (2 g) (constant in flight) is e^2 times the one before, and
// energy never grows. The impacts are localized by the witness
// "rigid_contact_impact"; once they are slower than impact_velocity the
// resting contact holds the ball (the end of the Zeno cascade, before
// 9 t1 = 4.06 s).
TEST(RigidContact, BouncingBallApexHeightsFollowRestitution) {
  const double e = 0.8, r = 0.1;
  FreeBodyOnPlane scene = Ball(e);
  RigidBodySystem<double> plant(scene.tree, ActuatorList{}, {}, {},
                                WithContact(scene.Contact()));
  Simulator<double> sim(plant);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), Pose(0, r + 1.0),
                                  Twist(0, 0));
  // RK4 integrates the parabolic flights exactly; the impacts are
  // localized to 1e-12 s.
  sim.reset_integrator<RK4>(5e-3);
  std::vector<double> apex{1.0};
  for (int k = 1; k <= 1000; ++k) {
    sim.AdvanceTo(5e-3 * k);
    const auto x = sim.get_context().get_continuous_state_vector();
    const double h = x[2] - r + x[7 + 5] * x[7 + 5] / (2 * kG);
    // Bounces above 0.1 mm (ten times the contact tolerance, below which
    // the Baumgarte terms of the touching contact do work of order
    // m g contact_tolerance).
    if (h > 1e-4 && std::abs(h - apex.back()) > 1e-9 * apex.back()) {
      EXPECT_LT(h, apex.back()) << "energy grew at t = " << 5e-3 * k;
      apex.push_back(h);
    }
  }
  ASSERT_GE(apex.size(), 6u);
  for (int k = 1; k <= 5; ++k) {
    EXPECT_NEAR(apex[k] / apex[k - 1], e * e, 1e-6) << "bounce " << k;
  }
  const auto x = sim.get_context().get_continuous_state_vector();
  EXPECT_NEAR(x[2], r, 1e-5);  // at rest on the plane at t = 5 s
  EXPECT_LT(x.tail<6>().norm(), 1e-6);
}

// A box put on the plane stays put (sticking friction, no drift), and the
// contact-force output carries m g in four corner records.
TEST(RigidContact, BoxRestingOnPlaneStaysPut) {
  FreeBodyOnPlane scene = Box(0.5);
  RigidBodySystem<double> plant(scene.tree, ActuatorList{}, {}, {},
                                WithContact(scene.Contact(), 8));
  Simulator<double> sim(plant);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), Pose(0.3, 0.05),
                                  Twist(0, 0));
  sim.reset_integrator<RK4>(2e-3);
  sim.AdvanceTo(0.2);
  const auto x = sim.get_context().get_continuous_state_vector();
  EXPECT_LT((x.head<7>() - Pose(0.3, 0.05)).norm(), 1e-9);
  EXPECT_LT(x.tail<6>().norm(), 1e-9);
  const VectorX<double> y =
      plant.get_output_port(0).Eval(sim.get_context());  // contact_forces
  ASSERT_EQ(y.size(), 1 + 8 * kContactRecordSize);
  EXPECT_EQ(y[0], 4);
  Vector3<double> total = Vector3<double>::Zero();
  for (int k = 0; k < 4; ++k) {
    const double* rec = y.data() + 1 + kContactRecordSize * k;
    EXPECT_NEAR(rec[2], 0.0, 1e-9);  // corner on the plane
    EXPECT_NEAR(std::abs(rec[0] - 0.3), 0.05, 1e-9);
    EXPECT_EQ(rec[5], 1.0);  // normal +z (ground to box)
    total += Vector3<double>(rec[6], rec[7], rec[8]);
  }
  EXPECT_LT((total - Vector3<double>(0, 0, kG)).norm(), 1e-8);
  EXPECT_EQ(y.tail(4 * kContactRecordSize).norm(), 0.0);
}

// Sliding, Coulomb friction is exactly mu f_n against the motion: the box
// decelerates at mu g (closed form), then the stick witness stops it at
// x = v0^2 / (2 mu g). An error-controlled rule: the stop is a
// discontinuity of the vector field, and a fixed-step RK4 step across it
// can end where it began (its stages' friction cancelling).
TEST(RigidContact, SlidingBoxDeceleratesAtMuGAndSticks) {
  const double mu = 0.5, v0 = 2.0;
  FreeBodyOnPlane scene = Box(mu);
  RigidBodySystem<double> plant(scene.tree, ActuatorList{}, {}, {},
                                WithContact(scene.Contact()));
  Simulator<double> sim(plant);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), Pose(0, 0.05),
                                  Twist(v0, 0));
  IntegratorSettings settings;
  settings.rtol = settings.atol = 1e-8;
  sim.reset_integrator("dopri5", settings);
  sim.AdvanceTo(0.1);
  const double v1 = sim.get_context().get_continuous_state_vector()[7 + 3];
  sim.AdvanceTo(0.3);
  const double v2 = sim.get_context().get_continuous_state_vector()[7 + 3];
  EXPECT_NEAR((v1 - v2) / 0.2, mu * kG, 1e-9 * mu * kG);
  EXPECT_NEAR(v1, v0 - mu * kG * 0.1, 1e-9);
  sim.AdvanceTo(0.8);
  const auto x = sim.get_context().get_continuous_state_vector();
  EXPECT_LT(x.tail<6>().norm(), 1e-7);
  EXPECT_NEAR(x[0], v0 * v0 / (2 * mu * kG), 1e-5);
  EXPECT_NEAR(x[2], 0.05, 1e-9);
}

// The Painlevé rod: a rod (length 1, mass 1) at 45 degrees with its lower
// end on the plane, sliding away from its upper end with mu = 2. The tip's
// normal acceleration is -g + f_n / m (1 + 3 c^2 - 3 mu s c) = -g - 0.5
// f_n / m: no f_n >= 0 keeps it out of the plane, Lemke ends on a ray, and
// the plant names the contact. Sliding the other way (1 + 1.5 + 3 > 0) it
// has a solution.
TEST(RigidContact, PainleveRodThrowsNamingTheContact) {
  const double l = 0.5, m = 1.0, s = std::sqrt(0.5);
  Matrix3<double> I = Matrix3<double>::Zero();
  I(0, 0) = 1e-4;
  I(1, 1) = I(2, 2) = m * (2 * l) * (2 * l) / 12;
  RigidTransform<double> X_BG;
  X_BG.p = Vector3<double>(-l, 0, 0);  // a small sphere at the lower end
  FreeBodyOnPlane scene("rod", m, I, Shape::Sphere(1e-3), Material(2.0, 0),
                        Material(2.0, 0), X_BG, "tip");
  RigidBodySystem<double> plant(scene.tree, ActuatorList{}, {}, {},
                                WithContact(scene.Contact()));
  auto context = plant.CreateDefaultContext();
  // Rotated by -45 degrees about y: body +x points up and to the right.
  VectorX<double> q(7);
  q << 0, 0, l * s + 1e-3, std::cos(-std::numbers::pi / 8), 0,
      std::sin(-std::numbers::pi / 8), 0;
  VectorX<double> xdot(13);
  for (double vx : {-1.0, 1.0}) {
    // World velocity (vx, 0, 0) in the body frame.
    const Matrix3<double> R =
        Eigen::Quaterniond(q[3], q[4], q[5], q[6]).toRotationMatrix();
    VectorX<double> v = VectorX<double>::Zero(6);
    v.tail<3>() = R.transpose() * Vector3<double>(vx, 0, 0);
    plant.SetPositionsAndVelocities(context.get(), q, v);
    if (vx > 0) {
      plant.CalcTimeDerivatives(*context, &xdot);
      EXPECT_TRUE(xdot.allFinite());
      continue;
    }
    try {
      plant.CalcTimeDerivatives(*context, &xdot);
      ADD_FAILURE() << "the Painlevé rod did not throw";
    } catch (const std::runtime_error& err) {
      const std::string what = err.what();
      EXPECT_NE(what.find("Painlevé"), std::string::npos) << what;
      EXPECT_NE(what.find("geometry 'ground' (body 'world')"),
                std::string::npos)
          << what;
      EXPECT_NE(what.find("geometry 'tip' (body 'rod')"), std::string::npos)
          << what;
    }
  }
}

// A ball on the plane leaves it: thrown upward it follows the free flight;
// pulled up by 2 m g it lifts off at once and rises at g, with 0.5 m g it
// stays, pressing with 0.5 m g. The lift-off witness f_n - m_eff a_n is
// positive while pressing and negative once pulled off.
TEST(RigidContact, LiftOff) {
  const double r = 0.1;
  FreeBodyOnPlane scene = Ball(0.0);
  {
    RigidBodySystem<double> plant(scene.tree, ActuatorList{}, {}, {},
                                  WithContact(scene.Contact()));
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(), Pose(0, r),
                                    Twist(0, 1.0));
    sim.reset_integrator<RK4>(1e-3);
    sim.AdvanceTo(0.1);
    EXPECT_NEAR(sim.get_context().get_continuous_state_vector()[2],
                r + 0.1 - 0.5 * kG * 0.01, 1e-12);
  }
  auto push = std::make_shared<SpatialForceActuator<double>>(
      scene.tree, "ball", Vector3<double>::Zero());
  RigidBodySystem<double> plant(scene.tree, ActuatorList{push}, {}, {},
                                WithContact(scene.Contact(), 2));
  const WitnessFunction<double>* liftoff =
      FindWitness(plant, "rigid_contact_liftoff");
  ASSERT_NE(liftoff, nullptr);
  for (double factor : {0.5, 2.0}) {
    Simulator<double> sim(plant);
    Context<double>& c = sim.get_mutable_context();
    plant.SetPositionsAndVelocities(&c, Pose(0, r), Twist(0, 0));
    Vector6<double> wrench = Vector6<double>::Zero();
    wrench[5] = factor * kG;
    plant.get_input_port(0).FixValue(&c, wrench);
    const double w0 = liftoff->calc(c);
    const VectorX<double> y = plant.get_output_port(0).Eval(c);
    sim.reset_integrator<RK4>(1e-3);
    sim.AdvanceTo(0.2);
    const double z = sim.get_context().get_continuous_state_vector()[2];
    if (factor < 1) {
      EXPECT_GT(w0, 0);
      EXPECT_EQ(y[0], 1);
      EXPECT_NEAR(y[1 + 8], 0.5 * kG, 1e-9);
      EXPECT_NEAR(z, r, 1e-9);
    } else {
      EXPECT_LT(w0, 0);
      EXPECT_EQ(y[0], 0);
      EXPECT_NEAR(z, r + 0.5 * kG * 0.04, 1e-9);
    }
  }
}

// The contact-force output also reports CompliantContact forces: a box at
// its static penetration carries m g over four corners.
TEST(RigidContact, ContactForceOutputOfCompliantContact) {
  FreeBodyOnPlane scene("box", 1.0, Matrix3<double>::Identity() * (0.01 / 6),
                        Shape::Box(0.1, 0.1, 0.1), ContactProperties{},
                        ContactProperties{});
  auto contact = std::make_shared<CompliantContact>(scene.tree, scene.model);
  RigidBodySystemOptions o;
  o.contact_force_output_capacity = 3;
  RigidBodySystem<double> plant(scene.tree, ActuatorList{contact}, {}, {}, o);
  auto c = plant.CreateDefaultContext();
  const double k = 1e6 / 2, x = kG / (4 * k);
  plant.SetPositionsAndVelocities(c.get(), Pose(0, 0.05 - x), Twist(0, 0));
  const VectorX<double> y = plant.get_output_port(0).Eval(*c);
  EXPECT_EQ(y[0], 4);  // four corners, three records written
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(y[1 + kContactRecordSize * i + 8], kG / 4, 1e-9);
    EXPECT_NEAR(y[1 + kContactRecordSize * i + 11], -x, 1e-12);
  }
}

// Derivatives of a resting box on rigid contact do not allocate once the
// workspaces have grown.
TEST(RigidContact, DerivativesDoNotAllocate) {
  FreeBodyOnPlane scene = Box(0.5);
  RigidBodySystem<double> plant(scene.tree, ActuatorList{}, {}, {},
                                WithContact(scene.Contact()));
  auto c = plant.CreateDefaultContext();
  plant.SetPositionsAndVelocities(c.get(), Pose(0, 0.05), Twist(0.5, 0));
  VectorX<double> xdot(13);
  plant.CalcTimeDerivatives(*c, &xdot);
  plant.SetPositionsAndVelocities(c.get(), Pose(0, 0.05), Twist(0, 0));
  plant.CalcTimeDerivatives(*c, &xdot);
  test::ScopedAllocationCounter counter;
  for (double vx : {0.5, 0.0, 0.3}) {
    plant.SetPositionsAndVelocities(c.get(), Pose(0, 0.05), Twist(vx, 0));
    plant.CalcTimeDerivatives(*c, &xdot);
  }
  EXPECT_EQ(counter.count(), 0);
  EXPECT_NEAR(xdot[7 + 3], -0.5 * kG, 1e-9);
}

// Stick to slip: a box (mu = 0.5) pushed sideways at its center by 0.3 m g
// stays stuck; by 0.8 m g it breaks loose at once and accelerates at
// (0.8 - 0.5) g. The slip witness (mu f_n - |f_t|) - m_eff lambda is positive
// while the push is inside the friction cone and negative beyond it.
TEST(RigidContact, PushedBoxSticksOrSlips) {
  const double mu = 0.5;
  FreeBodyOnPlane scene = Box(mu);
  auto push = std::make_shared<SpatialForceActuator<double>>(
      scene.tree, "box", Vector3<double>::Zero());
  RigidBodySystem<double> plant(scene.tree, ActuatorList{push}, {}, {},
                                WithContact(scene.Contact()));
  const WitnessFunction<double>* slip =
      FindWitness(plant, "rigid_contact_slip");
  ASSERT_NE(slip, nullptr);
  for (double factor : {0.3, 0.8}) {
    Simulator<double> sim(plant);
    Context<double>& c = sim.get_mutable_context();
    plant.SetPositionsAndVelocities(&c, Pose(0, 0.05), Twist(0, 0));
    Vector6<double> wrench = Vector6<double>::Zero();
    wrench[3] = factor * kG;
    plant.get_input_port(0).FixValue(&c, wrench);
    const double w0 = slip->calc(c);
    IntegratorSettings settings;
    settings.rtol = settings.atol = 1e-8;
    sim.reset_integrator("dopri5", settings);
    sim.AdvanceTo(0.2);
    const double x = sim.get_context().get_continuous_state_vector()[0];
    if (factor < mu) {
      EXPECT_GT(w0, 0);
      EXPECT_NEAR(x, 0, 1e-9);
    } else {
      EXPECT_LT(w0, 0);
      EXPECT_NEAR(x, 0.5 * (factor - mu) * kG * 0.04, 1e-6);
    }
  }
}

// Contact rows together with a joint-limit row in one LCP: a box on an x
// slider (upper limit 0.1 m) and a z slider slides on the plane into the
// limit at 0.78 m/s, which stops it while the corners keep carrying m g.
// The limit's impact law (a plastic impulse, solved in one LCP with the
// touching corners' rows) stops it at the limit; without it the
// stabilization (alpha = beta = 100 1/s) pushed the box back out with a
// few cm/s and friction stopped it about 1 mm inside the range.
TEST(RigidContact, SlidingIntoAJointLimit) {
  RigidBodyTree<double> tree("slider");
  Joint<double> j;
  j.type = JointType::kPrismatic;
  j.name = "x";
  j.axis = Vector3<double>::UnitX();
  j.position_upper = 0.1;
  const SpatialInertia<double> none = SpatialInertia<double>::FromCom(
      1e-3, Vector3<double>::Zero(), Matrix3<double>::Identity() * 1e-6);
  const int carriage = tree.AddBody("carriage", 0, j, none);
  j.name = "z";
  j.axis = Vector3<double>::UnitZ();
  j.position_upper = std::numeric_limits<double>::infinity();
  tree.AddBody("box", carriage, j,
               SpatialInertia<double>::FromCom(
                   1.0, Vector3<double>::Zero(),
                   Matrix3<double>::Identity() * (0.01 / 6)));
  GeometryModel model(tree.num_bodies());
  Geometry g;
  g.name = "ground";
  g.shape = Shape::HalfSpace();
  g.properties = Material(0.2, 0);
  model.AddGeometry(g);
  g.name = "box";
  g.body = 2;
  g.shape = Shape::Box(0.1, 0.1, 0.1);
  model.AddGeometry(g);
  RigidBodySystem<double> plant(
      tree, ActuatorList{}, {}, {},
      WithContact(std::make_shared<RigidContact>(tree, model), 4));
  ASSERT_EQ(plant.num_limited_joints(), 1);
  Simulator<double> sim(plant);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(),
                                  Eigen::Vector2d(0, 0.05),
                                  Eigen::Vector2d(1.0, 0));
  IntegratorSettings settings;
  settings.rtol = settings.atol = 1e-8;
  sim.reset_integrator("dopri5", settings);
  sim.AdvanceTo(0.5);
  const auto x = sim.get_context().get_continuous_state_vector();
  EXPECT_NEAR(x[0], 0.1, 1e-6);  // sliding alone would reach 0.25 m
  EXPECT_NEAR(x[1], 0.05, 1e-9);
  EXPECT_LT(x.tail<2>().norm(), 1e-6);
  const VectorX<double> y = plant.get_output_port(0).Eval(sim.get_context());
  double fz = 0;
  for (int k = 0; k < static_cast<int>(y[0]); ++k) {
    fz += y[1 + kContactRecordSize * k + 8];
  }
  EXPECT_NEAR(fz, kG, 1e-6);  // the carriage hangs on its joint
}

// A tumbling box (e = 0.9, mu = 0.8) dropped on a corner: several
// frictional impacts on corners, edges and faces. Total energy never grows
// (the impact law's guard: with friction and restitution together Newton's
// law alone can add energy).
TEST(RigidContact, TumblingBoxImpactsNeverAddEnergy) {
  FreeBodyOnPlane scene("box", 1.0, Matrix3<double>::Identity() * (0.01 / 6),
                        Shape::Box(0.1, 0.1, 0.1), Material(0.8, 0.9),
                        Material(0.8, 0.0));
  RigidBodySystem<double> plant(scene.tree, ActuatorList{}, {}, {},
                                WithContact(scene.Contact()));
  Simulator<double> sim(plant);
  VectorX<double> q = Pose(0, 0.3);
  q.tail<4>() = RollPitchYawToQuaternion(Vector3<double>(0.5, 0.7, 0.2));
  VectorX<double> v(6);
  v << 3, -5, 2, 1.0, 0, 0;
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q, v);
  sim.reset_integrator<RK4>(1e-3);
  KinematicsCache<double> cache(scene.tree);
  auto energy = [&] {
    const auto x = sim.get_context().get_continuous_state_vector();
    ForwardKinematics(scene.tree, &cache, VectorX<double>(x.head(7)),
                      VectorX<double>(x.tail(6)));
    return KineticEnergy(scene.tree, cache) +
           PotentialEnergy(scene.tree, cache);
  };
  double last = energy();
  const double first = last;
  const int impacts_before = sim.get_statistics().unrestricted_updates;
  for (int k = 1; k <= 600; ++k) {
    sim.AdvanceTo(1e-3 * k);
    const double e = energy();
    EXPECT_LE(e, last + 1e-9) << "t = " << 1e-3 * k;
    last = e;
  }
  EXPECT_GE(sim.get_statistics().unrestricted_updates - impacts_before, 4);
  EXPECT_LT(last, first - 0.1);  // the impacts dissipated
}

// Contact rows together with bilateral rows (eliminated by their Schur
// complement in the same LCP): two balls on the plane, a point 0.25 m from
// the first ball's center pinned to the second's center. At rest each ball
// carries its own weight, and nothing moves.
TEST(RigidContact, WithBilateralConstraintRestsAndSharesTheLoad) {
  const double r = 0.1;
  RigidBodyTree<double> tree("dumbbell");
  Joint<double> j;
  j.type = JointType::kFloating;
  for (const char* name : {"left", "right"}) {
    j.name = std::string(name) + "_floating";
    tree.AddBody(
        name, 0, j,
        SpatialInertia<double>::FromCom(1.0, Vector3<double>::Zero(),
                                        Matrix3<double>::Identity() * 0.004));
  }
  GeometryModel model(tree.num_bodies());
  Geometry g;
  g.name = "ground";
  g.shape = Shape::HalfSpace();
  model.AddGeometry(g);
  for (int b : {1, 2}) {
    g.name = b == 1 ? "left_ball" : "right_ball";
    g.body = b;
    g.shape = Shape::Sphere(r);
    model.AddGeometry(g);
  }
  auto pin = std::make_shared<PointToPointConstraint<double>>(
      tree, "left", Vector3<double>(0.25, 0, 0), "right",
      Vector3<double>::Zero());
  RigidBodySystem<double> plant(
      tree, ActuatorList{}, {}, {pin},
      WithContact(std::make_shared<RigidContact>(tree, model), 4));
  Simulator<double> sim(plant);
  VectorX<double> q(14);
  q << Pose(0, r), Pose(0.25, r);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q,
                                  VectorX<double>::Zero(12));
  const VectorX<double> y = plant.get_output_port(0).Eval(sim.get_context());
  ASSERT_EQ(y[0], 2);
  for (int k = 0; k < 2; ++k) {
    const double* rec = y.data() + 1 + kContactRecordSize * k;
    EXPECT_NEAR(rec[8], kG, 1e-8) << "ball " << k;
  }
  sim.reset_integrator<RK4>(2e-3);
  sim.AdvanceTo(0.2);
  const auto x = sim.get_context().get_continuous_state_vector();
  EXPECT_LT((x.head<14>() - q).norm(), 1e-9);
  EXPECT_LT(x.tail<12>().norm(), 1e-9);
}

// Bad input names the culprit.
TEST(RigidContact, BadInputNamesTheCulprit) {
  FreeBodyOnPlane scene = Ball(0.5);
  auto expect_throw = [](auto make, const std::string& needle) {
    try {
      make();
      ADD_FAILURE() << "no throw; expected a message with " << needle;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
          << e.what();
    }
  };
  expect_throw([&] { RigidContact(scene.tree, GeometryModel(5), {}, "feet"); },
               "'feet'");
  RigidContactParameters tolerance;
  tolerance.contact_tolerance = -1;
  expect_throw([&] { RigidContact(scene.tree, scene.model, tolerance); },
               "contact_tolerance");
  RigidContactParameters p;
  p.num_friction_directions = 2;
  expect_throw([&] { RigidContact(scene.tree, scene.model, p); },
               "num_friction_directions");
  RigidBodySystemOptions o;
  o.rigid_contact = scene.Contact();
  const RigidBodyTree<AutoDiffXd> tree_ad = CastTree<AutoDiffXd>(scene.tree);
  expect_throw([&] { RigidBodySystem<AutoDiffXd>(tree_ad, {}, {}, {}, o); },
               "T = double");
  FreeBodyOnPlane other = Box(0.5);
  Joint<double> hinge;
  hinge.name = "hinge";
  hinge.type = JointType::kRevolute;
  hinge.axis = Vector3<double>::UnitZ();
  other.tree.AddBody(
      "extra", 1, hinge,
      SpatialInertia<double>::FromCom(1.0, Vector3<double>::Zero(),
                                      Matrix3<double>::Identity()));
  expect_throw(
      [&] {
        RigidBodySystem<double>(other.tree, ActuatorList{}, {}, {},
                                WithContact(scene.Contact()));
      },
      "rigid contact 'rigid_contact'");
}

// Floating body poses along a screw motion: constant body twist (w, v)
// (body frame, vdot = 0) from (p0, R0): X(t) = X0 exp(t [w; v]^).
VectorX<double> ScrewPose(const Vector3<double>& p0, const Matrix3<double>& R0,
                          const Vector3<double>& w, const Vector3<double>& v,
                          double t) {
  const double s = w.norm(), th = s * t;
  const Matrix3<double> W = Skew(w);
  const Matrix3<double> R = R0 * AxisAngleToRotationMatrix<double>(w / s, th);
  const Matrix3<double> A = Matrix3<double>::Identity() * t +
                            (1 - std::cos(th)) / (s * s) * W +
                            (th - std::sin(th)) / (s * s * s) * W * W;
  VectorX<double> q(7);
  q.head<3>() = p0 + R0 * (A * v);
  q.tail<4>() = RotationMatrixToQuaternion(R);
  return q;
}

struct ScrewBody {
  Shape shape;
  Vector3<double> p0;
  Matrix3<double> R0;
  Vector3<double> w, v;  // body twist
};

// CalcContactBias against finite differences: along a motion with vdot = 0,
// phi'' = n . Jdot_v + ndot_v_r and the relative velocity of the material
// points at the (moving) contact points has the rate Jdot_v. Pairs: sphere,
// capsule and box corner on the ground half-space, sphere on sphere, sphere
// on a rotating box's face, all with spin about a tilted axis (the terms
// the material-point Jdot v misses are r |w_t|^2 ~ 1 m/s^2 here).
TEST(RigidContact, ContactBiasIsTheSecondDerivativeAtTheContactPoint) {
  const Matrix3<double> tilt =
      RollPitchYawToRotationMatrix<double>(Vector3<double>(0.3, -0.5, 0.7));
  const Matrix3<double> I3 = Matrix3<double>::Identity();
  const Vector3<double> w1(2, -3, 1.5), v1(0.3, 0.2, -0.1);
  const Vector3<double> w2(-1, 0.5, 2.5), v2(-0.2, 0.1, 0.4);
  struct Case {
    const char* name;
    std::vector<ScrewBody> bodies;
  };
  const std::vector<Case> cases = {
      {"sphere/ground", {{Shape::Sphere(0.1), {0, 0, 0.1}, tilt, w1, v1}}},
      {"capsule/ground",
       {{Shape::Capsule(0.05, 0.3), {0, 0, 0.2}, tilt, w1, v1}}},
      {"box/ground", {{Shape::Box(0.2, 0.3, 0.1), {0, 0, 0.2}, tilt, w1, v1}}},
      {"sphere/sphere",
       {{Shape::Sphere(0.1), {0, 0, 1.0}, tilt, w1, v1},
        {Shape::Sphere(0.15), {0.1, 0.05, 1.24}, I3, w2, v2}}},
      {"box face/sphere",
       {{Shape::Box(1.0, 1.0, 0.2),
         {0, 0, 1.0},
         I3,
         Vector3<double>(0.5, -0.4, 2),
         v1},
        {Shape::Sphere(0.1), {0.1, 0.05, 1.2}, tilt, w2, v2}}}};
  for (const Case& cs : cases) {
    SCOPED_TRACE(cs.name);
    RigidBodyTree<double> tree("scene");
    const int nb = static_cast<int>(cs.bodies.size());
    for (int i = 0; i < nb; ++i) {
      Joint<double> j;
      j.name = "floating" + std::to_string(i);
      j.type = JointType::kFloating;
      tree.AddBody("body" + std::to_string(i), 0, j,
                   SpatialInertia<double>::FromCom(1.0, Vector3<double>::Zero(),
                                                   I3 * 0.01));
    }
    GeometryModel model(tree.num_bodies());
    Geometry ground;
    ground.name = "ground";
    ground.shape = Shape::HalfSpace();
    if (nb == 1) model.AddGeometry(ground);
    for (int i = 0; i < nb; ++i) {
      Geometry g;
      g.name = "g" + std::to_string(i);
      g.body = i + 1;
      g.shape = cs.bodies[i].shape;
      model.AddGeometry(g);
    }
    std::vector<int> body_frame;
    for (int b = 0; b < tree.num_bodies(); ++b) {
      body_frame.push_back(tree.FindFrameIndex(tree.body(b).name));
    }
    KinematicsCache<double> cache(tree);
    GeometryWorkspace ws(model);
    MatrixX<double> J(6, tree.num_velocities());
    VectorX<double> v(tree.num_velocities());
    for (int i = 0; i < nb; ++i) {
      v.segment<3>(6 * i) = cs.bodies[i].w;
      v.segment<3>(6 * i + 3) = cs.bodies[i].v;
    }
    // Contacts (phi, v_r, p_WB) at time t, in ComputeContacts order.
    struct Sample {
      Contact c;
      Vector3<double> v_r;
    };
    auto at = [&](double t) {
      VectorX<double> q(tree.num_positions());
      for (int i = 0; i < nb; ++i) {
        const ScrewBody& b = cs.bodies[i];
        q.segment<7>(7 * i) = ScrewPose(b.p0, b.R0, b.w, b.v, t);
      }
      ForwardKinematics(tree, &cache, q, v);
      UpdateGeometryPoses(model, cache.X_WB, &ws);
      std::vector<Sample> out;
      for (const Contact& c : ComputeContacts(model, &ws, 1.0)) {
        out.push_back({c, PointVelocityInWorld(cache, c.body_b, c.p_WB) -
                              PointVelocityInWorld(cache, c.body_a, c.p_WA)});
      }
      return out;
    };
    const double h = 1e-4;
    const std::vector<Sample> minus = at(-h), plus = at(h), now = at(0);
    ASSERT_FALSE(now.empty());
    auto nearest = [](const std::vector<Sample>& s, const Vector3<double>& p) {
      size_t best = 0;
      for (size_t i = 1; i < s.size(); ++i) {
        if ((s[i].c.p_WB - p).norm() < (s[best].c.p_WB - p).norm()) best = i;
      }
      return s[best];
    };
    for (const Sample& s : now) {
      const ContactBias bias =
          CalcContactBias(tree, cache, model, ws, s.c, body_frame);
      const Sample a = nearest(minus, s.c.p_WB), b = nearest(plus, s.c.p_WB);
      const double phi_dd = (a.c.signed_distance - 2 * s.c.signed_distance +
                             b.c.signed_distance) /
                            (h * h);
      const Vector3<double> v_r_dot = (b.v_r - a.v_r) / (2 * h);
      EXPECT_NEAR(s.c.normal.dot(bias.Jdot_v) + bias.ndot_v_r, phi_dd,
                  1e-5 * (1 + std::abs(phi_dd)));
      EXPECT_LT((bias.Jdot_v - v_r_dot).norm(), 1e-5 * (1 + v_r_dot.norm()))
          << bias.Jdot_v.transpose() << " vs " << v_r_dot.transpose();
    }
  }
}

// A contact no motion can move along its normal: a block on two hinges
// about z (not a parent-child pair, so not filtered) overlaps its fixed
// base by 1 cm on the base's top face; every rotation slides the contact
// points in the tangent plane (J_n = 0). It has no authority, so it is left
// out (contact_rows.h, NormalRowHasAuthority) and the block spins freely.
// Before, its unbounded normal force let friction lock the spin, which
// Lemke reported as a Painleve inconsistency at t = 0.
TEST(RigidContact, ContactWithoutNormalAuthorityIsLeftOut) {
  const char* urdf = R"(<robot name="spin"><link name="world"/>
  <link name="base"><inertial><mass value="5"/><inertia ixx="0.1" iyy="0.1"
    izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial><collision><geometry>
    <box size="0.4 0.4 0.1"/></geometry></collision></link>
  <joint name="fix" type="fixed"><parent link="world"/><child link="base"/>
  </joint>
  <link name="mid"><inertial><mass value="0.1"/><inertia ixx="1e-3"
    iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j1" type="continuous"><parent link="base"/><child link="mid"/>
    <axis xyz="0 0 1"/></joint>
  <link name="block"><inertial><mass value="1"/><inertia ixx="0.01"
    iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial><collision>
    <origin xyz="0 0 0.09"/><geometry><box size="0.2 0.2 0.1"/></geometry>
    </collision></link>
  <joint name="j2" type="continuous"><parent link="mid"/>
    <child link="block"/><axis xyz="0 0 1"/></joint>
</robot>)";
  const RigidBodyTree<double> tree = ParseUrdfString(urdf).tree;
  RigidBodySystemOptions o = WithContact(
      std::make_shared<RigidContact>(tree, GeometryModel::FromTree(tree)));
  RigidBodySystem<double> plant(tree, ActuatorList{}, {}, {}, o);
  Simulator<double> sim(plant);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(),
                                  tree.GetZeroConfiguration(),
                                  Eigen::Vector2d(0, 1));
  sim.reset_integrator<RK4>(1e-3);
  sim.AdvanceTo(0.2);
  const auto x = sim.get_context().get_continuous_state_vector();
  // The spin is free: j2 turns at 1 rad/s (j1 carries the reaction of the
  // hinge's inertia only, none here: its joint torque is zero).
  EXPECT_NEAR(x[3], 1.0, 1e-9);
  EXPECT_NEAR(x[1], 0.2, 1e-9);
  EXPECT_NEAR(x[2], 0.0, 1e-9);
}

// Rigid contact keeps a rolling or spinning ball's centre at its radius:
// the normal row is the centre's acceleration (CalcContactBias), not the
// material point's, which carries r |w_t|^2 toward the centre and made the
// ball sink 0.5 mm/s, reset by ~10,000 impacts per second (measured with
// the material-point terms: |z - r| = 5.0e-4 m at 1 s, 9,809, 4,253 and
// 10,096 events in the cases that move). Rolling at 2 m/s, spinning at 20
// rad/s about the vertical, spinning at 20 rad/s about a horizontal axis
// and about a tilted one (slipping, then rolling) for 1 s: |z - r| < 1e-5
// m (1e-11 m measured) and at most one unrestricted update, the slipping
// balls' one stick transition (no impact). The slipping ball ends rolling
// at v = 2 r w0 / 7 (solid sphere, angular momentum about the contact
// point), and the vertical spin is untouched (point contact has no
// torsional friction).
TEST(RigidContact, RollingAndSpinningBallKeepItsHeight) {
  const double r = 0.1;
  struct Case {
    const char* name;
    Vector3<double> w_world, v_world;
  };
  const Case cases[] = {
      {"rolling", {0, 20, 0}, {2, 0, 0}},
      {"spinning about z", {0, 0, 20}, {0, 0, 0}},
      {"spinning about y", {0, 20, 0}, {0, 0, 0}},
      {"spinning about a tilted axis", {3, 12, 15}, {1, 0, 0}}};
  for (const Case& cs : cases) {
    SCOPED_TRACE(cs.name);
    FreeBodyOnPlane scene = Ball(0.0);
    RigidBodySystem<double> plant(scene.tree, ActuatorList{}, {}, {},
                                  WithContact(scene.Contact()));
    Simulator<double> sim(plant);
    VectorX<double> v(6);
    v << cs.w_world, cs.v_world;  // identity orientation: body = world
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(), Pose(0, r), v);
    IntegratorSettings settings;
    settings.rtol = settings.atol = 1e-8;
    sim.reset_integrator("dopri5", settings);
    double worst = 0;
    for (int k = 1; k <= 100; ++k) {
      sim.AdvanceTo(0.01 * k);
      const auto x = sim.get_context().get_continuous_state_vector();
      worst = std::max(worst, std::abs(x[2] - r));
    }
    EXPECT_LT(worst, 1e-5);
    const bool slips = cs.w_world.y() * r != cs.v_world.x();
    EXPECT_LE(sim.get_statistics().unrestricted_updates, slips ? 1 : 0);
    const auto x = sim.get_context().get_continuous_state_vector();
    const Matrix3<double> R =
        Eigen::Quaterniond(x[3], x[4], x[5], x[6]).toRotationMatrix();
    const Vector3<double> w = R * x.segment<3>(7);
    const Vector3<double> v_centre = R * x.segment<3>(10);
    EXPECT_NEAR(w.z(), cs.w_world.z(), 1e-6);
    if (cs.v_world.x() == 0 && cs.w_world.z() == 0) {
      EXPECT_NEAR(v_centre.x(), 2 * r * cs.w_world.y() / 7, 1e-6);
    }
  }
}

}  // namespace
}  // namespace tern
