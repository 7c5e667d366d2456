#pragma once
// Whether a fixed-step integrator is stable on the continuous plant's
// compliant contact, checked before a run. A contact point of effective
// mass m (1 / the largest eigenvalue of J H^-1 J^T, J the point's
// translational Jacobian, H the mass matrix) on a spring k and dashpot b is
// the oscillator m x'' + b x' + k x = 0; an explicit rule at step h is
// stable on it when the eigenvalues of its one-step map have modulus <= 1.
// The map is found by stepping the rule itself (the integrator made by
// name) from the two unit states, so every fixed-step rule is checked by
// its own arithmetic (RK4: h omega <= 2.83 without damping). Light links
// are where it breaks: DRC-Hubo's 12 g finger links on the default 1e6 N/m
// diverged under RK4 at 0.5 ms with no other sign than a stalled run.
//
// The estimate: each geometry on a moving body, at the corners of its
// world bounding box at q (the farthest points a contact can reach, so the
// lightest effective mass of the body's surface, within the box's excess),
// against the stiffest geometry it may touch (not excluded from it; springs
// and dashpots in series, as CompliantContact combines them). Error-controlled
// and implicit rules are not checked (they choose or tolerate the step), nor
// trees of more than kMaxCheckedVelocities dofs (a dense H^-1).
#include <optional>
#include <string>

#include "tern/common/eigen_types.h"
#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern {

inline constexpr int kMaxCheckedVelocities = 300;

struct ContactStabilityFinding {
  std::string body, geometry;
  double effective_mass{0};  // kg, at the worst corner
  double stiffness{0};       // N/m, in series with the partner
  double dissipation{0};     // N s/m, in series with the partner
  double amplification{0};   // spectral radius of the one-step map at h, > 1
  double stable_step{0};     // s, the largest stable step (bisection)
};

// The contact (geometry on a moving body) that needs the smallest step
// under the fixed-step rule `integrator` (a MakeIntegrator name) if any is
// unstable at step h;
// nullopt when every one is stable or the check does not apply (see above).
// Hunt-Crossley contacts (`hunt_crossley`) are checked as undamped springs.
// Throws std::invalid_argument naming the integrator if the name is
// unknown, h is not positive and finite, or q has the wrong size.
std::optional<ContactStabilityFinding> CheckContactStability(
    const RigidBodyTree<double>& tree, const GeometryModel& geometry,
    const VectorX<double>& q, const std::string& integrator, double h,
    bool hunt_crossley = false);

// The spectral radius of `integrator`'s one-step map at step h on the
// oscillator m x'' + b x' + k x = 0 (m > 0, k, b >= 0).
double OscillatorAmplification(const std::string& integrator, double h,
                               double m, double k, double b);

}  // namespace tern
