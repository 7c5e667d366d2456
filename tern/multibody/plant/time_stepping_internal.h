#pragma once
// Internal to multibody/plant: the row storage shared by the time-stepping
// constraints (time_stepping_constraint_force.cc), which append rows, and
// the plant (time_stepping_rigid_body_system.cc), which builds their
// Jacobians per subtree and solves them.
#include <cmath>
#include <cstdint>
#include <vector>

#include "tern/common/eigen_types.h"
#include "tern/solvers/projected_gauss_seidel.h"

namespace tern {
namespace internal {

using solvers::RowKind;

// One row group: a contact (3 rows: normal, t1, t2), a joint limit (1 row)
// or a bilateral constraint (m <= 6 rows). The base holds what the solvers
// read (kind, rows, mu, the subtrees and Jacobian offsets, cfm, b, p:
// solvers/projected_gauss_seidel.h); the plant fills the subtrees and the
// Jacobian pool.
struct RowGroup : solvers::JacobianRowGroup {
  int constraint{0};         // index of the constraint in the plant
  int key1{0}, key2{0};      // warm-start key: (ga, gb), (dof, 0), (0, 0)
  int body_a{0}, body_b{0};  // contact bodies
  Vector3<double> n, t1, t2, p_WA, p_WB;  // contact frame and points, world
  double phi{0};                          // m (or rad)
  int dof{0};                             // limit: velocity index
  double sign{1};                         // limit: +1 lower, -1 upper
  int bilateral{0};  // bilateral: offset of J (rows x nv) and b in the pool
  // Under the convex solver the (M_t^-1 J_t^T)^T of an articulated subtree
  // and the local Delassus blocks are formed only when asked for (a pile
  // solved by PGS, the position correction): the convex solve does not use
  // them.
  bool deferred{false};
  int island{-1};
  // A speculative contact that both the free motion and the last
  // velocities separate is left out of the island graph
  // (TimeSteppingStepper::BuildIslands) unless `joined`: set when the
  // answer of the islands it would join does not separate it.
  bool left_out{false}, joined{false};
  double pp{0};  // normal pseudo-impulse of the position correction
  // Per side, the columns of its subtree's rows that may be nonzero:
  // [0, ncols[e]). A subtree's dofs are numbered parents first, so a
  // contact on an articulated subtree touches its bodies' ancestors, all
  // below the deepest body's last dof; the scans of a contact's rows
  // (authority, contact velocities, packing) stop there.
  int ncols[2]{0, 0};
};

// True if a contact's velocity c = (normal, t1, t2) separates it at any
// compliance (SAP's separation, c_n > mu |c_t|). A square root, not hypot:
// velocities are far from overflow, and this runs for every candidate row.
inline bool SeparatingVelocity(const double* c, double mu) {
  return c[0] > mu * std::sqrt(c[1] * c[1] + c[2] * c[2]);
}

struct TimeSteppingRowStorage {
  std::vector<RowGroup> groups;
  std::vector<double> bilateral_J;  // (rows x nv) per bilateral group
  std::vector<double> bilateral_b;  // (rows) per bilateral group
  int nv{0};
  void Clear() {
    groups.clear();
    bilateral_J.clear();
    bilateral_b.clear();
  }
};

}  // namespace internal
}  // namespace tern
