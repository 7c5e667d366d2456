// MJCF actuators and sensors as plant elements (mjcf_elements.h) against
// MuJoCo 2.2.2 reading the same file: at random (q, v, ctrl), Tern's
// generalized actuator force equals MuJoCo's qfrc_actuator (1e-12), with
// ctrlrange and forcerange clamps acting, and the jointpos, accelerometer
// and gyro readings equal MuJoCo's sensordata (1e-11) when Tern's sensors
// are given MuJoCo's qacc (hinge and slide coordinates are equal). The
// actuators of every MuJoCo sample model (libmujoco-samples) and of
// Tern's models/ whose actuators Tern represents are checked the same way.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include "tern/integrators/explicit_rules.h"
#include "tern/multibody/geometry/geometry_model.h"
#include "tern/multibody/plant/joint_constraints.h"
#include "tern/multibody/plant/mjcf_elements.h"
#include "tern/multibody/plant/rigid_body_system.h"
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/systems/analysis/simulator.h"

namespace tern {
namespace {

// Three bodies on a hinge, a slide and a hinge (no contact), with a motor
// with gear, a position servo with gear and forcerange, and a motor and a
// position servo with ctrlranges on one joint; sites off the body origins,
// rotated.
constexpr char kModel[] = R"(<mujoco>
  <option gravity="0.5 -1 -9.81"/>
  <default><geom contype="0" conaffinity="0"/></default>
  <worldbody>
    <body name="a" pos="0 0 1" euler="10 0 0">
      <joint name="j1" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.04"/>
      <site name="s1" pos="0.3 0.02 -0.01" euler="10 20 30"/>
      <body name="b" pos="0.4 0 0">
        <joint name="j2" type="slide" axis="1 0.2 0"/>
        <geom type="box" size="0.05 0.06 0.07"/>
        <body name="c" pos="0.1 0 0">
          <joint name="j3" type="hinge" axis="0.3 0 1" pos="0.02 0 0"/>
          <geom size="0.05" pos="0.1 0 0"/>
          <site name="s2" pos="0.1 0.05 0" euler="-30 5 60"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="m1" joint="j1" gear="2.5"/>
    <position name="p2" joint="j2" kp="40" gear="1.5" forcelimited="true"
        forcerange="-3 2"/>
    <motor name="m3" joint="j3" ctrllimited="true" ctrlrange="-0.5 0.5"/>
    <position name="p3" joint="j3" kp="7" gear="0.8" ctrllimited="true"
        ctrlrange="-1 1"/>
  </actuator>
  <sensor>
    <jointpos name="q2" joint="j2"/>
    <accelerometer name="acc1" site="s1"/>
    <gyro name="gyro1" site="s1"/>
    <jointpos name="q3" joint="j3"/>
    <accelerometer name="acc2" site="s2"/>
    <gyro name="gyro2" site="s2"/>
  </sensor>
</mujoco>)";

struct MjDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
  void operator()(mjData* d) const { mj_deleteData(d); }
};

// The MJCF files of libmujoco-samples and of Tern's models/, sorted.
std::vector<std::string> SampleFiles() {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const char* root : {"/usr/share/mujoco/model", TERN_MODELS_DIR}) {
    if (!fs::exists(root)) continue;
    for (const auto& f : fs::recursive_directory_iterator(root)) {
      if (f.path().extension() == ".xml") files.push_back(f.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A sample file as both engines read it: MuJoCo's compiled model and
// Tern's (meshes and the mass-matrix check skipped); nullopt if either
// refuses the file.
struct Sample {
  std::unique_ptr<mjModel, MjDeleter> mj;
  MjcfModel tern;
};
std::optional<Sample> LoadSample(const std::string& path) {
  char err[1000] = "";
  Sample s;
  s.mj.reset(mj_loadXML(path.c_str(), nullptr, err, sizeof(err)));
  if (s.mj == nullptr) return std::nullopt;
  try {
    MjcfParseOptions options;
    options.require_meshes = false;
    options.load_collision_meshes = false;
    options.check_mass_matrix = false;
    s.tern = ParseMjcfFile(path, options);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return s;
}

// MuJoCo's compiled model of an MJCF text (written to a temporary file:
// mj_loadXML reads files).
std::unique_ptr<mjModel, MjDeleter> LoadMujocoString(const std::string& xml) {
  const std::string path =
      "/tmp/tern_mjcf_" + std::to_string(getpid()) + ".xml";
  std::ofstream(path) << xml;
  char err[1000] = "";
  std::unique_ptr<mjModel, MjDeleter> m(
      mj_loadXML(path.c_str(), nullptr, err, sizeof(err)));
  std::remove(path.c_str());
  EXPECT_NE(m, nullptr) << err;
  return m;
}

TEST(MjcfElementsMujoco, ActuatorForcesAndSensorsMatchMujoco) {
  const std::unique_ptr<mjModel, MjDeleter> m = LoadMujocoString(kModel);
  ASSERT_NE(m, nullptr);
  std::unique_ptr<mjData, MjDeleter> d(mj_makeData(m.get()));

  const MjcfModel model = ParseMjcfString(kModel);
  const RigidBodyTree<double>& tree = model.tree;
  ASSERT_EQ(tree.num_positions(), m->nq);
  ASSERT_EQ(tree.num_velocities(), m->nv);
  const auto act = MakeMjcfActuators(tree, model.actuators);
  ASSERT_EQ(act->num_inputs(), m->nu);
  const auto sensors = MakeMjcfSensors(tree, model.sensors);
  ASSERT_EQ(static_cast<int>(sensors.size()), m->nsensor);

  const int n = m->nv;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> U(-1.5, 1.5);
  int ctrl_clamps = 0, force_clamps = 0;
  double worst_tau = 0, worst_sensor = 0;
  for (int trial = 0; trial < 50; ++trial) {
    VectorX<double> q(n), v(n), vdot(n), ctrl(m->nu);
    for (int i = 0; i < n; ++i) q[i] = U(rng), v[i] = 2 * U(rng);
    for (int k = 0; k < m->nu; ++k) ctrl[k] = U(rng);
    mju_copy(d->qpos, q.data(), n);
    mju_copy(d->qvel, v.data(), n);
    mju_copy(d->ctrl, ctrl.data(), m->nu);
    mj_forward(m.get(), d.get());

    KinematicsCache<double> cache(tree);
    for (int i = 0; i < n; ++i) vdot[i] = d->qacc[i];
    ForwardKinematics(tree, &cache, q, v, vdot);
    Matrix6X<double> J(6, n);
    ForceElementInputs<double> in;
    in.tree = &tree;
    in.cache = &cache;
    in.q = &q;
    in.v = &v;
    in.u = ctrl.data();
    in.J = &J;
    VectorX<double> tau(n);
    act->CalcGeneralizedForce(in, &tau);
    for (int i = 0; i < n; ++i) {
      EXPECT_NEAR(tau[i], d->qfrc_actuator[i], 1e-12)
          << "dof " << i << " trial " << trial;
      worst_tau = std::max(worst_tau, std::abs(tau[i] - d->qfrc_actuator[i]));
    }
    VectorX<double> force(m->nu);
    std::vector<int> cc(m->nu), fc(m->nu);
    act->CalcActuatorForces(q, ctrl.data(), force.data(), cc.data(), fc.data());
    for (int k = 0; k < m->nu; ++k) {
      EXPECT_NEAR(force[k], d->actuator_force[k], 1e-12) << "actuator " << k;
      ctrl_clamps += cc[k];
      force_clamps += fc[k];
    }

    SensorInputs<double> sin;
    sin.tree = &tree;
    sin.cache = &cache;
    sin.q = &q;
    sin.v = &v;
    sin.vdot = &vdot;
    sin.J = &J;
    int offset = 0;
    for (int s = 0; s < m->nsensor; ++s) {
      ASSERT_EQ(sensors[s]->num_outputs(), m->sensor_dim[s]);
      ASSERT_EQ(m->sensor_adr[s], offset);
      VectorX<double> y(sensors[s]->num_outputs());
      sensors[s]->CalcOutput(sin, y.data());
      for (int i = 0; i < y.size(); ++i) {
        EXPECT_NEAR(y[i], d->sensordata[offset + i], 1e-11)
            << "sensor " << sensors[s]->name() << " entry " << i;
        worst_sensor =
            std::max(worst_sensor, std::abs(y[i] - d->sensordata[offset + i]));
      }
      offset += static_cast<int>(y.size());
    }
  }
  std::printf("|tau - qfrc_actuator| %.1e, |y - sensordata| %.1e\n", worst_tau,
              worst_sensor);
  // Both clamps acted in some trials and not in others.
  EXPECT_GT(ctrl_clamps, 5);
  EXPECT_GT(force_clamps, 5);
  EXPECT_LT(force_clamps, 50);
}

// Every sample whose actuators are all motor or position on joints (so
// Tern keeps each, in MuJoCo's order): qfrc_actuator at random hinge and
// slide positions and ctrl. Actuators touch only their joint's dof, whose
// index is the same in both (a free joint's six dofs are reordered within
// their block, where both apply zero).
TEST(MjcfElementsMujoco, SampleModelActuatorsMatchMujoco) {
  const std::vector<std::string> files = SampleFiles();
  int checked = 0;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> U(-1, 1);
  for (const std::string& path : files) {
    std::optional<Sample> sample = LoadSample(path);
    if (!sample || sample->mj->nu == 0) continue;
    const auto& m = sample->mj;
    const MjcfModel& model = sample->tern;
    if (static_cast<int>(model.actuators.size()) != m->nu ||
        model.tree.num_velocities() != m->nv) {
      std::printf(
          "%s: skipped (%d of %d actuators are motor/position on a "
          "joint)\n",
          path.c_str(), static_cast<int>(model.actuators.size()), m->nu);
      continue;
    }
    SCOPED_TRACE(path);
    const auto act = MakeMjcfActuators(model.tree, model.actuators);
    std::unique_ptr<mjData, MjDeleter> d(mj_makeData(m.get()));
    const int nq = m->nq, nv = m->nv;
    double worst = 0;
    for (int trial = 0; trial < 5; ++trial) {
      VectorX<double> q(nq), v = VectorX<double>::Zero(nv), ctrl(m->nu);
      for (int i = 0; i < nq; ++i) q[i] = m->qpos0[i];
      for (int j = 0; j < m->njnt; ++j) {
        if (m->jnt_type[j] == mjJNT_HINGE || m->jnt_type[j] == mjJNT_SLIDE) {
          q[m->jnt_qposadr[j]] += U(rng);
        }
      }
      for (int k = 0; k < m->nu; ++k) ctrl[k] = 2 * U(rng);
      mju_copy(d->qpos, q.data(), nq);
      mju_zero(d->qvel, nv);
      mju_copy(d->ctrl, ctrl.data(), m->nu);
      mj_forward(m.get(), d.get());
      KinematicsCache<double> cache(model.tree);
      ForceElementInputs<double> in;
      in.tree = &model.tree;
      in.cache = &cache;
      in.q = &q;
      in.v = &v;
      in.u = ctrl.data();
      VectorX<double> tau(nv);
      act->CalcGeneralizedForce(in, &tau);
      for (int i = 0; i < nv; ++i) {
        worst = std::max(worst, std::abs(tau[i] - d->qfrc_actuator[i]));
      }
    }
    std::printf("%s: %d actuators, |tau - qfrc_actuator| %.1e\n", path.c_str(),
                m->nu, worst);
    EXPECT_LT(worst, 1e-12);
    ++checked;
  }
  // The MuJoCo samples with motors (humanoid, ...) and models/servo_arm.xml.
  EXPECT_GE(checked, 2);
}

// models/servo_arm.xml simulated for 4 s from qpos0 with ctrl [0, 1.2]
// by MuJoCo (mj_step, its Euler at the file's 1 ms) and by both Tern
// plants through MjcfActuators: the servos settle the arm where they
// balance gravity, and the final positions agree (the integrators differ,
// MuJoCo's Euler being implicit in the joint damping; the rest state does
// not depend on them).
TEST(MjcfElementsMujoco, ServoArmSettlesWhereMujocoDoes) {
  const std::string path = std::string(TERN_MODELS_DIR) + "/servo_arm.xml";
  char err[1000] = "";
  std::unique_ptr<mjModel, MjDeleter> m(
      mj_loadXML(path.c_str(), nullptr, err, sizeof(err)));
  ASSERT_NE(m, nullptr) << err;
  std::unique_ptr<mjData, MjDeleter> d(mj_makeData(m.get()));
  const double ctrl[2] = {0, 1.2}, duration = 4;
  mju_copy(d->ctrl, ctrl, 2);
  while (d->time < duration - 1e-9) mj_step(m.get(), d.get());
  const Eigen::Vector2d q_mj(d->qpos[0], d->qpos[1]);

  const MjcfModel model = ParseMjcfFile(path);
  const auto act = MakeMjcfActuators(model.tree, model.actuators);
  const VectorX<double> u = Eigen::Map<const Eigen::Vector2d>(ctrl);
  const VectorX<double> zero = VectorX<double>::Zero(2);
  {
    RigidBodySystem<double> plant(model.tree, {act});
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(), zero, zero);
    plant.get_input_port("mjcf_actuators")
        .FixValue(&sim.get_mutable_context(), u);
    sim.reset_integrator<RK4>(1e-3);
    sim.AdvanceTo(duration);
    const VectorX<double> q =
        sim.get_context().get_continuous_state_vector().head(2);
    std::printf("continuous: q %.6f %.6f, MuJoCo %.6f %.6f\n", q[0], q[1],
                q_mj[0], q_mj[1]);
    EXPECT_LT((q - q_mj).norm(), 1e-6);
  }
  {
    TimeSteppingRigidBodySystem plant(model.tree,
                                      GeometryModel(model.tree.num_bodies()),
                                      m->opt.timestep, {act});
    Simulator<double> sim(plant);
    plant.SetPositionsAndVelocities(&sim.get_mutable_context(), zero, zero);
    plant.get_input_port("mjcf_actuators")
        .FixValue(&sim.get_mutable_context(), u);
    sim.AdvanceTo(duration);
    const VectorX<double> q = plant.GetState(sim.get_context()).head(2);
    EXPECT_LT((q - q_mj).norm(), 1e-6);
  }
  // Not at the targets: gravity makes them sag.
  EXPECT_GT(std::abs(q_mj[0]), 1e-3);
}

// The joint limits and joint friction both plants read
// (joint_constraints.h) against MuJoCo's compiled model: in every sample
// Tern loads (libmujoco-samples and models/), each hinge or slide joint
// MuJoCo limits is a LimitedJoint on the same dof with MuJoCo's range
// (radians, after its compiler's angle conversion), and no other joint is;
// both plants constrain that many joints. The samples carry no
// frictionloss, so a model of ours adds it to a hinge, a slide and a ball
// joint: each dof with MuJoCo's dof_frictionloss > 0 is a FrictionDof with
// that force.
void ExpectJointElementsMatchMujoco(const mjModel& m, const MjcfModel& model) {
  const RigidBodyTree<double>& tree = model.tree;
  const auto limits = LimitedJoints(tree, "test");
  int limited = 0;
  for (int j = 0; j < m.njnt; ++j) {
    if (m.jnt_type[j] != mjJNT_HINGE && m.jnt_type[j] != mjJNT_SLIDE) continue;
    const int dof = m.jnt_dofadr[j];
    const auto it =
        std::find_if(limits.begin(), limits.end(),
                     [dof](const LimitedJoint& l) { return l.dof == dof; });
    if (!m.jnt_limited[j]) {
      EXPECT_EQ(it, limits.end()) << "joint at dof " << dof;
      continue;
    }
    ++limited;
    ASSERT_NE(it, limits.end()) << "joint at dof " << dof;
    EXPECT_NEAR(it->lower, m.jnt_range[2 * j], 1e-12) << it->name;
    EXPECT_NEAR(it->upper, m.jnt_range[2 * j + 1], 1e-12) << it->name;
  }
  EXPECT_EQ(static_cast<int>(limits.size()), limited);
  EXPECT_EQ(RigidBodySystem<double>(tree).num_limited_joints(), limited);
  const TimeSteppingRigidBodySystem discrete(
      tree, GeometryModel(tree.num_bodies()), 1e-3);
  int discrete_limited = 0;
  for (const auto& c : discrete.constraints()) {
    if (auto* l = dynamic_cast<const TimeSteppingJointLimits*>(c.get())) {
      discrete_limited += l->num_limited_joints();
    }
  }
  EXPECT_EQ(discrete_limited, limited);

  const auto friction = JointFrictionDofs(tree, "test");
  int with_friction = 0;
  for (int i = 0; i < m.nv; ++i) with_friction += m.dof_frictionloss[i] > 0;
  EXPECT_EQ(static_cast<int>(friction.size()), with_friction);
  for (const FrictionDof& f : friction) {
    EXPECT_NEAR(f.force, m.dof_frictionloss[f.dof], 1e-12) << "dof " << f.dof;
  }
}

TEST(MjcfElementsMujoco, SampleModelJointLimitsMatchMujoco) {
  int checked = 0, with_limits = 0;
  for (const std::string& path : SampleFiles()) {
    std::optional<Sample> sample = LoadSample(path);
    if (!sample) continue;
    const auto& m = sample->mj;
    const MjcfModel& model = sample->tern;
    if (model.tree.num_velocities() != m->nv) continue;
    SCOPED_TRACE(path);
    ExpectJointElementsMatchMujoco(*m, model);
    ++checked;
    for (int j = 0; j < m->njnt; ++j) {
      if (m->jnt_limited[j]) {
        ++with_limits;
        break;
      }
    }
  }
  std::printf("joint limits checked on %d models (%d with limits)\n", checked,
              with_limits);
  EXPECT_GE(checked, 5);
  EXPECT_GE(with_limits, 3);
}

TEST(MjcfElementsMujoco, JointFrictionMatchesMujoco) {
  constexpr char kFriction[] = R"(<mujoco>
  <compiler angle="degree"/>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="h" type="hinge" axis="0 1 0" frictionloss="0.3"
          limited="true" range="-45 90"/>
      <geom size="0.1" mass="1"/>
      <body name="b" pos="0.3 0 0">
        <joint name="s" type="slide" axis="1 0 0" frictionloss="2"
            limited="true" range="-0.1 0.2"/>
        <geom size="0.05" mass="0.5"/>
        <body name="c" pos="0.2 0 0">
          <joint name="ball" type="ball" frictionloss="0.05"/>
          <geom type="box" size="0.05 0.1 0.02" mass="0.3"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>)";
  const std::unique_ptr<mjModel, MjDeleter> m = LoadMujocoString(kFriction);
  ASSERT_NE(m, nullptr);
  const MjcfModel model = ParseMjcfString(kFriction);
  ASSERT_EQ(model.tree.num_velocities(), m->nv);
  ExpectJointElementsMatchMujoco(*m, model);
  EXPECT_EQ(JointFrictionDofs(model.tree, "test").size(), 5u);
  EXPECT_EQ(LimitedJoints(model.tree, "test").size(), 2u);
}

}  // namespace
}  // namespace tern
