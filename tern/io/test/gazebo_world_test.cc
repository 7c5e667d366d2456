// A Gazebo world of dart-doc, as it is (it includes Gazebo's stock
// model://ground_plane and model://sun, which Tern stands in for), run from
// a scenario (`models: - file: x.world`) on both plants. In the scenario
// layer's tests because it checks the whole path: libsdformat's include,
// the stand-ins (tern/multibody/parsing/sdf_parser.h), the world's ground
// plane as the only ground, and the plants.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <limits>

#include "tern/io/simulation.h"
#include "tern/multibody/parsing/sdf_parser.h"
#include "tern/multibody/tree/kinematics.h"

namespace tern::io {
namespace {

namespace fs = std::filesystem;

// The lowest point (world z, m) of the tree's box and sphere collisions.
double LowestCollisionPoint(const RigidBodyTree<double>& tree,
                            const KinematicsCache<double>& cache) {
  double lowest = std::numeric_limits<double>::infinity();
  for (int b = 1; b < tree.num_bodies(); ++b) {
    for (const BodyGeometry& g : tree.body(b).collisions) {
      const RigidTransform<double> X_WG = cache.X_WB[b] * g.X_BG;
      if (g.shape == BodyGeometry::Shape::kSphere) {
        lowest = std::min(lowest, X_WG.p.z() - g.radius);
      } else if (g.shape == BodyGeometry::Shape::kBox) {
        for (int c = 0; c < 8; ++c) {
          const Vector3<double> corner((c & 1 ? 0.5 : -0.5) * g.box_size.x(),
                                       (c & 2 ? 0.5 : -0.5) * g.box_size.y(),
                                       (c & 4 ? 0.5 : -0.5) * g.box_size.z());
          lowest = std::min(lowest, (X_WG.R * corner + X_WG.p).z());
        }
      }
    }
  }
  return lowest;
}

// dart-doc's force_torque_test2.world: a 100 kg cube standing on the
// included ground_plane, two hinged cubes (5 kg, 1 kg) stacked on its
// corner, falling about their hinges. For 1 s on each plant: states
// finite, kinetic + potential energy never above its start (contact and
// the stand-in's friction only take energy out; a compliant contact's
// spring holds some), and no collision point below the ground by more
// than the contact's give (compliant: a sag of order m g / k; rigid: the
// solver's tolerance).
TEST(GazeboWorldTest, DartDocWorldWithStockGroundSimulatesOnBothPlants) {
  ASSERT_TRUE(SdfSupported()) << "built without libsdformat";
  const std::string file =
      "/usr/share/doc/dart/data/sdf/test/"
      "force_torque_test2.world";
  ASSERT_TRUE(fs::exists(file))
      << file << " is missing: install dart-doc (scripts/install-deps test)";
  for (const std::string kind : {"continuous", "time-stepping"}) {
    SCOPED_TRACE(kind);
    const Scenario s = LoadScenarioString(
        fmt::format("duration: 1.0\nground: false\nmodels: [{{file: {}}}]\n"
                    "plant: {{kind: {}, dt: 1e-3}}\nlog: {{rate: 100}}\n",
                    file, kind),
        "s.yaml", "/");
    const World w = BuildWorld(s);
    ValidateScenario(s, w);
    const RigidBodyTree<double>& tree = w.tree;
    // The stand-in ground: one plane on the world body, the only ground.
    int planes = 0;
    for (const BodyGeometry& g : tree.body(0).collisions) {
      planes += g.shape == BodyGeometry::Shape::kPlane;
    }
    ASSERT_EQ(planes, 1);
    const RunLog log = RunScenario(s, w, {}, nullptr);
    ASSERT_EQ(log.times.size(), 101u);
    const int nq = tree.num_positions(), nv = tree.num_velocities();
    KinematicsCache<double> cache(tree);
    double e0 = 0, e_max_rise = 0, lowest = 0, moved = 0;  // J, J, m, m/s
    for (std::size_t k = 0; k < log.rows.size(); ++k) {
      const Eigen::Map<const Eigen::VectorXd> x(
          log.rows[k].data() + log.q_offset, nq + nv);
      ASSERT_TRUE(x.allFinite()) << "t = " << log.times[k];
      const VectorX<double> q = x.head(nq), v = x.tail(nv);
      ForwardKinematics(tree, &cache, q, v);
      const double e =
          KineticEnergy(tree, cache) + PotentialEnergy(tree, cache);
      if (k == 0) e0 = e;
      e_max_rise = std::max(e_max_rise, e - e0);
      lowest = std::min(lowest, LowestCollisionPoint(tree, cache));
      moved = std::max(moved, v.norm());
    }
    std::printf(
        "%s: energy rise %.2e J (of |E0| %.1f J), lowest point %.2e m\n",
        kind.c_str(), e_max_rise, std::abs(e0), lowest);
    EXPECT_LE(e_max_rise, 1e-6 * std::abs(e0));
    EXPECT_GT(lowest, kind == "continuous" ? -5e-3 : -1e-4);
    // The hinged cubes fall: the run is not a world at rest.
    EXPECT_GT(moved, 0.5);
  }
}

// `tern simulate x.world` (ScenarioFromUrdf): a world that brings its own
// ground (written in the file or the stock ground_plane included) gets no
// second plane from the scenario; one without keeps the scenario's ground.
TEST(GazeboWorldTest, ModelFileScenarioUsesTheWorldsOwnGround) {
  ASSERT_TRUE(SdfSupported()) << "built without libsdformat";
  const std::string dir = "/usr/share/doc/dart/data/sdf/";
  ASSERT_TRUE(fs::exists(dir)) << dir << " is missing: install dart-doc";
  for (const char* own : {"double_pendulum.world", "empty.world",
                          "test/force_torque_test2.world"}) {
    EXPECT_FALSE(ScenarioFromUrdf(dir + own).ground.enabled) << own;
  }
  EXPECT_TRUE(ScenarioFromUrdf(dir + "test/single_bodynode_skeleton.world")
                  .ground.enabled);
}

}  // namespace
}  // namespace tern::io
