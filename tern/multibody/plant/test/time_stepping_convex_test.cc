// TimeSteppingRigidBodySystem with its default convex (SAP) solver, each
// case against a closed form or an invariant: isotropic sliding friction,
// a 1e6 mass ratio, implicit joint damping, the convergence report and the
// errors of an island that does not converge.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>

#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/plant/test/time_stepping_test_scene.h"
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/systems/analysis/simulator.h"

namespace tern {
namespace {

using test::Pos;
using test::Vel;
constexpr double kPi = std::numbers::pi;

// A 1 kg cube of 10 cm on the plane (mu = 0.3) pushed at its center by a
// horizontal force F = 0.6 m g along the angle theta: it slides with |a| =
// F / m - mu g along theta within 1%, the same at every angle (a polyhedral
// cone of 4 directions gives 0.3 g - 0.3 g cos(pi / 4) / ... : 10% off at
// 45 degrees, issue 28). pile_path: the island goes to the pile path
// (convex_max_free_body_dofs = 0: PGS with the round cone, as a pile of
// more than 20 free bodies does by default).
void PushBoxAlongEveryDirection(bool pile_path) {
  const double g = 9.81, m = 1.0, mu = 0.3, F = 0.6 * m * g;
  for (double deg = 0; deg < 90; deg += 22.5) {
    const double th = deg * kPi / 180;
    test::Scene scene;
    scene.mu = mu;
    scene.AddCube(0.1, m);
    TimeSteppingOptions o;
    o.applied_generalized_force_input = true;
    if (pile_path) o.convex_max_free_body_dofs = 0;
    TimeSteppingRigidBodySystem plant(scene.tree, scene.Model(), 1e-3, {}, {},
                                      {}, o);
    Simulator<double> sim(plant);
    VectorX<double> q = scene.tree.GetZeroConfiguration();
    q[2] = 0.05;
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q,
                                    VectorX<double>::Zero(6));
    VectorX<double> tau = VectorX<double>::Zero(6);
    tau[3] = F * std::cos(th);
    tau[4] = F * std::sin(th);
    plant.get_input_port(0).FixValue(&sim.get_mutable_context(), tau);
    sim.AdvanceTo(0.1);
    const Vector3<double> v1 =
        test::WorldVelocity(plant.GetState(sim.get_context()), 7, 1);
    sim.AdvanceTo(0.3);
    const VectorX<double> x = plant.GetState(sim.get_context());
    const Vector3<double> v2 = test::WorldVelocity(x, 7, 1);
    const Vector3<double> a = (v2 - v1) / 0.2;
    const double expected = F / m - mu * g;
    EXPECT_NEAR(a.head<2>().norm(), expected, 0.01 * expected) << deg;
    EXPECT_NEAR(std::atan2(a.y(), a.x()), th, 1e-3) << deg;
    EXPECT_NEAR(x[2], 0.05, 1e-3) << deg;  // neither sinks nor tips
    const TimeSteppingStepStats& stats = plant.GetStepStats(sim.get_context());
    EXPECT_TRUE(stats.converged);
    if (pile_path) {
      EXPECT_GT(stats.pgs_sweeps, 0) << deg;  // the pile path solved it
      EXPECT_EQ(stats.pgs_fallbacks, 0) << deg;
    } else {
      EXPECT_EQ(stats.pgs_sweeps, 0) << deg;
      EXPECT_LT(stats.max_residual, o.convex_tolerance);
    }
  }
}

TEST(TimeSteppingConvex, PushedBoxSlidesIsotropically) {
  PushBoxAlongEveryDirection(false);
}

TEST(TimeSteppingConvex, PushedBoxSlidesIsotropicallyOnThePilePath) {
  PushBoxAlongEveryDirection(true);
}

// A 1000 kg cube on a 1 g cube on the plane (mass ratio 1e6) stays at rest:
// penetration below 1 mm, no sideways drift.
TEST(TimeSteppingConvex, MassRatioOfAMillionStaysAtRest) {
  test::Scene scene;
  const int small = scene.AddCube(0.02, 1e-3);
  const int big = scene.AddCube(0.2, 1000.0);
  TimeSteppingRigidBodySystem plant(scene.tree, scene.Model(), 1e-3);
  Simulator<double> sim(plant);
  VectorX<double> q = scene.tree.GetZeroConfiguration();
  q[Pos(small) + 2] = 0.01;
  q[Pos(big) + 2] = 0.02 + 0.1;
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q,
                                  VectorX<double>::Zero(12));
  int max_iterations = 0;
  for (int k = 1; k <= 100; ++k) {
    sim.AdvanceTo(0.01 * k);
    const TimeSteppingStepStats& stats = plant.GetStepStats(sim.get_context());
    ASSERT_TRUE(stats.converged);
    max_iterations = std::max(max_iterations, stats.max_island_iterations);
  }
  const VectorX<double>& x = plant.GetState(sim.get_context());
  EXPECT_NEAR(x[Pos(small) + 2], 0.01, 1e-3);
  EXPECT_NEAR(x[Pos(big) + 2], 0.12, 1e-3);
  EXPECT_LT((x.segment<2>(Pos(big)) - q.segment<2>(Pos(big))).norm(), 1e-3);
  EXPECT_LT(x.tail(12).cwiseAbs().maxCoeff(), 1e-2);
  EXPECT_LE(max_iterations, 30);
}

// The load-bounded regularization (convex_beta = 1 above convex_beta_min):
// the stack of a million to one rests as with the stiff default, where
// beta = 1 everywhere (convex_rest_depth = 0 turns the bound off) lets the
// heavy box sink through the light one.
TEST(TimeSteppingConvex, LoadBoundedRegularizationKeepsTheMassRatioStack) {
  for (const double depth : {5e-6, 0.0}) {
    test::Scene scene;
    const int small = scene.AddCube(0.02, 1e-3);
    const int big = scene.AddCube(0.2, 1000.0);
    TimeSteppingOptions o;
    o.convex_beta = 1;
    o.convex_rest_depth = depth;
    TimeSteppingRigidBodySystem plant(scene.tree, scene.Model(), 1e-3, {}, {},
                                      {}, o);
    Simulator<double> sim(plant);
    VectorX<double> q = scene.tree.GetZeroConfiguration();
    q[Pos(small) + 2] = 0.01;
    q[Pos(big) + 2] = 0.02 + 0.1;
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q,
                                    VectorX<double>::Zero(12));
    sim.AdvanceTo(1.0);
    const VectorX<double>& x = plant.GetState(sim.get_context());
    if (depth > 0) {
      EXPECT_NEAR(x[Pos(big) + 2], 0.12, 1e-4);
      EXPECT_LT((x.segment<2>(Pos(big)) - q.segment<2>(Pos(big))).norm(), 1e-3);
      EXPECT_LT(x.tail(12).cwiseAbs().maxCoeff(), 1e-2);
    } else {
      EXPECT_LT(x[Pos(big) + 2], 0.11);  // sunk through the light box
    }
  }
}

// A pendulum (0.1 kg at 0.1 m, I = 1.01e-3 kg m^2 about the hinge) with joint
// damping b = 10 N m s: h b / I = 10 at h = 1 ms, where explicit damping
// diverges
// (|1 - h b / I| > 1: |v| would grow ninefold per step). Implicit at the
// velocity level the swing decays: |v| stays below its start, ends below
// the creep speed under gravity (m g l sin(q) / b < 5e-3 rad/s) and the
// angle stays between 0 and 1 rad.
TEST(TimeSteppingConvex, HeavyJointDampingIsStable) {
  RigidBodyTree<double> tree("pendulum");
  Joint<double> j;
  j.type = JointType::kRevolute;
  j.name = "hinge";
  j.axis = Vector3<double>::UnitY();
  j.damping = 10;
  tree.AddBody(
      "bob", 0, j,
      SpatialInertia<double>::FromCom(0.1, Vector3<double>(0, 0, -0.1),
                                      Matrix3<double>::Identity() * 1e-5));
  TimeSteppingRigidBodySystem plant(tree, GeometryModel(tree.num_bodies()),
                                    1e-3);
  Simulator<double> sim(plant);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(),
                                  VectorX<double>::Constant(1, 0.5),
                                  VectorX<double>::Constant(1, 5.0));
  double v_prev = 5.0;
  for (int k = 1; k <= 200; ++k) {
    sim.AdvanceTo(1e-3 * k);
    const double v = plant.GetState(sim.get_context())[1];
    ASSERT_TRUE(std::isfinite(v));
    ASSERT_LE(std::abs(v), 5.0) << "step " << k;
    v_prev = v;
  }
  EXPECT_LT(std::abs(v_prev), 5e-3);
  // Overdamped: the angle creeps toward 0 under gravity, never past it.
  const double angle = plant.GetState(sim.get_context())[0];
  EXPECT_GT(angle, 0.0);
  EXPECT_LT(angle, 1.0);
}

// An island that does not converge within its limits is an error naming
// the time, the island and its bodies; with kWarnAndCount it is counted.
TEST(TimeSteppingConvex, NonConvergenceIsReported) {
  auto run = [](TimeSteppingOptions o, int steps) {
    test::Scene scene;
    scene.AddCube(0.1);
    scene.AddCube(0.1);
    TimeSteppingRigidBodySystem plant(scene.tree, scene.Model(), 1e-3, {}, {},
                                      {}, o);
    Simulator<double> sim(plant);
    VectorX<double> q = scene.tree.GetZeroConfiguration();
    test::SetPose(&q, 1, Vector3<double>(0, 0, 0.049),
                  Matrix3<double>::Identity());
    test::SetPose(
        &q, 2, Vector3<double>(0.01, 0, 0.148),
        Eigen::AngleAxisd(0.3, Vector3<double>::UnitZ()).toRotationMatrix());
    VectorX<double> v = VectorX<double>::Zero(12);
    v[Vel(2) + 3] = 1.0;
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q, v);
    sim.AdvanceTo(1e-3 * steps);
    return plant.GetStepStats(sim.get_context());
  };
  TimeSteppingOptions o;
  o.convex_max_iterations = 1;
  o.convex_tolerance = 1e-12;
  try {
    run(o, 5);
    ADD_FAILURE() << "no throw";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("did not converge"), std::string::npos) << what;
    EXPECT_NE(what.find("island 0"), std::string::npos) << what;
    EXPECT_NE(what.find("'body1', 'body2'"), std::string::npos) << what;
    EXPECT_NE(what.find("t = 0"), std::string::npos) << what;
  }
  // Each of the first three steps stops unconverged and is counted (a later
  // step can converge in its one Newton iteration: once the warm start has
  // the right contacts active, one step reaches the exact minimizer).
  o.on_nonconvergence = TimeSteppingOptions::OnNonConvergence::kWarnAndCount;
  const TimeSteppingStepStats stats = run(o, 3);
  EXPECT_FALSE(stats.converged);
  EXPECT_EQ(stats.unconverged_islands, 1);
  EXPECT_EQ(stats.warnings, 3);
  // With the default limits the same scene converges every step.
  const TimeSteppingStepStats ok = run(TimeSteppingOptions{}, 50);
  EXPECT_TRUE(ok.converged);
  EXPECT_EQ(ok.warnings, 0);
}

// A 1 cm ball at 20 m/s (20 mm per 1 ms step, four times the contact
// margin) falls onto a 2 mm plate: the speculative contact from the swept
// motion stops it on the plate's top instead of letting it tunnel through.
TEST(TimeSteppingConvex, FastSmallBallDoesNotTunnelThroughAThinPlate) {
  test::Scene scene;
  const double r = 0.005;
  const int ball = scene.AddSphere(r, 0.01);
  GeometryModel model(scene.tree.num_bodies());
  Geometry g = scene.geometries[0];
  g.properties.friction = 0.5;
  model.AddGeometry(g);
  Geometry plate;
  plate.name = "plate";
  plate.shape = Shape::Box(0.2, 0.2, 0.002);  // top at z = 0.001
  plate.properties.friction = 0.5;
  model.AddGeometry(plate);
  TimeSteppingRigidBodySystem plant(scene.tree, model, 1e-3);
  Simulator<double> sim(plant);
  VectorX<double> q = scene.tree.GetZeroConfiguration();
  q[Pos(ball) + 2] = 0.1003;  // not a whole number of steps from the plate
  VectorX<double> v = VectorX<double>::Zero(6);
  v[Vel(ball) + 5] = -20.0;
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q, v);
  sim.AdvanceTo(0.05);
  const VectorX<double>& x = plant.GetState(sim.get_context());
  EXPECT_GT(x[Pos(ball) + 2], 0.001 + r - 1e-3);
  EXPECT_LT(x[Pos(ball) + 2], 0.001 + r + 1e-3);
  EXPECT_LT(x.tail(6).norm(), 0.5);
}

// The shipped humanoid and quadruped (floating base, no actuators) fall limp
// from standing for 0.5 s: every step converges, with few Newton iterations
// (printed: the figures of docs/plant.md), and nothing sinks into the
// ground deeper than 5 mm.
TEST(TimeSteppingConvex, RobotsFallLimpWithFewIterations) {
  for (const char* name : {"humanoid", "quadruped"}) {
    UrdfParseOptions options;
    options.floating_base = true;
    const RigidBodyTree<double> tree =
        ParseUrdfFile(std::string(TERN_MODELS_DIR) + "/" + name + ".urdf",
                      options)
            .tree;
    VectorX<double> q = tree.GetZeroConfiguration();
    KinematicsCache<double> cache(tree);
    ForwardKinematics(tree, &cache, q);
    GeometryModel model = GeometryModel::FromTree(tree);
    ExcludeBodyPairsInContact(&model, cache.X_WB);
    // Lift the base so that the lowest geometry is 1 cm above the ground.
    {
      GeometryWorkspace ws(model);
      UpdateGeometryPoses(model, cache.X_WB, &ws);
      double zmin = 1e9;
      for (int g = 0; g < model.num_geometries(); ++g) {
        zmin = std::min(zmin, ws.aabb_lo[g].z());
      }
      q[2] += 0.01 - zmin;
    }
    Geometry ground;
    ground.name = "ground";
    ground.shape = Shape::HalfSpace();
    ground.properties.friction = 0.8;
    model.AddGeometry(ground);
    TimeSteppingRigidBodySystem plant(tree, model, 1e-3);
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(
        &sim.get_mutable_context(), q,
        VectorX<double>::Zero(tree.num_velocities()));
    long long iterations = 0, steps_in_contact = 0;
    int max_iterations = 0;
    for (int k = 1; k <= 500; ++k) {
      sim.AdvanceTo(1e-3 * k);
      const TimeSteppingStepStats& st = plant.GetStepStats(sim.get_context());
      ASSERT_TRUE(st.converged) << name << " step " << k;
      if (st.num_contacts > 0) {
        iterations += st.convex_iterations;
        ++steps_in_contact;
      }
      max_iterations = std::max(max_iterations, st.max_island_iterations);
    }
    const double mean =
        static_cast<double>(iterations) / std::max(1LL, steps_in_contact);
    std::printf(
        "%s falling limp: %.2f Newton iterations per step in contact "
        "(max %d), %lld steps in contact\n",
        name, mean, max_iterations, steps_in_contact);
    EXPECT_GT(steps_in_contact, 250) << name;
    EXPECT_LT(mean, 10) << name;
    // Penetration: the deepest contact at the end.
    const VectorX<double>& x = plant.GetState(sim.get_context());
    ASSERT_TRUE(x.allFinite()) << name;
    ForwardKinematics(tree, &cache,
                      VectorX<double>(x.head(tree.num_positions())));
    GeometryWorkspace ws(model);
    UpdateGeometryPoses(model, cache.X_WB, &ws);
    double deepest = 0;
    for (const Contact& c : ComputeContacts(model, &ws, 0.0)) {
      deepest = std::min(deepest, c.signed_distance);
    }
    EXPECT_GT(deepest, -5e-3) << name;
  }
}

// A robot that starts 2 cm into the ground is pushed out within 30 steps
// by the split-impulse position correction (erp 0.2: 0.8^30 of the depth
// is left), whose rows need M^-1 J^T of the articulated subtree (formed
// only for those rows under kConvex). The velocity-level rows alone take
// penetration_slop per step (about 0.1 m/s): 3 mm in 30 steps.
TEST(TimeSteppingConvex, ArticulatedRobotStartingDeepIsPushedOut) {
  UrdfParseOptions options;
  options.floating_base = true;
  const RigidBodyTree<double> tree =
      ParseUrdfFile(std::string(TERN_MODELS_DIR) + "/quadruped.urdf", options)
          .tree;
  VectorX<double> q = tree.GetZeroConfiguration();
  KinematicsCache<double> cache(tree);
  ForwardKinematics(tree, &cache, q);
  GeometryModel model = GeometryModel::FromTree(tree);
  ExcludeBodyPairsInContact(&model, cache.X_WB);
  Geometry ground;
  ground.name = "ground";
  ground.shape = Shape::HalfSpace();
  ground.properties.friction = 0.8;
  const int ground_id = model.AddGeometry(ground);
  auto deepest = [&](const VectorX<double>& qq) {
    ForwardKinematics(tree, &cache, qq);
    GeometryWorkspace ws(model);
    UpdateGeometryPoses(model, cache.X_WB, &ws);
    double d = 0;
    for (const Contact& c : ComputeContacts(model, &ws, 0.0)) {
      d = std::min(d, c.signed_distance);
    }
    return d;
  };
  {
    // The lowest geometry (not the ground) 2 cm below z = 0.
    GeometryWorkspace ws(model);
    UpdateGeometryPoses(model, cache.X_WB, &ws);
    double zmin = 1e9;
    for (int g = 0; g < model.num_geometries(); ++g) {
      if (g != ground_id) zmin = std::min(zmin, ws.aabb_lo[g].z());
    }
    q[2] += -0.02 - zmin;
  }
  ASSERT_LT(deepest(q), -0.015);
  TimeSteppingRigidBodySystem plant(tree, model, 1e-3);
  Simulator<double> sim(plant);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q,
                                  VectorX<double>::Zero(tree.num_velocities()));
  for (int k = 1; k <= 30; ++k) {
    sim.AdvanceTo(1e-3 * k);
    ASSERT_TRUE(plant.GetStepStats(sim.get_context()).converged) << k;
  }
  const VectorX<double>& x = plant.GetState(sim.get_context());
  ASSERT_TRUE(x.allFinite());
  EXPECT_GT(deepest(VectorX<double>(x.head(tree.num_positions()))), -2e-3);
}

// A seesaw: a bar hinged at its center (no gravity torque), a frictionless
// sphere at each end (with friction the turning ends' slip would let them
// glide, v_n = mu |v_t|, docs/plant.md), end B 50 um into the ground (the slop
// is 100 um: the contact pushes it out at 50 um / (h + tau), about 0.05 m/s,
// which turns end A down as fast) and end A `gap_a` above it (a speculative
// contact). At rest, the free motion and the last velocities separate A's
// contact, so the solve leaves it out. With gap_a = 1 mm A's contact stays open
// and B is pushed out freely: the end speed is B's push-out speed depth / (h +
// tau), tau = beta h / pi. With gap_a = 10 um that push-out closes A's gap
// within the step, the answer without A's row does not separate it, and the
// island is solved again with it: the two contacts, alike (same Delassus
// estimate, no load yet: the same compliance), then share the conflict, A
// approaching at the mean of B's push-out speed and its own gap / h, the answer
// of the problem with every row (without the re-solve A would approach at B's
// full push-out speed). Returns the velocity of end A (m/s, + down) after one
// step and the step's stats.
std::pair<double, TimeSteppingStepStats> SeesawStep(double gap_a) {
  const double L = 0.1, r = 0.01, depth_b = 5e-5;
  RigidBodyTree<double> tree("seesaw");
  Joint<double> j;
  j.type = JointType::kRevolute;
  j.name = "hinge";
  j.axis = Vector3<double>::UnitY();
  tree.AddBody(
      "bar", 0, j,
      SpatialInertia<double>::FromCom(1.0, Vector3<double>::Zero(),
                                      Matrix3<double>::Identity() * 0.01));
  GeometryModelOptions go;
  go.exclude_parent_child = false;  // the bar is hinged to the world
  GeometryModel model(tree.num_bodies(), go);
  const double zg = -r + depth_b;  // the ground's surface
  for (int end : {-1, 1}) {
    Geometry ball;
    ball.name = end < 0 ? "b" : "a";
    ball.body = 1;
    ball.shape = Shape::Sphere(r);
    ball.X_BG.p = Vector3<double>(end * L, 0, end < 0 ? 0.0 : depth_b + gap_a);
    ball.properties.friction = 0;  // no gliding: v_n = mu |v_t|
    model.AddGeometry(ball);
  }
  Geometry ground;
  ground.name = "ground";
  ground.shape = Shape::HalfSpace();
  ground.X_BG.p = Vector3<double>(0, 0, zg);
  ground.properties.friction = 0;
  model.AddGeometry(ground);
  TimeSteppingRigidBodySystem plant(tree, model, 1e-3);
  Simulator<double> sim(plant);
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(),
                                  VectorX<double>::Zero(1),
                                  VectorX<double>::Zero(1));
  sim.AdvanceTo(1e-3);
  const TimeSteppingStepStats st = plant.GetStepStats(sim.get_context());
  EXPECT_TRUE(st.converged);
  EXPECT_EQ(st.num_contacts, 2);
  // Rotation about +y by w moves the end at x = L down at w L.
  return {plant.GetState(sim.get_context())[1] * L, st};
}

TEST(TimeSteppingConvex,
     SpeculativeRowLeftOutIsSolvedAgainWhenTheStepClosesIt) {
  const double h = 1e-3, tau_h = h * (1 + 0.1 / kPi);  // convex_beta 0.1
  const double push_out = 5e-5 / tau_h;                // about 0.048 m/s
  const auto [v_open, open] = SeesawStep(1e-3);
  EXPECT_EQ(open.convex_rows_left_out, 1);
  EXPECT_EQ(open.convex_resolves, 0);
  EXPECT_NEAR(v_open, push_out, 1e-3);
  const auto [v_closing, closing] = SeesawStep(1e-5);
  EXPECT_EQ(closing.convex_rows_left_out, 1);
  EXPECT_EQ(closing.convex_resolves, 1);
  EXPECT_NEAR(v_closing, 0.5 * (push_out + 1e-5 / h), 1e-3);
}

// Two frictionless spheres without gravity, B 50 um into the ground (pushed
// out at about 0.048 m/s) and A `gap` above it: the contact between them is
// speculative and, at rest, separated, so it is left out of the islands (two
// islands of one sphere). With a gap of 1 mm B's push-out leaves it open; with
// 10 um the push-out closes it, the contact joins the islands and their
// island is solved again. Either way the answer is the full problem's (every
// row in one island: convex_leave_out_separating = false). Returns the
// velocities after one step and the step's stats.
std::pair<VectorX<double>, TimeSteppingStepStats> StackedSpheresStep(
    double gap, bool leave_out) {
  const double r = 0.01, depth_b = 5e-5;
  test::Scene scene;
  scene.mu = 0;
  scene.tree.set_gravity(Vector3<double>::Zero());
  const int b = scene.AddSphere(r), a = scene.AddSphere(r);
  TimeSteppingOptions options;
  options.convex_leave_out_separating = leave_out;
  TimeSteppingRigidBodySystem plant(scene.tree, scene.Model(), 1e-3, {}, {}, {},
                                    options);
  Simulator<double> sim(plant);
  VectorX<double> q = scene.tree.GetZeroConfiguration();
  q[Pos(b) + 2] = r - depth_b;
  q[Pos(a) + 2] = r - depth_b + 2 * r + gap;
  plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q,
                                  VectorX<double>::Zero(12));
  sim.AdvanceTo(1e-3);
  const TimeSteppingStepStats st = plant.GetStepStats(sim.get_context());
  EXPECT_TRUE(st.converged);
  EXPECT_EQ(st.num_contacts, 2);
  return {plant.GetState(sim.get_context()).tail(12), st};
}

TEST(TimeSteppingConvex, SeparatedContactSplitsIslandsAndJoinsWhenClosed) {
  const double h = 1e-3, tau_h = h * (1 + 0.1 / kPi);  // convex_beta 0.1
  const double push_out = 5e-5 / tau_h;                // about 0.048 m/s
  const int vz_b = Vel(1) + 5, vz_a = Vel(2) + 5;
  // Open: two islands, B pushed out freely, A still.
  const auto [v_open, open] = StackedSpheresStep(1e-3, true);
  EXPECT_EQ(open.convex_rows_left_out, 1);
  EXPECT_EQ(open.convex_resolves, 0);
  EXPECT_NEAR(v_open[vz_b], push_out, 1e-3);
  EXPECT_EQ(v_open[vz_a], 0.0);
  const auto [v_open_all, open_all] = StackedSpheresStep(1e-3, false);
  EXPECT_EQ(open_all.convex_rows_left_out, 0);
  EXPECT_NEAR((v_open - v_open_all).lpNorm<Eigen::Infinity>(), 0, 1e-6)
      << v_open.transpose() << "\n"
      << v_open_all.transpose();
  // Closing: B's push-out would close the 10 um gap within the step, so
  // the contact joins and A moves up with B.
  const auto [v_closing, closing] = StackedSpheresStep(1e-5, true);
  EXPECT_EQ(closing.convex_rows_left_out, 0);
  EXPECT_EQ(closing.convex_resolves, 1);
  EXPECT_GT(v_closing[vz_a], 0.5 * (push_out - 1e-5 / h));
  const auto [v_closing_all, closing_all] = StackedSpheresStep(1e-5, false);
  EXPECT_NEAR((v_closing - v_closing_all).lpNorm<Eigen::Infinity>(), 0, 1e-6)
      << v_closing.transpose() << "\n"
      << v_closing_all.transpose();
}

// Negative friction is an error naming the geometry.
TEST(TimeSteppingConvex, NegativeFrictionNamesTheGeometry) {
  test::Scene scene;
  scene.mu = -0.5;
  scene.AddCube(0.1);
  try {
    TimeSteppingRigidBodySystem plant(scene.tree, scene.Model(), 1e-3);
    Simulator<double> sim(plant);
    VectorX<double> q = scene.tree.GetZeroConfiguration();
    q[2] = 0.049;
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q,
                                    VectorX<double>::Zero(6));
    sim.AdvanceTo(0.01);
    ADD_FAILURE() << "no throw";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("friction"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tern
