// Loads robots written in MJCF and SDFormat through one call,
// ParseModelFile, which picks the parser by extension or root element, and
// prints what each file holds: bodies, degrees of freedom, mass, the
// warnings (what Tern left out), and the first diagonal entries of the mass
// matrix in the configuration the file is written in.
//
//   model_formats [file.xml|file.sdf|file.urdf ...]
//
// Without arguments it loads MuJoCo's sample humanoid (libmujoco-samples) and
// dart-doc's Atlas (.sdf), where Debian installs them.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "tern/multibody/parsing/model_file.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics_cache.h"

int main(int argc, char** argv) {
  std::vector<std::string> files(argv + 1, argv + argc);
  if (files.empty()) {
    files = {"/usr/share/mujoco/model/humanoid/humanoid.xml",
             "/usr/share/doc/dart/data/sdf/atlas/atlas_v3_no_head.sdf"};
  }
  int status = 0;
  for (const std::string& file : files) {
    if (!std::filesystem::exists(file)) {
      std::printf("%s: not installed, skipped\n", file.c_str());
      continue;
    }
    try {
      const tern::ModelFile model = tern::ParseModelFile(file);
      const tern::RigidBodyTree<double>& tree = model.tree;
      std::printf("%s (%s): %d bodies, nq = %d, nv = %d, mass %.3f kg\n",
                  file.c_str(), tern::ModelFormatName(model.format),
                  tree.num_bodies() - 1, tree.num_positions(),
                  tree.num_velocities(), tree.total_mass());
      std::printf("  %zu warnings", model.warnings.size());
      if (!model.warnings.empty()) {
        std::printf(", the first: %s", model.warnings[0].ToString().c_str());
      }
      std::printf("\n");
      if (model.format == tern::ModelFormat::kMjcf) {
        std::printf("  %zu actuators, timestep %g s\n",
                    model.mjcf.actuators.size(), model.mjcf.timestep);
      }
      tern::KinematicsCache<double> cache(tree);
      const tern::MatrixX<double>& H = tern::MassMatrix(tree, &cache, model.q0);
      std::printf("  H(q0) diagonal:");
      for (int i = 0; i < std::min<int>(8, tree.num_velocities()); ++i) {
        std::printf(" %.4g", H(i, i));
      }
      std::printf(" ...\n");
    } catch (const tern::ModelParseError& e) {
      std::fprintf(stderr, "%s\n", e.what());
      status = 1;
    }
  }
  return status;
}
