#pragma once
// The shipped quadruped (models/quadruped.urdf) set up to stand under joint
// PD control, shared by the time-stepping example, the plant tests and the
// plant benchmark: every leg at hip abduction 0, hip flexion 0.6 rad and
// knee -1.2 rad (feet under the hips), the base floating at a given height,
// the robot's collision geometry (pairs touching in that pose excluded) and
// a ground half-space. ConnectJointPd wires a PidController from a plant's
// "state" output to its "motors" input.
#include <cmath>
#include <string>
#include <vector>

#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/systems/framework/diagram_builder.h"
#include "tern/systems/primitives/constant_vector_source.h"
#include "tern/systems/primitives/matrix_gain.h"
#include "tern/systems/primitives/pid_controller.h"

namespace tern {

struct QuadrupedStance {
  RigidBodyTree<double> tree;
  std::vector<std::string> joints;  // the 12 leg joints, fl fr hl hr
  VectorX<double> x_des;            // (24) their target angles, zero rates
  MatrixX<double> select;           // (24 x nq + nv): x_des's entries of [q; v]
  VectorX<double> q0;               // the stance, base at the given height
  GeometryModel geometry;           // the robot's, plus "ground"
};

// Base height (m) at which the feet (2 links of 0.25 m at 0.6 rad, foot
// radius 0.02 m) just touch the ground in the stance.
inline double QuadrupedFeetOnGroundHeight() {
  return 2 * 0.25 * std::cos(0.6) + 0.02;
}

inline QuadrupedStance MakeQuadrupedStance(const std::string& models_dir,
                                           double base_height,
                                           const ContactProperties& ground) {
  UrdfParseOptions options;
  options.floating_base = true;
  QuadrupedStance s{ParseUrdfFile(models_dir + "/quadruped.urdf", options).tree,
                    {},
                    VectorX<double>::Zero(24),
                    MatrixX<double>(),
                    VectorX<double>(),
                    GeometryModel()};
  const int nq = s.tree.num_positions(), nv = s.tree.num_velocities();
  s.q0 = s.tree.GetZeroConfiguration();
  s.select = MatrixX<double>::Zero(24, nq + nv);
  for (const char* leg : {"fl", "fr", "hl", "hr"}) {
    for (const char* j : {"_hip_abduction", "_hip_flexion", "_knee"}) {
      const std::string joint = std::string(leg) + j;
      const double angle = std::string(j) == "_hip_flexion" ? 0.6
                           : std::string(j) == "_knee"      ? -1.2
                                                            : 0.0;
      const RigidBody<double>& b =
          s.tree.body(s.tree.FindJointBodyIndex(joint));
      const int i = static_cast<int>(s.joints.size());
      s.q0[b.position_start] = angle;
      s.x_des[i] = angle;
      s.select(i, b.position_start) = 1;
      s.select(12 + i, nq + b.velocity_start) = 1;
      s.joints.push_back(joint);
    }
  }
  s.q0[2] = base_height;
  s.geometry = GeometryModel::FromTree(s.tree);
  KinematicsCache<double> cache(s.tree);
  ForwardKinematics(s.tree, &cache, s.q0);
  ExcludeBodyPairsInContact(&s.geometry, cache.X_WB);
  Geometry g;
  g.name = "ground";
  g.shape = Shape::HalfSpace();
  g.properties = ground;
  s.geometry.AddGeometry(g);
  return s;
}

// plant "state" -> select -> PID(kp, 0, kd) <- x_des; PID -> plant "motors".
template <class Plant>
void ConnectJointPd(DiagramBuilder<double>* builder, Plant* plant,
                    const MatrixX<double>& select, const VectorX<double>& x_des,
                    double kp, double kd) {
  const int n = static_cast<int>(x_des.size()) / 2;
  auto* pick = builder->AddSystem<MatrixGain<double>>(select);
  auto* pd = builder->AddSystem<PidController<double>>(
      VectorX<double>::Constant(n, kp), VectorX<double>::Zero(n),
      VectorX<double>::Constant(n, kd));
  auto* target = builder->AddSystem<ConstantVectorSource<double>>(x_des);
  builder->Connect(plant->get_output_port("state"), pick->get_input_port());
  builder->Connect(pick->get_output_port(),
                   pd->get_input_port_estimated_state());
  builder->Connect(target->get_output_port(),
                   pd->get_input_port_desired_state());
  builder->Connect(pd->get_output_port_control(),
                   plant->get_actuator_input_port("motors"));
}

}  // namespace tern
