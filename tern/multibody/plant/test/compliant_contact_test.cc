#include "tern/multibody/plant/compliant_contact.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numbers>

#include "examples/quadruped/quadruped_stance.h"
#include "tern/integrators/explicit_rules.h"
#include "tern/math/rotation.h"
#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/plant/lidar.h"
#include "tern/multibody/plant/rigid_body_system.h"
#include "tern/multibody/plant/test/plant_test_models.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/systems/analysis/simulator.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/constant_vector_source.h"
#include "tern/systems/primitives/matrix_gain.h"
#include "tern/systems/primitives/pid_controller.h"

namespace tern {
namespace {

// CompliantContact and Lidar: the two plant elements that read the
// geometry layer.

// A 1 kg cube (side 0.1 m) on a floating joint above the ground plane
// z = 0, with contact properties k, b, mu on both geometries.
struct BoxOnPlane {
  RigidBodyTree<double> tree{"box"};
  GeometryModel model;
  BoxOnPlane(double k, double b, double mu) {
    Joint<double> j;
    j.name = "floating";
    j.type = JointType::kFloating;
    tree.AddBody("box", 0, j,
                 SpatialInertia<double>::FromCom(
                     1.0, Vector3<double>::Zero(),
                     Matrix3<double>::Identity() * (0.01 / 6)));
    model = GeometryModel(tree.num_bodies());
    const ContactProperties props{mu, 0.0, k, b};
    Geometry ground;
    ground.name = "ground";
    ground.body = 0;
    ground.shape = Shape::HalfSpace();
    ground.properties = props;
    model.AddGeometry(ground);
    Geometry box;
    box.name = "box";
    box.body = 1;
    box.shape = Shape::Box(0.1, 0.1, 0.1);
    box.properties = props;
    model.AddGeometry(box);
  }
  VectorX<double> Run(const VectorX<double>& q0, const VectorX<double>& v0,
                      double t_end, std::vector<VectorX<double>>* samples,
                      double h = 2e-4) {
    auto contact = std::make_shared<CompliantContact>(tree, model);
    RigidBodySystem<double> plant(tree, {contact});
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(), q0, v0);
    sim.reset_integrator<RK4>(h);
    for (int k = 1; k <= 100; ++k) {
      sim.AdvanceTo(t_end * k / 100);
      if (samples) {
        samples->push_back(sim.get_context().get_continuous_state_vector());
      }
    }
    return sim.get_context().get_continuous_state_vector();
  }
};

VectorX<double> Pose(double x, double z) {
  VectorX<double> q(7);
  q << x, 0, z, 1, 0, 0, 0;
  return q;
}

// At rest the four corners carry m g: penetration m g / (4 k_series).
TEST(CompliantContact, BoxRestsAtStaticPenetration) {
  BoxOnPlane scene(1e5, 100, 0.5);
  const VectorX<double> x =
      scene.Run(Pose(0, 0.05), VectorX<double>::Zero(6), 0.5, nullptr);
  const double k_series = 1e5 / 2;
  EXPECT_NEAR(x[2], 0.05 - 9.81 / (4 * k_series), 1e-7);
  EXPECT_LT(x.tail<6>().norm(), 1e-5);
}

// Sliding, the friction saturates at mu f_n: the box decelerates at mu g
// (closed form) once its bounce has settled.
TEST(CompliantContact, SlidingBoxDeceleratesAtMuG) {
  const double mu = 0.5;
  BoxOnPlane scene(1e5, 100, mu);
  VectorX<double> v0 = VectorX<double>::Zero(6);
  v0[3] = 2.0;  // body-frame linear x (the box is unrotated)
  std::vector<VectorX<double>> samples;
  scene.Run(Pose(0, 0.05 - 9.81 / 2e5), v0, 0.3, &samples);
  // Samples every 3 ms; compare the x velocity at 0.06 s and 0.24 s.
  const double v1 = samples[19][7 + 3], v2 = samples[79][7 + 3];
  EXPECT_NEAR((v1 - v2) / 0.18, mu * 9.81, 0.01 * mu * 9.81);
  EXPECT_GT(v2, 0.5);  // still sliding
}

// Both normal laws against their closed forms on a resting-pose box moving
// down at 0.1 m/s with penetration 1 mm at each corner: per corner, linear
// k x + b xdot, Hunt-Crossley k x (1 + d xdot); the generalized force on
// the floating base's z (world-aligned here) is four times that.
TEST(CompliantContact, NormalLawsMatchClosedForms) {
  BoxOnPlane scene(1e5, 100, 0.5);
  const RigidBodyTree<double>& tree = scene.tree;
  const VectorX<double> q = Pose(0, 0.05 - 1e-3);
  VectorX<double> v = VectorX<double>::Zero(6);
  v[5] = -0.1;
  KinematicsCache<double> cache(tree);
  ForwardKinematics(tree, &cache, q, v);
  Matrix6X<double> J(6, 6);
  VectorX<double> tau(6);
  const double k = 5e4, b = 50, x = 1e-3, xdot = 0.1;
  for (bool hc : {false, true}) {
    CompliantContactParameters p;
    if (hc) {
      p.normal_law = CompliantContactParameters::NormalLaw::kHuntCrossley;
      p.hunt_crossley_dissipation = 0.5;
    }
    CompliantContact contact(tree, scene.model, p);
    auto scratch = contact.MakeScratch();
    ForceElementInputs<double> in;
    in.tree = &tree;
    in.cache = &cache;
    in.q = &q;
    in.v = &v;
    in.J = &J;
    in.scratch = scratch.get();
    contact.CalcGeneralizedForce(in, &tau);
    const double per_corner = hc ? k * x * (1 + 0.5 * xdot) : k * x + b * xdot;
    EXPECT_NEAR(tau[5], 4 * per_corner, 1e-9)
        << (hc ? "Hunt-Crossley" : "linear");
  }
}

TEST(CompliantContact, BadInputNamesTheCulprit) {
  BoxOnPlane scene(1e5, 100, 0.5);
  try {
    CompliantContact(scene.tree, GeometryModel(5), {}, "feet");
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'feet'"), std::string::npos);
  }
  CompliantContactParameters bad;
  bad.tangential_damping = 0;
  EXPECT_THROW(CompliantContact(scene.tree, scene.model, bad),
               std::invalid_argument);
}

}  // namespace
}  // namespace tern

namespace tern {
namespace {

// A lidar 1 m above the ground, its scan plane vertical (S rotated +90 deg
// about x, so ray angle a points along (cos a, 0, sin a) in world): straight
// down reads 1 m, 45 deg down reads sqrt(2) m, horizontal misses (max
// range); the box the lidar sits in is ignored.
TEST(Lidar, PlanarScanOverTheGround) {
  BoxOnPlane scene(1e5, 100, 0.5);
  auto lidar = std::make_shared<Lidar>(
      scene.tree, scene.model, "box",
      RigidTransform<double>(RollPitchYawToRotationMatrix(
                                 Vector3<double>(std::numbers::pi / 2, 0, 0)),
                             Vector3<double>::Zero()),
      3, -std::numbers::pi / 2, 0.0, 20.0);
  RigidBodySystem<double> plant(
      scene.tree, std::vector<std::shared_ptr<const Actuator<double>>>{},
      {lidar});
  auto context = plant.CreateDefaultContext();
  plant.SetPositionsAndVelocities(context.get(), Pose(0.3, 1.0),
                                  VectorX<double>::Zero(6));
  const VectorX<double>& y =
      plant.get_sensor_output_port("lidar").Eval(*context);
  EXPECT_NEAR(y[0], 1.0, 1e-12);
  EXPECT_NEAR(y[1], std::sqrt(2.0), 1e-12);
  EXPECT_EQ(y[2], 20.0);
  EXPECT_THROW(Lidar(scene.tree, scene.model, "mast", RigidTransform<double>(),
                     3, 0, 1, 10),
               std::invalid_argument);
}

}  // namespace
}  // namespace tern

namespace tern {
namespace {

// The shipped quadruped on compliant contact under joint PD control (every
// joint's hip flexion 0.6 rad, knee -1.2 rad: feet under the hips) stays
// standing for 10 s.
TEST(CompliantContact, QuadrupedStandsForTenSeconds) {
  const QuadrupedStance s =
      MakeQuadrupedStance(TERN_MODELS_DIR, QuadrupedFeetOnGroundHeight() - 2e-4,
                          ContactProperties{0.9, 0.0, 2e5, 500});
  const RigidBodyTree<double>& tree = s.tree;
  const VectorX<double>& q0 = s.q0;
  const int nv = tree.num_velocities();
  auto motors =
      std::make_shared<TorqueSource<double>>(tree, s.joints, 0.0, "motors");
  auto contact = std::make_shared<CompliantContact>(tree, s.geometry);
  RigidBodySystemOptions plant_options;
  plant_options.state_output = true;
  DiagramBuilder<double> builder;
  auto* plant = builder.AddSystem<RigidBodySystem<double>>(
      tree,
      std::vector<std::shared_ptr<const Actuator<double>>>{motors, contact},
      std::vector<std::shared_ptr<const Sensor<double>>>{},
      std::vector<
          std::shared_ptr<const ContinuousTimeConstraintForce<double>>>{},
      plant_options);
  ConnectJointPd(&builder, plant, s.select, s.x_des, 300, 10);
  auto diagram = builder.Build();
  Simulator<double> sim(*diagram);
  plant->SetPositionsAndVelocities(
      &plant->GetMyMutableContextFromRoot(&sim.get_mutable_context()), q0,
      VectorX<double>::Zero(nv));
  sim.reset_integrator<RK4>(5e-4);
  for (int k = 1; k <= 10; ++k) {
    sim.AdvanceTo(1.0 * k);
    const auto x = plant->GetMyContextFromRoot(sim.get_context())
                       .get_continuous_state_vector();
    ASSERT_GT(x[2], 0.8 * q0[2]) << "fell at t = " << k;
    ASSERT_GT(std::abs(x[3]), 0.98) << "tipped at t = " << k;  // qw
  }
}

// Atlas v3 (dart-doc) with its mesh collision geometry (convex hulls of
// the STL files) dropped from 2 cm onto compliant contact, its legs and
// back held at the zero pose (standing straight) by joint PD, its arms
// limp. The sole of a foot hull has 12 coplanar vertices; with only the
// four deepest reported, which four changed with every wobble, the force
// jumped, and dopri5 stalled at the first touch-down (measured with that
// rule under ASan: 0.2 s not reached in 300 s of wall time). With every
// vertex within the margin (narrow_phase.h) the force is continuous: it
// stands on its feet for 0.5 s (the ASan budget: 1,431 steps, ~18 s wall
// on a loaded machine; TERN_ATLAS_SECONDS=2 runs 2 s: 7,377 steps, pelvis
// 1 mm below standing) in a bounded number of steps, pelvis within 2 cm of
// its standing height and upright, the soles on the ground (within 2 mm).
// Self-collision is off (robot geometries collide with the ground only).
TEST(CompliantContact, AtlasMeshFeetLandAndStandWithoutStalling) {
  UrdfParseOptions options;
  options.floating_base = true;
  const RigidBodyTree<double> tree =
      ParseUrdfFile(
          std::string(TERN_DART_DATA_DIR) + "/sdf/atlas/atlas_v3_no_head.urdf",
          options)
          .tree;
  // The collision meshes' convex hulls (built here rather than by
  // GeometryModel::FromTree, which rejects pelvis.stl as not closed).
  GeometryModel model(tree.num_bodies());
  for (int b = 1; b < tree.num_bodies(); ++b) {
    for (const BodyGeometry& bg : tree.body(b).collisions) {
      if (bg.shape != BodyGeometry::Shape::kMesh || !bg.mesh) continue;
      Geometry g;
      g.name = tree.body(b).name + "_" + std::to_string(model.num_geometries());
      g.body = b;
      g.X_BG = bg.X_BG;
      g.shape = Shape::ConvexHull(bg.mesh->vertices);
      g.group = 2;  // collides with the ground's group (1) only
      g.mask = 1;
      model.AddGeometry(g);
    }
  }
  ASSERT_GE(model.num_geometries(), 20);
  Geometry ground;
  ground.name = "ground";
  ground.shape = Shape::HalfSpace();
  model.AddGeometry(ground);
  // The lowest point of the robot (m) at positions q.
  KinematicsCache<double> cache(tree);
  GeometryWorkspace ws(model);
  auto lowest_point = [&](const VectorX<double>& q) {
    ForwardKinematics(tree, &cache, q);
    UpdateGeometryPoses(model, cache.X_WB, &ws);
    double lowest = 1e9;
    for (int g = 0; g + 1 < model.num_geometries(); ++g) {
      lowest = std::min(lowest, ws.aabb_lo[g].z());
    }
    return lowest;
  };
  VectorX<double> q = tree.GetZeroConfiguration();
  q[2] = 0.02 - lowest_point(q);
  const double standing = q[2] - 0.02;
  // PD on the 15 leg and back joints toward 0.
  std::vector<std::string> joints;
  for (int b = 1; b < tree.num_bodies(); ++b) {
    const std::string& j = tree.body(b).joint.name;
    if (tree.body(b).num_velocities == 1 &&
        (j.find("_leg_") != std::string::npos || j.rfind("back_", 0) == 0)) {
      joints.push_back(j);
    }
  }
  ASSERT_EQ(joints.size(), 15u);
  const int nq = tree.num_positions(), nv = tree.num_velocities();
  const int n = static_cast<int>(joints.size());
  MatrixX<double> select = MatrixX<double>::Zero(2 * n, nq + nv);
  for (int i = 0; i < n; ++i) {
    const RigidBody<double>& b = tree.body(tree.FindJointBodyIndex(joints[i]));
    select(i, b.position_start) = 1;
    select(n + i, nq + b.velocity_start) = 1;
  }
  auto motors =
      std::make_shared<TorqueSource<double>>(tree, joints, 0.0, "motors");
  auto contact = std::make_shared<CompliantContact>(tree, model);
  RigidBodySystemOptions plant_options;
  plant_options.state_output = true;
  DiagramBuilder<double> builder;
  auto* plant = builder.AddSystem<RigidBodySystem<double>>(
      tree,
      std::vector<std::shared_ptr<const Actuator<double>>>{motors, contact},
      std::vector<std::shared_ptr<const Sensor<double>>>{},
      std::vector<
          std::shared_ptr<const ContinuousTimeConstraintForce<double>>>{},
      plant_options);
  ConnectJointPd(&builder, plant, select, VectorX<double>::Zero(2 * n), 6000,
                 60);
  auto diagram = builder.Build();
  Simulator<double> sim(*diagram);
  plant->SetPositionsAndVelocities(
      &plant->GetMyMutableContextFromRoot(&sim.get_mutable_context()), q,
      VectorX<double>::Zero(nv));
  IntegratorSettings settings;
  settings.rtol = settings.atol = 1e-4;
  sim.reset_integrator("dopri5", settings);
  const double t_end = std::getenv("TERN_ATLAS_SECONDS")
                           ? std::atof(std::getenv("TERN_ATLAS_SECONDS"))
                           : 0.5;
  const auto start = std::chrono::steady_clock::now();
  sim.AdvanceTo(t_end);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  const auto x = plant->GetMyContextFromRoot(sim.get_context())
                     .get_continuous_state_vector();
  ASSERT_TRUE(x.allFinite());
  const int steps = static_cast<int>(sim.get_statistics().steps);
  std::printf(
      "Atlas: %.2f s simulated in %d steps (%.1f s wall), pelvis at %.4f m "
      "(standing %.4f m), lowest point %.2f mm\n",
      t_end, steps, wall, x[2], standing,
      1e3 * lowest_point(VectorX<double>(x.head(nq))));
  EXPECT_LT(steps, 4000 * t_end + 500);
  EXPECT_NEAR(x[2], standing, 0.02);
  EXPECT_GT(std::abs(x[3]), 0.99);  // upright: qw of the pelvis
  EXPECT_NEAR(lowest_point(VectorX<double>(x.head(nq))), 0.0, 2e-3);
}

}  // namespace
}  // namespace tern
