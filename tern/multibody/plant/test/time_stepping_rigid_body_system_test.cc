// Tests of TimeSteppingRigidBodySystem (issue 15): contact, friction,
// rolling, energy, bad input, islands. The stack of five boxes and the
// robots have binaries of their own (time_stepping_{stack,robots}_test.cc).
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "tern/multibody/plant/test/plant_test_models.h"
#include "tern/multibody/plant/test/time_stepping_test_scene.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/test_support/allocation_counter.h"

namespace tern {
namespace {

using Options = TimeSteppingOptions;
using test::Pos;
using test::Scene;
using test::SetPose;
using test::Vel;
using test::WithSolver;
using test::WorldVelocity;

TEST(TimeStepping, SphereFallsAndRestsOnPlane) {
  Scene scene;
  const int b = scene.AddSphere(0.05);
  TimeSteppingRigidBodySystem plant(scene.tree, scene.Model(), 1e-3);
  Simulator<double> sim(plant);
  VectorX<double> q = scene.tree.GetZeroConfiguration();
  q[Pos(b) + 2] = 0.5;
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q,
                                  VectorX<double>::Zero(6));
  sim.AdvanceTo(1.0);
  const VectorX<double>& x = plant.GetState(sim.get_context());
  EXPECT_NEAR(x[Pos(b) + 2], 0.05, 1e-6);
  EXPECT_NEAR(x.tail(6).norm(), 0, 1e-6);
  EXPECT_EQ(plant.GetStepStats(sim.get_context()).num_contacts, 1);
}

// Sensors on the time-stepping plant: a FullStateSensor reads the state and
// an IMU on a sphere resting on the plane reads +g up and zero rate (the
// acceleration is the step's (vn - v) / h).
TEST(TimeStepping, SensorsReadTheStepsState) {
  Scene scene;
  const int b = scene.AddSphere(0.05);
  const RigidBodyTree<double>& tree = scene.tree;
  auto full = std::make_shared<FullStateSensor<double>>(tree);
  auto imu = std::make_shared<Imu<double>>(tree, tree.body(b).name,
                                           RigidTransform<double>());
  TimeSteppingRigidBodySystem plant(
      tree, scene.Model(), 1e-3, {},
      std::vector<std::shared_ptr<const Sensor<double>>>{full, imu});
  Simulator<double> sim(plant);
  VectorX<double> q = tree.GetZeroConfiguration();
  q[Pos(b) + 2] = 0.2;
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q,
                                  VectorX<double>::Zero(6));
  sim.AdvanceTo(1.0);
  const Context<double>& c = sim.get_context();
  const VectorX<double> x = plant.GetState(c);
  EXPECT_EQ(plant.get_sensor_output_port("full_state").Eval(c), x);
  const VectorX<double> reading = plant.get_sensor_output_port("imu").Eval(c);
  ASSERT_EQ(reading.size(), 6);
  EXPECT_NEAR(reading[0], 0, 1e-6);
  EXPECT_NEAR(reading[1], 0, 1e-6);
  EXPECT_NEAR(reading[2], 9.81, 1e-6);
  EXPECT_NEAR(reading.tail<3>().norm(), 0, 1e-6);
}

// Issue 15: a box resting on a plane stays put: drift <= 1e-6 m over 10 s
// at h = 1 ms, with either solver (Lemke and PGS).
TEST(TimeStepping, BoxAtRestDoesNotDrift) {
  for (auto solver : {Options::Solver::kLemke, Options::Solver::kPgs}) {
    Scene scene;
    const int b = scene.AddCube(0.1);
    TimeSteppingRigidBodySystem plant(scene.tree, scene.Model(), 1e-3, {}, {},
                                      {}, WithSolver(solver));
    Simulator<double> sim(plant);
    VectorX<double> q = scene.tree.GetZeroConfiguration();
    q[Pos(b) + 2] = 0.05;
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q,
                                    VectorX<double>::Zero(6));
    sim.AdvanceTo(10.0);
    const VectorX<double>& x = plant.GetState(sim.get_context());
    EXPECT_LE((x.segment<3>(Pos(b)) - q.segment<3>(Pos(b))).norm(), 1e-6);
    EXPECT_LE((x.segment<4>(Pos(b) + 3) - q.segment<4>(Pos(b) + 3)).norm(),
              1e-6);
    EXPECT_EQ(plant.GetStepStats(sim.get_context()).num_contacts, 4);
  }
}

// A 0.1 m cube (1 kg) placed on a ground tilted by theta with friction mu,
// at rest, on the time-stepping plant at h = 1 ms with `options`; n is the
// plane's normal and `down` the down-slope direction.
struct BoxOnIncline {
  Scene scene;
  int b{0};
  Vector3<double> n, down;
  std::unique_ptr<TimeSteppingRigidBodySystem> plant;
  std::unique_ptr<Simulator<double>> sim;

  BoxOnIncline(double theta, double mu, const Options& options) {
    scene.incline = theta;
    scene.mu = mu;
    b = scene.AddCube(0.1);
    plant = std::make_unique<TimeSteppingRigidBodySystem>(
        scene.tree, scene.Model(), 1e-3,
        std::vector<TimeSteppingRigidBodySystem::ActuatorPtr>{},
        std::vector<TimeSteppingRigidBodySystem::SensorPtr>{},
        std::vector<TimeSteppingRigidBodySystem::BilateralPtr>{}, options);
    sim = std::make_unique<Simulator<double>>(*plant);
    const Matrix3<double> R =
        Eigen::AngleAxisd(theta, Vector3<double>::UnitY()).toRotationMatrix();
    n = R.col(2);
    down = Vector3<double>(std::cos(theta), 0, -std::sin(theta));
    VectorX<double> q = scene.tree.GetZeroConfiguration();
    SetPose(&q, b, 0.05 * n, R);
    plant->SetPositionsAndVelocities(&sim->get_mutable_context(), q,
                                     VectorX<double>::Zero(6));
  }
  const VectorX<double>& x() const {
    return plant->GetState(sim->get_context());
  }
  // How far the box has moved down the slope (m).
  double Slid() const { return (x().segment<3>(Pos(b)) - 0.05 * n).dot(down); }
};

// Issue 15: a box on an incline sticks when tan(theta) < mu and otherwise
// slides with acceleration g (sin(theta) - mu cos(theta)). The polyhedral
// cone: its k = 4 directions are at 0, 90, 180, 270 degrees from t1, and
// t1 is the down-slope direction (the plant takes t1 from the normal and
// the world x axis, and the slope falls along x), so the friction bound
// along the slope is exactly mu c_n: the answer is exact, not within the
// polygon's cos(pi / k) factor that holds in the worst direction.
TEST(TimeStepping, BoxOnInclineSticksOrSlides) {
  const double g = 9.81, mu = 0.5;
  for (auto solver : {Options::Solver::kLemke, Options::Solver::kPgs}) {
    for (const double theta_deg : {20.0, 35.0}) {
      const double theta = theta_deg * std::numbers::pi / 180;
      BoxOnIncline box(theta, mu, WithSolver(solver));
      const double T = 1.0;
      box.sim->AdvanceTo(T);
      const double v = WorldVelocity(box.x(), 7, box.b).dot(box.down);
      if (std::tan(theta) < mu) {
        EXPECT_LT(std::abs(v), 1e-6) << theta_deg;
        EXPECT_LT(std::abs(box.Slid()), 1e-6) << theta_deg;
      } else {
        const double a = g * (std::sin(theta) - mu * std::cos(theta));
        EXPECT_NEAR(v, a * T, 1e-3 * a * T) << theta_deg;
      }
      // It stays on the plane.
      EXPECT_NEAR((box.x().segment<3>(Pos(box.b))).dot(box.n), 0.05, 1e-5);
    }
  }
}

// A box held by friction on a 20 degree slope with the convex solver:
// unanchored it creeps as the regularization says, about sigma times the
// velocity change of its friction impulse per step, sigma g sin(theta) h =
// 3.4e-6 m/s (measured 3.8e-6: the corners' Delassus estimates include the
// box's rotation); with convex_anchor_sticking (the default) it holds to
// round-off.
TEST(TimeStepping, BoxOnInclineAnchoredDoesNotCreep) {
  const double g = 9.81, theta = 20 * std::numbers::pi / 180;
  auto creep = [&](bool anchor) {
    Options options;
    options.convex_anchor_sticking = anchor;
    BoxOnIncline box(theta, Scene{}.mu, options);
    box.sim->AdvanceTo(0.1);
    const double s0 = box.Slid();
    box.sim->AdvanceTo(1.1);
    return box.Slid() - s0;  // m over 1 s
  };
  const double sigma = Options{}.convex_sigma;
  const double rate = sigma * g * std::sin(theta) * 1e-3;
  const double unanchored = creep(false), anchored = creep(true);
  ASSERT_TRUE(Options{}.convex_anchor_sticking);
  EXPECT_NEAR(unanchored, rate, 0.5 * rate);
  EXPECT_LT(std::abs(anchored), 1e-12) << anchored;
}

// The rotational inertia about its centre of a 1 kg solid cylinder of
// radius r and length L along its z axis.
Matrix3<double> CylinderInertia(double r, double L) {
  Matrix3<double> I = Matrix3<double>::Zero();
  I(0, 0) = I(1, 1) = (3 * r * r + L * L) / 12;
  I(2, 2) = r * r / 2;
  return I;
}

// The slope of the rolling tests (radians), its unit normal and its
// downhill direction (Scene::incline tilts the ground about y).
constexpr double kSlope = 20 * std::numbers::pi / 180;
Vector3<double> SlopeNormal() {
  return {std::sin(kSlope), 0, std::cos(kSlope)};
}
Vector3<double> SlopeDown() { return {std::cos(kSlope), 0, -std::sin(kSlope)}; }

// The state after `T` s of body `shape` (inertia I about its centre, mass
// 1 kg, orientation `quat` w x y z) released on a 20 degree slope (mu 0.5)
// with its centre at `r` from the plane; *b: its body index.
VectorX<double> RolledDownSlope(const Shape& shape, const Matrix3<double>& I,
                                const Eigen::Vector4d& quat, double r, double T,
                                int* b) {
  Scene scene;
  scene.incline = kSlope;
  scene.mu = 0.5;
  *b = scene.AddBody(shape, I, 1.0);
  TimeSteppingRigidBodySystem plant(scene.tree, scene.Model(), 1e-3);
  Simulator<double> sim(plant);
  VectorX<double> q = scene.tree.GetZeroConfiguration();
  q.segment<3>(Pos(*b)) = r * SlopeNormal();
  q.segment<4>(Pos(*b) + 3) = quat;
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q,
                                  VectorX<double>::Zero(6));
  sim.AdvanceTo(T);
  return plant.GetState(sim.get_context());
}

// Issue 15: a sphere rolls down a slope without slipping at (5/7) g
// sin(theta) (tan(theta) < 7 mu / 2).
TEST(TimeStepping, SphereRollsWithoutSlipping) {
  const double g = 9.81, r = 0.05, T = 1.0;
  int b = 0;
  const VectorX<double> x = RolledDownSlope(
      Shape::Sphere(r), Matrix3<double>::Identity() * 0.4 * r * r,
      Eigen::Vector4d(1, 0, 0, 0), r, T, &b);
  const double v = WorldVelocity(x, 7, b).dot(SlopeDown());
  EXPECT_NEAR(v, 5.0 / 7.0 * g * std::sin(kSlope) * T, 2e-3);
  // Rolling: the contact point does not slip, |w| r = v.
  EXPECT_NEAR(test::WorldAngularVelocity(x, 7, b).norm() * r, v, 1e-3);
  EXPECT_NEAR(x.segment<3>(Pos(b)).dot(SlopeNormal()), r, 1e-5);
}

// A cylinder lying on a slope (its axis horizontal) rolls without slipping
// at (2/3) g sin(theta) (tan(theta) < 3 mu): its line contact with the plane
// resists neither rolling nor, at its ends, tipping it over. The humanoid
// of contact_bench has cylinder limbs.
TEST(TimeStepping, CylinderRollsWithoutSlipping) {
  const double g = 9.81, r = 0.045, L = 0.28, T = 1.0;
  const Matrix3<double> I = CylinderInertia(r, L);
  int b = 0;
  // The body's z axis (the cylinder's) along the world's y.
  const VectorX<double> x = RolledDownSlope(
      Shape::Cylinder(r, L), I,
      Eigen::Vector4d(std::sqrt(0.5), -std::sqrt(0.5), 0, 0), r, T, &b);
  const double v = WorldVelocity(x, 7, b).dot(SlopeDown());
  EXPECT_NEAR(v, 2.0 / 3.0 * g * std::sin(kSlope) * T, 2e-3);
  const Vector3<double> w = test::WorldAngularVelocity(x, 7, b);
  EXPECT_NEAR(w.norm() * r, v, 1e-3);
  EXPECT_NEAR(std::abs(w[1]), w.norm(), 1e-6);  // about its own axis only
  EXPECT_NEAR(x.segment<3>(Pos(b)).dot(SlopeNormal()), r, 1e-5);
}

// A cylinder lying across a table's edge (a box fixed to the world) with
// its centre of mass over the table rests, held along its line of contact
// (the box-cylinder kernel's two points: the end over the table and the
// edge), level and still; with the centre past the edge it tips over the
// edge. With one point wandering along the line (the general route) it
// rocked and crept off (issue 28: the humanoid's arms against its torso).
TEST(TimeStepping, CylinderAcrossATableEdgeRestsOrTips) {
  const double r = 0.045, L = 0.28, top = 0.7, edge = 0.5;
  const Matrix3<double> I = CylinderInertia(r, L);
  auto run = [&](double x0) {
    Scene scene;
    const int b = scene.AddBody(Shape::Cylinder(r, L), I, 1.0);
    Geometry table;
    table.name = "table";
    table.body = 0;
    table.shape = Shape::Box(2 * edge, 0.6, 0.4);
    table.X_BG.p = Vector3<double>(0, 0, top - 0.2);
    scene.geometries.push_back(table);
    TimeSteppingRigidBodySystem plant(scene.tree, scene.Model(), 1e-3);
    Simulator<double> sim(plant);
    VectorX<double> q = scene.tree.GetZeroConfiguration();
    q.segment<3>(Pos(b)) = Vector3<double>(x0, 0, top + r);
    // The body's z axis (the cylinder's) along the world's x.
    q.segment<4>(Pos(b) + 3) =
        Eigen::Vector4d(std::sqrt(0.5), 0, std::sqrt(0.5), 0);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q,
                                    VectorX<double>::Zero(6));
    sim.AdvanceTo(1.0);
    return std::make_pair(plant.GetState(sim.get_context()), b);
  };
  {
    const auto [x, b] = run(0.45);  // ends at 0.31 and 0.59
    const Eigen::Quaterniond quat(x[Pos(b) + 3], x[Pos(b) + 4], x[Pos(b) + 5],
                                  x[Pos(b) + 6]);
    const Vector3<double> axis = quat.toRotationMatrix().col(2);
    EXPECT_LT(std::abs(axis.z()), 1e-3) << axis.transpose();
    EXPECT_NEAR(x[Pos(b) + 2], top + r, 1e-4);
    EXPECT_NEAR(x[Pos(b)], 0.45, 1e-4);
    EXPECT_LT(x.tail(6).norm(), 1e-4);
  }
  {
    const auto [x, b] = run(0.55);  // its centre past the edge: it tips
    EXPECT_LT(x[Pos(b) + 2], top - 0.1);
  }
}

// Issue 15: no energy gain: a ball dropped on a plane never bounces higher
// than its drop (here it does not bounce at all: restitution is 0).
TEST(TimeStepping, DroppedBallNeverBouncesHigher) {
  const double r = 0.05, z0 = 0.8;
  Scene scene;
  const int b = scene.AddSphere(r);
  TimeSteppingRigidBodySystem plant(scene.tree, scene.Model(), 1e-3);
  Simulator<double> sim(plant);
  VectorX<double> q = scene.tree.GetZeroConfiguration();
  q[Pos(b) + 2] = z0;
  VectorX<double> v = VectorX<double>::Zero(6);
  v[5] = -1.0;  // thrown down
  v[0] = 3.0;   // spinning about x
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q, v);
  bool touched = false;
  double highest_after = 0;
  for (int k = 1; k <= 2000; ++k) {
    sim.AdvanceTo(k * 1e-3);
    const double z = plant.GetState(sim.get_context())[Pos(b) + 2];
    if (z <= r + 1e-6) touched = true;
    if (touched) highest_after = std::max(highest_after, z);
  }
  ASSERT_TRUE(touched);
  EXPECT_LE(highest_after, r + 1e-6);
  EXPECT_LT(highest_after, z0);
}

// Bad input is reported naming the culprit.
TEST(TimeStepping, BadInput) {
  Scene scene;
  scene.AddSphere(0.05);
  for (const double h : {0.0, -1e-3, std::nan("")}) {
    try {
      TimeSteppingRigidBodySystem plant(scene.tree, scene.Model(), h);
      ADD_FAILURE() << "period " << h << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("period"), std::string::npos);
    }
  }
  // An actuator with continuous state (a motor lag).
  test::FourBar four_bar;
  auto lagged = std::make_shared<TorqueSource<double>>(
      four_bar.tree, std::vector<std::string>{"crank_joint"}, 0.05, "lagged");
  try {
    TimeSteppingRigidBodySystem plant(four_bar.tree,
                                      GeometryModel(four_bar.tree.num_bodies()),
                                      1e-3, {lagged});
    ADD_FAILURE() << "continuous-state actuator accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'lagged'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("continuous"), std::string::npos);
  }
  // A geometry model of another tree.
  EXPECT_THROW(TimeSteppingRigidBodySystem(scene.tree, GeometryModel(7), 1e-3),
               std::invalid_argument);
  Options bad;
  bad.friction_directions = 2;
  EXPECT_THROW(TimeSteppingRigidBodySystem(scene.tree, scene.Model(), 1e-3, {},
                                           {}, {}, bad),
               std::invalid_argument);
}

// A joint jerked within one step (here by a torque; in DRC-Hubo's fingers
// by the hand's impact) gets no limit row from its start velocity: the
// plant sees the solved step carry it past the limit and solves the step
// again with the row (TimeSteppingStepStats::resolves). Without that the
// 1e-4 kg m^2 link ended 0.6 rad past its limit after one 1 ms step.
TEST(TimeStepping, JointJerkedWithinTheStepStopsAtItsLimit) {
  RigidBodyTree<double> tree("jerked");
  tree.set_gravity(Vector3<double>::Zero());
  Joint<double> j;
  j.name = "hinge";
  j.type = JointType::kRevolute;
  j.axis = Vector3<double>::UnitZ();
  j.position_lower = -1.0;
  j.position_upper = 0.1;
  Matrix3<double> I = Matrix3<double>::Identity() * 1e-4;
  tree.AddBody(
      "link", 0, j,
      SpatialInertia<double>::FromCom(0.1, Vector3<double>::Zero(), I));
  Options options;
  options.applied_generalized_force_input = true;
  const double h = 1e-3;
  TimeSteppingRigidBodySystem plant(tree, GeometryModel(tree.num_bodies()), h,
                                    {}, {}, {}, options);
  Simulator<double> sim(plant);
  Context<double>& context = sim.get_mutable_context();
  plant.SetPositionsAndVelocities(&context, VectorX<double>::Constant(1, -0.3),
                                  VectorX<double>::Zero(1));
  // h^2 tau / I = 1 rad in one step, from 0.4 rad below the limit.
  plant.get_input_port("applied_generalized_force")
      .FixValue(&context, VectorX<double>::Constant(1, 100.0));
  sim.AdvanceTo(h);
  const double q = plant.GetState(sim.get_context())[0];
  EXPECT_LE(q, 0.1 + 1e-5);  // the convex solver's near-rigid regularization
  EXPECT_GE(q, 0.1 - 1e-3);
  EXPECT_EQ(plant.GetStepStats(sim.get_context()).resolves, 1);
  EXPECT_TRUE(plant.GetStepStats(sim.get_context()).converged);
}

// A singular constraint set: the four-bar's loop closed twice (the same
// point-to-point constraint given two times: 6 rows of rank 2 in the
// plane) is handled: the regularized equality block shares the impulse,
// the loop stays closed and nothing blows up. With either solver.
TEST(TimeStepping, RedundantLoopClosureIsHandled) {
  for (auto solver : {Options::Solver::kLemke, Options::Solver::kPgs}) {
    test::FourBar fb;
    auto loop = [&](const char* name) {
      return std::make_shared<PointToPointConstraint<double>>(
          fb.tree, "coupler", Vector3<double>(fb.b, 0, 0), "rocker",
          Vector3<double>(fb.c, 0, 0), BaumgarteGains{}, name);
    };
    TimeSteppingRigidBodySystem plant(
        fb.tree, GeometryModel(fb.tree.num_bodies()), 1e-3, {}, {},
        {loop("loop_a"), loop("loop_b")}, WithSolver(solver));
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(),
                                    fb.ClosedConfiguration(0.3),
                                    VectorX<double>::Zero(3));
    sim.AdvanceTo(2.0);
    const VectorX<double>& x = plant.GetState(sim.get_context());
    ASSERT_TRUE(x.allFinite());
    KinematicsCache<double> cache(fb.tree);
    ForwardKinematics(fb.tree, &cache, VectorX<double>(x.head(3)));
    const Vector3<double> p = cache.X_WB[2] * Vector3<double>(fb.b, 0, 0);
    const Vector3<double> r = cache.X_WB[3] * Vector3<double>(fb.c, 0, 0);
    EXPECT_LT((p - r).norm(), 1e-3);
    // It moved (gravity drives the linkage), so the constraint did work.
    EXPECT_GT((x.head(3) - fb.ClosedConfiguration(0.3)).norm(), 1e-2);
  }
}

// Islands, warm start, sleeping, and no allocation once warm.
TEST(TimeStepping, IslandsWarmStartSleepingNoAllocation) {
  Scene scene;
  const int a = scene.AddSphere(0.05);
  const int b = scene.AddCube(0.1);
  Options options;
  options.sleeping = true;
  options.sleep_time = 0.2;
  TimeSteppingRigidBodySystem plant(scene.tree, scene.Model(), 1e-3, {}, {}, {},
                                    options);
  Simulator<double> sim(plant);
  VectorX<double> q = scene.tree.GetZeroConfiguration();
  q.segment<3>(Pos(a)) = Vector3<double>(0, 0, 0.06);
  q.segment<3>(Pos(b)) = Vector3<double>(1, 0, 0.06);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q,
                                  VectorX<double>::Zero(12));
  sim.AdvanceTo(0.1);
  const TimeSteppingStepStats& st = plant.GetStepStats(sim.get_context());
  EXPECT_EQ(st.num_islands, 2);  // the sphere and the box apart
  EXPECT_EQ(st.num_contacts, 5);
  EXPECT_EQ(st.warm_started, 5);
  EXPECT_EQ(st.num_sleeping_islands, 0);
  {
    test::ScopedAllocationCounter counter;
    sim.AdvanceTo(0.2);
    EXPECT_EQ(counter.count(), 0);
  }
  sim.AdvanceTo(1.0);
  EXPECT_EQ(plant.GetStepStats(sim.get_context()).num_sleeping_islands, 2);
  const VectorX<double> x = plant.GetState(sim.get_context());
  sim.AdvanceTo(1.5);
  EXPECT_EQ(plant.GetState(sim.get_context()), x);  // frozen
  EXPECT_NEAR(x[Pos(a) + 2], 0.05, 1e-5);
  EXPECT_NEAR(x[Pos(b) + 2], 0.05, 1e-5);
}

}  // namespace
}  // namespace tern
