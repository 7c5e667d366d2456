// Loads a URDF and prints what the rigid-body algorithms compute for it: the
// joints, the mass matrix H(q), the gravity torques, and the accelerations
// when the joints are left unactuated.
//
//   urdf_dynamics [file.urdf] [--floating]
//
// Without arguments it uses the 7-DoF arm shipped in models/. --floating
// attaches the root link to the world by a floating joint (for robots with a
// free base, such as models/humanoid.urdf).
#include <cstdio>
#include <iostream>
#include <string>

#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"

int main(int argc, char** argv) {
  std::string path = std::string(TERN_MODELS_DIR) + "/arm7.urdf";
  tern::UrdfParseOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--floating") {
      options.floating_base = true;
    } else {
      path = arg;
    }
  }
  tern::UrdfModel model;
  try {
    model = tern::ParseUrdfFile(path, options);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  for (const auto& w : model.warnings)
    std::cerr << "warning: " << w.ToString() << "\n";
  const tern::RigidBodyTree<double>& tree = model.tree;
  std::printf("robot '%s': %d bodies, nq = %d, nv = %d, mass %.3f kg\n",
              tree.name().c_str(), tree.num_bodies() - 1, tree.num_positions(),
              tree.num_velocities(), tree.total_mass());
  for (const auto& b : tree.bodies()) {
    if (b.parent < 0) continue;
    std::printf("  %-24s %-9s joint '%s' (parent '%s')\n", b.name.c_str(),
                tern::JointTypeName(b.joint.type), b.joint.name.c_str(),
                tree.body(b.parent).name.c_str());
  }

  // The data: a cache sized once; no algorithm below allocates.
  tern::KinematicsCache<double> cache(tree);
  const tern::VectorX<double> q = tree.GetZeroConfiguration();
  const tern::VectorX<double> v =
      tern::VectorX<double>::Zero(tree.num_velocities());
  const tern::VectorX<double> tau =
      tern::VectorX<double>::Zero(tree.num_velocities());

  const Eigen::IOFormat fmt(4, 0, " ", "\n", "  [", "]");
  std::cout << "\nmass matrix H(q0):\n"
            << tern::MassMatrix(tree, &cache, q).format(fmt) << "\n";
  std::cout << "\ngravity torques C(q0, 0) (what holds the robot still):\n"
            << tern::BiasTerm(tree, &cache, q, v).transpose().format(fmt)
            << "\n";
  std::cout
      << "\naccelerations with tau = 0 (it falls):\n"
      << tern::ForwardDynamics(tree, &cache, q, v, tau).transpose().format(fmt)
      << "\n";
  tern::ForwardKinematics(tree, &cache, q);
  const Eigen::Vector3d com = tern::CenterOfMass(tree, cache);
  std::printf("\ncenter of mass at q0: [%.4f %.4f %.4f] m\n", com.x(), com.y(),
              com.z());
  return 0;
}
