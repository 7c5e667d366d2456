// Prints the rigid-body results of Tern's C++ API for a URDF model at a
// state given on the command line, as hexadecimal floats (exact), one
// "name v0 v1 ..." line per result. python/tests/test_multibody.py computes
// the same through the bindings and compares bit for bit.
//   tern_python_reference <urdf> <q...> -- <v...> -- <tau...>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/multibody/tree/kinematics_cache.h"

namespace {

void Print(const char* name, const double* x, long n) {
  std::printf("%s", name);
  for (long i = 0; i < n; ++i) std::printf(" %a", x[i]);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s urdf q... -- v... -- tau...\n", argv[0]);
    return 2;
  }
  std::vector<std::vector<double>> parts(1);
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--") {
      parts.emplace_back();
    } else {
      parts.back().push_back(std::strtod(argv[i], nullptr));
    }
  }
  if (parts.size() != 3) {
    std::fprintf(stderr, "expected q -- v -- tau\n");
    return 2;
  }
  using tern::VectorX;
  const tern::UrdfModel model = tern::ParseUrdfFile(argv[1]);
  const auto& tree = model.tree;
  tern::KinematicsCache<double> cache(tree);
  const Eigen::Map<const Eigen::VectorXd> qm(parts[0].data(), parts[0].size());
  const Eigen::Map<const Eigen::VectorXd> vm(parts[1].data(), parts[1].size());
  const Eigen::Map<const Eigen::VectorXd> taum(parts[2].data(),
                                               parts[2].size());
  const VectorX<double> q = qm, v = vm, tau = taum;
  const int last = tree.num_bodies() - 1;
  const int frame = tree.FindFrameIndex(tree.body(last).name);

  const Eigen::MatrixXd H = tern::MassMatrix(tree, &cache, q);
  Print("mass_matrix", H.data(), H.size());
  const Eigen::VectorXd vdot = tern::ForwardDynamics(tree, &cache, q, v, tau);
  Print("forward_dynamics", vdot.data(), vdot.size());
  const Eigen::VectorXd id = tern::InverseDynamics(tree, &cache, q, v, vdot);
  Print("inverse_dynamics", id.data(), id.size());
  const Eigen::VectorXd c = tern::BiasTerm(tree, &cache, q, v);
  Print("bias_term", c.data(), c.size());

  tern::ForwardKinematics(tree, &cache, q, v);
  const tern::RigidTransform<double> X =
      tern::CalcFramePose(tree, cache, frame);
  Print("pose_R", X.R.data(), 9);
  Print("pose_p", X.p.data(), 3);
  tern::Matrix6X<double> J(6, tree.num_velocities());
  tern::FrameSpatialJacobian(tree, cache, frame, &J);
  Print("frame_spatial_jacobian", J.data(), J.size());
  const Eigen::Vector3d p_FP(0.1, -0.2, 0.3);
  tern::WorldAlignedJacobian(tree, cache, frame, p_FP, &J);
  Print("world_aligned_jacobian", J.data(), J.size());
  const tern::Vector6<double> jdv =
      tern::WorldAlignedJacobianDotTimesV(tree, cache, frame, p_FP);
  Print("world_aligned_jacobian_dot_times_v", jdv.data(), 6);
  const Eigen::Vector3d com = tern::CenterOfMass(tree, cache);
  Print("center_of_mass", com.data(), 3);
  const tern::Vector6<double> h = tern::SpatialMomentumInWorld(tree, cache);
  Print("spatial_momentum_in_world", h.data(), 6);
  const double ke = tern::KineticEnergy(tree, cache);
  Print("kinetic_energy", &ke, 1);
  const double pe = tern::PotentialEnergy(tree, cache);
  Print("potential_energy", &pe, 1);
  return 0;
}
