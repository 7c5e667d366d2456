#pragma once
// Shared by the rigid_body benchmarks: a floating-base variant of a URDF
// and a pool of random states.
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tern/multibody/tree/kinematics.h"

namespace tern::bench {

// The URDF at `path` with a floating joint from a new "world" link to
// `root`, written to a temporary file whose path is returned.
inline std::string FloatingVariant(const std::string& path,
                                   const std::string& root) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string xml = ss.str();
  const auto pos = xml.find('>', xml.find("<robot"));
  xml.insert(pos + 1,
             "\n  <link name=\"world\"/>\n  <joint name=\"floating_base\" "
             "type=\"floating\"><parent link=\"world\"/><child link=\"" +
                 root + "\"/></joint>");
  const auto out =
      std::filesystem::temp_directory_path() /
      ("tern_bench_" + std::filesystem::path(path).filename().string());
  std::ofstream(out) << xml;
  return out.string();
}

// `pool` random states (q with unit quaternions; v, vdot, tau in [-1, 1]).
struct StatePool {
  std::vector<VectorX<double>> q, v, a, tau;
};
inline StatePool RandomStates(const RigidBodyTree<double>& tree, int pool) {
  StatePool s;
  std::mt19937 gen(1);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int nq = tree.num_positions(), nv = tree.num_velocities();
  for (int k = 0; k < pool; ++k) {
    VectorX<double> q(nq), v(nv), a(nv), tau(nv);
    for (int i = 0; i < nq; ++i) q(i) = u(gen);
    for (int i = 0; i < nv; ++i) v(i) = u(gen), a(i) = u(gen), tau(i) = u(gen);
    NormalizeQuaternions(tree, &q);
    s.q.push_back(q);
    s.v.push_back(v);
    s.a.push_back(a);
    s.tau.push_back(tau);
  }
  return s;
}

}  // namespace tern::bench
