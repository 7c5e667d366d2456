// Contacts and a Lidar scan for the shipped humanoid standing on the ground
// (docs/geometry.md): loads models/humanoid.urdf, builds its geometry model,
// adds a ground plane and a box in front of it, and prints the contact points
// of the feet (4 per sole: box-on-plane manifolds) and a ring of range
// readings taken from the head.
#include <cmath>
#include <cstdio>
#include <string>

#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/multibody/tree/kinematics_cache.h"

int main() {
  tern::UrdfParseOptions options;
  options.floating_base = true;
  const tern::UrdfModel urdf = tern::ParseUrdfFile(
      std::string(TERN_MODELS_DIR) + "/humanoid.urdf", options);
  const tern::RigidBodyTree<double>& tree = urdf.tree;

  tern::GeometryModel model = tern::GeometryModel::FromTree(tree);
  tern::Geometry ground;
  ground.name = "ground";
  ground.shape = tern::Shape::HalfSpace();  // z <= 0
  model.AddGeometry(ground);
  tern::Geometry crate;
  crate.name = "crate";
  crate.shape = tern::Shape::Box(0.5, 0.5, 1.5);
  crate.X_BG.p = Eigen::Vector3d(1.5, 0, 0.75);
  model.AddGeometry(crate);

  // Standing straight: the soles' bottoms are 0.065 m below the ankles,
  // 0.08 + 0.4 + 0.4 below the pelvis; sink them 1 mm into the ground.
  Eigen::VectorXd q = tree.GetZeroConfiguration();
  q(2) = 0.08 + 0.4 + 0.4 + 0.065 - 0.001;
  tern::KinematicsCache<double> cache(tree);
  tern::ForwardKinematics(tree, &cache, q);
  // The joint spheres overlap the links around them by design; filter the
  // body pairs that touch in this pose, lifted clear of the ground.
  std::vector<tern::RigidTransform<double>> lifted = cache.X_WB;
  for (size_t b = 1; b < lifted.size(); ++b) lifted[b].p.z() += 1.0;
  std::printf("%d body pairs touching at home excluded\n",
              tern::ExcludeBodyPairsInContact(&model, lifted, 0.005));
  tern::GeometryWorkspace ws(model);
  tern::UpdateGeometryPoses(model, cache.X_WB, &ws);

  std::printf("%d geometries on %d bodies\n", model.num_geometries(),
              tree.num_bodies());
  std::printf("contacts (margin 5 mm):\n");
  for (const tern::Contact& c : tern::ComputeContacts(model, &ws, 0.005)) {
    std::printf(
        "  %-10s / %-10s phi %+.4f m  at (%+.3f %+.3f %+.3f)  normal (%+.2f "
        "%+.2f %+.2f)\n",
        model.body_name(c.body_a).c_str(), model.body_name(c.body_b).c_str(),
        c.signed_distance, c.p_WB.x(), c.p_WB.y(), c.p_WB.z(), c.normal.x(),
        c.normal.y(), c.normal.z());
  }

  // A 16-ray ring from the head, tilted 20 degrees down.
  const int head = tree.FindBodyIndex("head");
  const Eigen::Vector3d eye = cache.X_WB[head].p + Eigen::Vector3d(0, 0, 0.1);
  Eigen::Matrix3Xd dirs(3, 16);
  for (int k = 0; k < 16; ++k) {
    const double a = 2 * M_PI * k / 16;
    dirs.col(k) =
        Eigen::Vector3d(std::cos(a), std::sin(a), -std::tan(20 * M_PI / 180));
  }
  std::vector<tern::RayHit> hits;
  tern::CastRays(model, ws, eye, dirs, 20.0, &hits, head);
  std::printf("lidar from the head (%.2f m up):\n", eye.z());
  for (int k = 0; k < 16; ++k) {
    const tern::RayHit& h = hits[k];
    if (h.hit) {
      std::printf("  %5.1f deg: %.3f m on %s\n", 360.0 * k / 16, h.distance,
                  model.geometry(h.geometry).name.c_str());
    } else {
      std::printf("  %5.1f deg: no hit\n", 360.0 * k / 16);
    }
  }
  return 0;
}
