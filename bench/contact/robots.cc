// Robot scenes of the contact benchmark: Tern's TimeSteppingRigidBodySystem
// against MuJoCo 2.2.2 on the same URDF text, h = 1 ms, 2000 steps (2 s;
// 4 s for the humanoid, whose limbs take about 3 s to come to rest).
//   quadruped    the shipped quadruped (models/quadruped.urdf) standing under
//                joint PD (kp 300 N m/rad, kd 10 N m s/rad, the stance of
//   quadrupeds4, quadrupeds16   4 and 16 of them on a 1 m grid
//   humanoid     models/humanoid.urdf falling limp from standing (all joints
//                at 0, feet on the ground, no torque)
// The scene's URDF is built in memory: a "world" link, then each robot's
// links and joints with names prefixed "r<i>_" and a floating joint from the
// world to its root. Tern parses it with ParseUrdfString. MuJoCo 2.2.2 reads
// the same text with mj_loadXML (its URDF importer turns the floating joint
// into a free joint, welds fixed-joint links into their parent as Tern does,
// reads <dynamics damping>, <limit> as a joint range, and gives every
// collision geom contype = conaffinity = 1, friction 1 0.005 0.0001); the
// model is then saved as MJCF (mj_saveLastXML), the ground plane and the
// body pairs Tern excludes (ExcludeBodyPairsInContact on the start pose,
// e.g. a thigh's cylinder inside the base's box) are added as <contact>
// <exclude>, and the edited MJCF is loaded again (with the URDF model's
// numbers copied back: the saved MJCF has 6 significant digits). Both engines
// thus get the same bodies, inertias, joint damping (no armature in these
// URDFs) and collision shapes (boxes, cylinders, spheres: the feet are spheres
// of 2 cm in both); friction 1 everywhere (MuJoCo's default, set on Tern's
// ground too). MuJoCo runs with its default options (printed), Tern with its
// default options (`tern`) and with Solver::kLemke (`tern_lemke`). For
// reference (not the goal's peer), `mujoco_elliptic` is MuJoCo with
// opt.cone = elliptic: the round Coulomb cone that Tern solves, where
// MuJoCo's default pyramidal cone makes its cost piecewise quadratic (a
// Newton step is exact once the active set is right). PD
// torques are computed from the state before each step, clamped to the
// URDF effort limits, and given to MuJoCo in qfrc_applied and to Tern
// through its "motors" input (a TorqueSource, InputPort::FixValue).
// CheckRobotMassMatrices compares the mass matrices at a random state.
#include <mujoco/mujoco.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/contact/peers.h"
#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/plant/actuator.h"
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"
#include "tern/systems/analysis/simulator.h"

namespace tern::bench::contact {
namespace {

constexpr double kKp = 300, kKd = 10;

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("bench/contact: cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct RobotScene {
  std::string name;
  std::string urdf;  // the whole scene
  int copies = 1;
  int steps = 2000;                    // of 1 ms
  bool quadruped = true;               // PD stance; else a limp humanoid
  std::vector<std::string> pd_joints;  // the leg joints of every copy
  std::vector<double> pd_target;       // their target angles
  // > 0: the joints (not the floating base) start with velocities of 1e-3
  // rad/s times a number in [-1, 1] drawn from std::mt19937(fall_seed): one
  // of the perturbed falls (the humanoid's fall is chaotic; see
  // RobotScenes).
  unsigned fall_seed = 0;
};

// Copy i's floating joint. (Built with append: GCC 12 warns, wrongly,
// -Wrestrict on "r" + std::to_string(i).)
std::string FloatingJoint(int i) {
  std::string name = "r";
  name += std::to_string(i);
  name += "_float";
  return name;
}

// The robot's links and joints, names prefixed.
std::string RobotBody(const std::string& file, const std::string& prefix) {
  const std::string xml = ReadText(file);
  const auto open = xml.find('>', xml.find("<robot")) + 1;
  const auto close = xml.rfind("</robot>");
  static const std::regex kName(R"(\b(name|link)=")");
  return std::regex_replace(xml.substr(open, close - open), kName,
                            "$1=\"" + prefix);
}

RobotScene MakeRobotScene(const std::string& name, int copies, bool quadruped) {
  // The humanoid's limbs take about 3 s to stop moving: 4 s for it.
  RobotScene s{name, "", copies, quadruped ? 2000 : 4000, quadruped, {}, {}};
  const std::string file = std::string(TERN_MODELS_DIR) +
                           (quadruped ? "/quadruped.urdf" : "/humanoid.urdf");
  std::string& x = s.urdf;
  x = "<?xml version=\"1.0\"?>\n<robot name=\"" + name +
      "\">\n<link name=\"world\"/>\n";
  for (int i = 0; i < copies; ++i) {
    const std::string p = "r" + std::to_string(i) + "_";
    x += RobotBody(file, p);
    x += "<joint name=\"" + p + "float\" type=\"floating\"><parent " +
         "link=\"world\"/><child link=\"" + p +
         (quadruped ? "base" : "pelvis") + "\"/></joint>\n";
    if (!quadruped) continue;
    for (const char* leg : {"fl", "fr", "hl", "hr"}) {
      for (const char* j : {"_hip_abduction", "_hip_flexion", "_knee"}) {
        s.pd_joints.push_back(p + leg + j);
        s.pd_target.push_back(std::string(j) == "_hip_flexion" ? 0.6
                              : std::string(j) == "_knee"      ? -1.2
                                                               : 0.0);
      }
    }
  }
  x += "</robot>\n";
  return s;
}

// The goal's scenes, then the humanoid's fall from 30 perturbed starts:
// the fall is chaotic (a change in round-off gives another fall, with 2.7
// to 6 Newton iterations per step), so one fall is one draw; the perturbed
// ones show the spread (main.cc prints their mean ratio apart from the
// goal's line). Six were too few: anchored friction looked 5 % dearer on
// six and is 8 % cheaper on 30 (bench/contact/README.md, 2026-11-27).
constexpr int kHumanoidFalls = 30;
const std::vector<RobotScene>& RobotScenes() {
  static const std::vector<RobotScene> kScenes = [] {
    std::vector<RobotScene> s = {MakeRobotScene("quadruped", 1, true),
                                 MakeRobotScene("quadrupeds4", 4, true),
                                 MakeRobotScene("quadrupeds16", 16, true),
                                 MakeRobotScene("humanoid", 1, false)};
    for (int k = 1; k <= kHumanoidFalls; ++k) {
      std::string name = "humanoid_fall";  // (append: see FloatingJoint)
      name += std::to_string(k);
      s.push_back(MakeRobotScene(name, 1, false));
      s.back().fall_seed = static_cast<unsigned>(k);
    }
    return s;
  }();
  return kScenes;
}

// The start velocities in Tern's order: zero, or the perturbed fall's
// (RobotScene::fall_seed; the numbers mapped to [-1, 1] by hand, so that
// every standard library draws the same).
VectorX<double> StartVelocities(const RobotScene& s,
                                const RigidBodyTree<double>& tree) {
  VectorX<double> v = VectorX<double>::Zero(tree.num_velocities());
  if (s.fall_seed == 0) return v;
  std::mt19937 rng(s.fall_seed);
  for (int b = 1; b < tree.num_bodies(); ++b) {
    const RigidBody<double>& body = tree.body(b);
    if (body.joint.type == JointType::kFloating) continue;
    for (int k = 0; k < body.num_velocities; ++k) {
      const double u = -1.0 + 2.0 * (static_cast<double>(rng()) / 4294967295.0);
      v[body.velocity_start + k] = 1e-3 * u;
    }
  }
  return v;
}

// What both engines start from: the tree, its geometry (with the pairs
// touching at the start excluded and the ground), the start state, and
// each copy's floating-joint coordinates.
struct TernModel {
  RigidBodyTree<double> tree;
  GeometryModel geometry;
  VectorX<double> q0;
  std::vector<int> base_q;  // q index of each copy's floating joint
  std::vector<int> pd_q, pd_v;
  std::vector<double> pd_limit;  // effort limits
};

TernModel MakeTernModel(const RobotScene& s) {
  TernModel m{ParseUrdfString(s.urdf, {}, "robots:" + s.name).tree,
              GeometryModel(),
              {},
              {},
              {},
              {},
              {}};
  m.q0 = m.tree.GetZeroConfiguration();
  const int side = static_cast<int>(std::ceil(std::sqrt(s.copies)));
  for (int i = 0; i < s.copies; ++i) {
    const RigidBody<double>& b =
        m.tree.body(m.tree.FindJointBodyIndex(FloatingJoint(i)));
    m.base_q.push_back(b.position_start);
    m.q0[b.position_start] = 1.0 * (i % side);
    m.q0[b.position_start + 1] = 1.0 * (i / side);
  }
  for (std::size_t j = 0; j < s.pd_joints.size(); ++j) {
    const RigidBody<double>& b =
        m.tree.body(m.tree.FindJointBodyIndex(s.pd_joints[j]));
    m.q0[b.position_start] = s.pd_target[j];
    m.pd_q.push_back(b.position_start);
    m.pd_v.push_back(b.velocity_start);
    m.pd_limit.push_back(b.joint.effort_limit);
  }
  // Feet on the ground: the lowest point of the geometry at z = 0.
  m.geometry = GeometryModel::FromTree(m.tree);
  KinematicsCache<double> cache(m.tree);
  ForwardKinematics(m.tree, &cache, m.q0);
  GeometryWorkspace ws(m.geometry);
  UpdateGeometryPoses(m.geometry, cache.X_WB, &ws);
  double lowest = 1e9;
  for (int g = 0; g < m.geometry.num_geometries(); ++g) {
    lowest = std::min(lowest, ws.aabb_lo[g].z());
  }
  for (int q : m.base_q) m.q0[q + 2] -= lowest;
  ForwardKinematics(m.tree, &cache, m.q0);
  ExcludeBodyPairsInContact(&m.geometry, cache.X_WB);
  Geometry ground;
  ground.name = "ground";
  ground.shape = Shape::HalfSpace();
  ground.properties.friction = 1.0;
  m.geometry.AddGeometry(ground);
  return m;
}

VectorX<double> PdTorque(const TernModel& m, const RobotScene& s,
                         const double* q, const double* v,
                         const std::vector<int>& iq,
                         const std::vector<int>& iv) {
  VectorX<double> tau(s.pd_joints.size());
  for (std::size_t j = 0; j < s.pd_joints.size(); ++j) {
    const double u = kKp * (s.pd_target[j] - q[iq[j]]) - kKd * v[iv[j]];
    tau[j] = std::clamp(u, -m.pd_limit[j], m.pd_limit[j]);
  }
  return tau;
}

class TernRobots {
 public:
  TernRobots(const RobotScene& s, bool lemke) : s_(s), m_(MakeTernModel(s)) {
    TimeSteppingOptions options;
    if (lemke) options.solver = TimeSteppingOptions::Solver::kLemke;
    std::vector<TimeSteppingRigidBodySystem::ActuatorPtr> actuators;
    if (!s.pd_joints.empty()) {
      actuators.push_back(std::make_shared<TorqueSource<double>>(
          m_.tree, s.pd_joints, 0.0, "motors"));
    }
    plant_ = std::make_unique<TimeSteppingRigidBodySystem>(
        m_.tree, m_.geometry, kStep, actuators,
        std::vector<TimeSteppingRigidBodySystem::SensorPtr>{},
        std::vector<TimeSteppingRigidBodySystem::BilateralPtr>{}, options);
    sim_ = std::make_unique<Simulator<double>>(*plant_);
    nq_ = m_.tree.num_positions();
    plant_->SetPositionsAndVelocities(&sim_->get_mutable_context(), m_.q0,
                                      StartVelocities(s, m_.tree));
  }

  void Step() {
    if (!s_.pd_joints.empty()) {
      const VectorX<double>& x = plant_->GetState(sim_->get_context());
      plant_->get_actuator_input_port("motors").FixValue(
          &sim_->get_mutable_context(),
          PdTorque(m_, s_, x.data(), x.data() + nq_, m_.pd_q, m_.pd_v));
    }
    sim_->AdvanceTo(++steps_ * kStep);
    const TimeSteppingStepStats& st = plant_->GetStepStats(sim_->get_context());
    contacts_ += st.num_contacts;
    sweeps_ += st.pgs_sweeps;
    pivots_ += st.lemke_pivots;
    newton_ += st.convex_iterations;
  }
  double BaseZ(int i) const { return Base(i)[2]; }
  // The last step's largest relative optimality residual of an island
  // (TimeSteppingStepStats::max_residual; 0 without contact).
  double Residual() const {
    return plant_->GetStepStats(sim_->get_context()).max_residual;
  }
  // Copy i's floating-joint coordinates [p; qw qx qy qz].
  const double* Base(int i) const {
    return plant_->GetState(sim_->get_context()).data() + m_.base_q[i];
  }
  double contacts() const { return contacts_; }
  double sweeps() const { return sweeps_; }
  double pivots() const { return pivots_; }
  double newton() const { return newton_; }

 private:
  const RobotScene& s_;
  TernModel m_;
  std::unique_ptr<TimeSteppingRigidBodySystem> plant_;
  std::unique_ptr<Simulator<double>> sim_;
  int nq_ = 0, steps_ = 0;
  double contacts_ = 0, sweeps_ = 0, pivots_ = 0, newton_ = 0;
};

mjModel* LoadFromMemory(const std::string& xml, const char* file) {
  auto vfs = std::make_unique<mjVFS>();
  mj_defaultVFS(vfs.get());
  if (mj_makeEmptyFileVFS(vfs.get(), file, static_cast<int>(xml.size())) != 0) {
    throw std::runtime_error("bench/contact: MuJoCo VFS refused the scene");
  }
  std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), file)], xml.data(),
              xml.size());
  char err[1000] = "";
  mjModel* m = mj_loadXML(file, vfs.get(), err, sizeof(err));
  mj_deleteVFS(vfs.get());
  if (m == nullptr) {
    throw std::runtime_error(std::string("bench/contact: MuJoCo cannot load ") +
                             file + ": " + err);
  }
  return m;
}

// The MuJoCo body that carries Tern body b (MuJoCo welds fixed-joint links
// into their parent): b's name or its nearest ancestor's.
int MujocoBody(const mjModel* m, const RigidBodyTree<double>& tree, int b) {
  while (b > 0) {
    const int id = mj_name2id(m, mjOBJ_BODY, tree.body(b).name.c_str());
    if (id >= 0) return id;
    b = tree.body(b).parent;
  }
  return 0;
}

// excluded: the number of <exclude> pairs added. elliptic: opt.cone =
// mjCONE_ELLIPTIC instead of MuJoCo's default pyramidal cone.
mjModel* MakeMujocoModel(const RobotScene& s, const TernModel& tm,
                         int* excluded, bool elliptic) {
  mjModel* urdf = LoadFromMemory(s.urdf, "robots.urdf");
  const std::string path = "/tmp/tern_contact_robots_" +
                           std::to_string(::getpid()) + "_" + s.name + ".xml";
  char err[1000] = "";
  const int saved = mj_saveLastXML(path.c_str(), urdf, err, sizeof(err));
  std::string xml = saved ? ReadText(path) : "";
  std::remove(path.c_str());
  if (!saved) {
    mj_deleteModel(urdf);
    throw std::runtime_error(std::string("bench/contact: mj_saveLastXML: ") +
                             err);
  }
  // Pairs Tern excludes that MuJoCo would test (not parent and child).
  std::string excludes;
  const GeometryModel& g = tm.geometry;
  std::vector<bool> has_geometry(g.num_bodies(), false);
  for (int i = 0; i < g.num_geometries(); ++i) {
    has_geometry[g.geometry(i).body] = true;
  }
  std::vector<std::pair<int, int>> pairs;
  for (int a = 1; a < g.num_bodies(); ++a) {
    for (int b = a + 1; b < g.num_bodies(); ++b) {
      if (!has_geometry[a] || !has_geometry[b] || !g.IsExcluded(a, b)) continue;
      int ma = MujocoBody(urdf, tm.tree, a), mb = MujocoBody(urdf, tm.tree, b);
      if (ma == mb || urdf->body_parentid[ma] == mb ||
          urdf->body_parentid[mb] == ma) {
        continue;
      }
      if (ma > mb) std::swap(ma, mb);
      bool seen = false;
      for (const auto& p : pairs) seen = seen || p == std::make_pair(ma, mb);
      if (seen) continue;
      pairs.emplace_back(ma, mb);
      excludes += std::string("    <exclude body1=\"") +
                  mj_id2name(urdf, mjOBJ_BODY, ma) + "\" body2=\"" +
                  mj_id2name(urdf, mjOBJ_BODY, mb) + "\"/>\n";
    }
  }
  const auto world = xml.find("<worldbody>");
  const auto end = xml.rfind("</mujoco>");
  if (world == std::string::npos || end == std::string::npos) {
    mj_deleteModel(urdf);
    throw std::runtime_error("bench/contact: unexpected MJCF from MuJoCo");
  }
  xml.insert(end, "  <contact>\n" + excludes + "  </contact>\n");
  xml.insert(world + 11,
             "\n    <geom name=\"ground\" type=\"plane\" size=\"0 0 1\"/>");
  mjModel* m = LoadFromMemory(xml, "robots.xml");
  // mj_saveLastXML writes 6 significant digits: give the reloaded model the
  // URDF model's numbers back (same bodies and joints in the same order;
  // the plane is geom 0, before the robots' geoms), then recompute MuJoCo's
  // derived constants.
  if (m->nbody != urdf->nbody || m->njnt != urdf->njnt ||
      m->ngeom != urdf->ngeom + 1) {
    mj_deleteModel(urdf);
    mj_deleteModel(m);
    throw std::runtime_error(
        "bench/contact: the edited MJCF changed the model");
  }
  auto copy = [](mjtNum* to, const mjtNum* from, int n) {
    std::memcpy(to, from, sizeof(mjtNum) * n);
  };
  copy(m->body_pos, urdf->body_pos, 3 * m->nbody);
  copy(m->body_quat, urdf->body_quat, 4 * m->nbody);
  copy(m->body_ipos, urdf->body_ipos, 3 * m->nbody);
  copy(m->body_iquat, urdf->body_iquat, 4 * m->nbody);
  copy(m->body_mass, urdf->body_mass, m->nbody);
  copy(m->body_inertia, urdf->body_inertia, 3 * m->nbody);
  copy(m->jnt_pos, urdf->jnt_pos, 3 * m->njnt);
  copy(m->jnt_axis, urdf->jnt_axis, 3 * m->njnt);
  copy(m->geom_size + 3, urdf->geom_size, 3 * urdf->ngeom);
  copy(m->geom_pos + 3, urdf->geom_pos, 3 * urdf->ngeom);
  copy(m->geom_quat + 4, urdf->geom_quat, 4 * urdf->ngeom);
  copy(m->geom_rbound + 1, urdf->geom_rbound, urdf->ngeom);
  mj_deleteModel(urdf);
  *excluded = static_cast<int>(pairs.size());
  mjData* d = mj_makeData(m);
  mj_setConst(m, d);
  mj_deleteData(d);
  m->opt.timestep = kStep;
  if (elliptic) m->opt.cone = mjCONE_ELLIPTIC;
  return m;
}

class MujocoRobots {
 public:
  explicit MujocoRobots(const RobotScene& s, bool elliptic = false)
      : s_(s),
        tm_(MakeTernModel(s)),
        m_(MakeMujocoModel(s, tm_, &excluded_, elliptic)) {
    d_ = mj_makeData(m_);
    // Tern's start state in MuJoCo's coordinates (the free joints at rest;
    // a perturbed fall's joint velocities are hinges', one dof each).
    const VectorX<double> v0 = StartVelocities(s, tm_.tree);
    for (int j = 0; j < m_->njnt; ++j) {
      const RigidBody<double>& b = tm_.tree.body(
          tm_.tree.FindJointBodyIndex(mj_id2name(m_, mjOBJ_JOINT, j)));
      for (int k = 0; k < b.num_positions; ++k) {
        d_->qpos[m_->jnt_qposadr[j] + k] = tm_.q0[b.position_start + k];
      }
      if (m_->jnt_type[j] != mjJNT_FREE) {
        for (int k = 0; k < b.num_velocities; ++k) {
          d_->qvel[m_->jnt_dofadr[j] + k] = v0[b.velocity_start + k];
        }
      }
    }
    for (std::size_t j = 0; j < s.pd_joints.size(); ++j) {
      const int id = mj_name2id(m_, mjOBJ_JOINT, s.pd_joints[j].c_str());
      pd_q_.push_back(m_->jnt_qposadr[id]);
      pd_v_.push_back(m_->jnt_dofadr[id]);
    }
    for (int i = 0; i < s.copies; ++i) {
      const std::string name = FloatingJoint(i);
      base_q_.push_back(
          m_->jnt_qposadr[mj_name2id(m_, mjOBJ_JOINT, name.c_str())]);
    }
    mj_forward(m_, d_);
  }
  ~MujocoRobots() {
    if (d_->warning[mjWARN_CONTACTFULL].number > 0 ||
        d_->warning[mjWARN_CNSTRFULL].number > 0) {
      std::fprintf(stderr,
                   "bench/contact: MuJoCo dropped contacts (buffers full)\n");
    }
    mj_deleteData(d_);
    mj_deleteModel(m_);
  }

  void Step() {
    if (!s_.pd_joints.empty()) {
      const VectorX<double> tau =
          PdTorque(tm_, s_, d_->qpos, d_->qvel, pd_q_, pd_v_);
      for (std::size_t j = 0; j < pd_v_.size(); ++j) {
        d_->qfrc_applied[pd_v_[j]] = tau[j];
      }
    }
    mj_step(m_, d_);
    contacts_ += d_->ncon;
    iterations_ += d_->solver_iter;
  }
  double BaseZ(int i) const { return Base(i)[2]; }
  const double* Base(int i) const { return d_->qpos + base_q_[i]; }
  // The last step's relative optimality residual in Tern's measure
  // (solvers/convex_contact_solver.h, Castro et al. sec. VI.C): with D =
  // diag(M)^-1/2 and a = qacc - qacc_smooth, ||D (M a - J^T f)|| over
  // max(||D M a||, ||D J^T f||), the same ratio as Tern's in velocities (v
  // - v* = h a, J^T gamma = h J^T f). f is the force MuJoCo's cost gives
  // at its answer qacc, so this is the gradient of its cost there. 0
  // without constraints. Reads what mj_step leaves in mjData.
  double Residual() {
    if (d_->nefc == 0) return 0;
    const int nv = m_->nv;
    std::vector<double> a(nv), Ma(nv);
    for (int i = 0; i < nv; ++i) a[i] = d_->qacc[i] - d_->qacc_smooth[i];
    mj_mulM(m_, d_, Ma.data(), a.data());
    double r2 = 0, p2 = 0, j2 = 0;
    for (int i = 0; i < nv; ++i) {
      const double D2 = 1 / d_->qM[m_->dof_Madr[i]];
      const double f = d_->qfrc_constraint[i];
      r2 += D2 * (Ma[i] - f) * (Ma[i] - f);
      p2 += D2 * Ma[i] * Ma[i];
      j2 += D2 * f * f;
    }
    return std::sqrt(r2 / std::max({p2, j2, 1e-300}));
  }
  double contacts() const { return contacts_; }
  double iterations() const { return iterations_; }
  const mjModel& model() const { return *m_; }
  mjData* data() { return d_; }
  const TernModel& tern() const { return tm_; }
  int excluded() const { return excluded_; }

 private:
  const RobotScene& s_;
  TernModel tm_;
  int excluded_ = 0;  // before m_, which sets it
  mjModel* m_;
  mjData* d_ = nullptr;
  std::vector<int> pd_q_, pd_v_, base_q_;
  double contacts_ = 0, iterations_ = 0;
};

template <class World>
void RunRobots(benchmark::State& state, const RobotScene* s,
               std::unique_ptr<World> (*make)(const RobotScene&)) {
  double seconds = 0, z = 0, contacts = 0, work[3] = {0, 0, 0};
  int runs = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<World> w = make(*s);
    state.ResumeTiming();
    const double t0 = ThreadSeconds();
    try {
      for (int k = 0; k < s->steps; ++k) w->Step();
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
      std::fprintf(stderr, "%s: %s\n", s->name.c_str(), e.what());
      break;
    }
    seconds += ThreadSeconds() - t0;
    state.PauseTiming();
    double zs = 0;
    for (int i = 0; i < s->copies; ++i) zs += w->BaseZ(i);
    z += zs / s->copies;
    contacts += w->contacts();
    if constexpr (std::is_same_v<World, TernRobots>) {
      work[0] += w->sweeps();
      work[1] += w->pivots();
      work[2] += w->newton();
    } else {
      work[0] += w->iterations();
    }
    ++runs;
    w.reset();
    state.ResumeTiming();
  }
  if (runs == 0) return;
  const double steps = static_cast<double>(runs) * s->steps;
  state.counters["ms/step"] = 1e3 * seconds / steps;
  state.counters["base_z"] = z / runs;
  state.counters["contacts"] = contacts / steps;
  if constexpr (std::is_same_v<World, TernRobots>) {
    state.counters["pgs_sweeps"] = work[0] / steps;
    state.counters["lemke_pivots"] = work[1] / steps;
    state.counters["newton_iter"] = work[2] / steps;
  } else {
    state.counters["solver_iter"] = work[0] / steps;
  }
}

template <class World>
void TraceRobots(const RobotScene& s, std::unique_ptr<World> w,
                 const char* engine) {
  double last = 0;                // solver iterations at the last line
  std::vector<double> residuals;  // steps with constraints
  for (int k = 1; k <= s.steps; ++k) {
    try {
      w->Step();
    } catch (const std::exception& e) {  // Lemke on the humanoid: reported
      std::printf("trace %s %s: step %4d failed: %s\n", s.name.c_str(), engine,
                  k, e.what());
      return;
    }
    if (const double r = w->Residual(); r > 0) residuals.push_back(r);
    if (k % 250 != 0) continue;
    // Newton iterations per step since the last line (each engine's own).
    double total = 0;
    if constexpr (requires { w->newton(); }) {
      total = w->newton();
    } else {
      total = w->iterations();
    }
    const double window = (total - last) / 250;
    last = total;
    const double* b = w->Base(0);
    // The base's z axis in the world (R e_z from the quaternion w x y z).
    const double zx = 2 * (b[4] * b[6] + b[3] * b[5]);
    const double zy = 2 * (b[5] * b[6] - b[3] * b[4]);
    const double zz = 1 - 2 * (b[4] * b[4] + b[5] * b[5]);
    std::printf(
        "trace %s %s: step %4d robot 0 base %.4f %.4f %.4f, base z axis "
        "%.3f %.3f %.3f, %.1f Newton iterations per step\n",
        s.name.c_str(), engine, k, b[0], b[1], b[2], zx, zy, zz, window);
  }
  // Tern's Lemke answers have no such residual (it reports 0).
  if (residuals.empty()) return;
  std::sort(residuals.begin(), residuals.end());
  const std::size_t n = residuals.size();
  std::printf(
      "trace %s %s: relative optimality residual over %zu steps with "
      "constraints (Tern's measure): median %.2g, 99th percentile %.2g, "
      "largest %.2g\n",
      s.name.c_str(), engine, n, residuals[n / 2], residuals[n * 99 / 100],
      residuals.back());
}

}  // namespace

bool TraceRobotScene(const std::string& name) {
  for (const RobotScene& s : RobotScenes()) {
    if ("robots_" + s.name != name) continue;
    TraceRobots(s, std::make_unique<TernRobots>(s, false), "tern");
    TraceRobots(s, std::make_unique<TernRobots>(s, true), "tern_lemke");
    TraceRobots(s, std::make_unique<MujocoRobots>(s), "mujoco");
    TraceRobots(s, std::make_unique<MujocoRobots>(s, true), "mujoco_elliptic");
    return true;
  }
  return false;
}

std::vector<std::string> RegisterRobotBenchmarks() {
  std::vector<std::string> names;
  for (const RobotScene& s : RobotScenes()) {
    names.push_back("robots_" + s.name);
    auto add = [&s](const std::string& engine, auto fn) {
      benchmark::RegisterBenchmark(("robots_" + s.name + "/" + engine).c_str(),
                                   fn, &s)
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    };
    add("tern", [](benchmark::State& st, const RobotScene* sc) {
      RunRobots<TernRobots>(st, sc, [](const RobotScene& r) {
        return std::make_unique<TernRobots>(r, false);
      });
    });
    if (s.fall_seed == 0) {  // Lemke fails on the humanoid's fall anyway
      add("tern_lemke", [](benchmark::State& st, const RobotScene* sc) {
        RunRobots<TernRobots>(st, sc, [](const RobotScene& r) {
          return std::make_unique<TernRobots>(r, true);
        });
      });
    }
    add("mujoco", [](benchmark::State& st, const RobotScene* sc) {
      RunRobots<MujocoRobots>(st, sc, [](const RobotScene& r) {
        return std::make_unique<MujocoRobots>(r);
      });
    });
    if (s.fall_seed == 0) {  // reference: the cone Tern solves
      add("mujoco_elliptic", [](benchmark::State& st, const RobotScene* sc) {
        RunRobots<MujocoRobots>(st, sc, [](const RobotScene& r) {
          return std::make_unique<MujocoRobots>(r, true);
        });
      });
    }
  }
  return names;
}

// max |H_tern - H_mujoco| at a random state of one quadruped and the
// humanoid. MuJoCo's free joint has qvel = [v_W; w_B] where Tern's floating
// joint has v = [w_B; v_B] (v_B = R^T v_W): with v_tern = T v_mj,
// H_mj = T^T H_tern T.
void CheckRobotMassMatrices() {
  std::mt19937 rng(28);
  std::uniform_real_distribution<double> u(-1, 1);
  for (const RobotScene* s : {&RobotScenes()[0], &RobotScenes()[3]}) {
    MujocoRobots mj(*s);
    const TernModel& tm = mj.tern();
    const mjModel& m = mj.model();
    mjData* d = mj.data();
    VectorX<double> q = tm.q0;
    for (int i = 0; i < q.size(); ++i) q[i] += 0.5 * u(rng);
    const int b0 = tm.base_q[0];
    Eigen::Quaterniond quat(u(rng), u(rng), u(rng), u(rng));
    quat.normalize();
    q.segment<4>(b0 + 3) << quat.w(), quat.x(), quat.y(), quat.z();
    const int nv = tm.tree.num_velocities();
    MatrixX<double> T = MatrixX<double>::Zero(nv, m.nv);
    for (int j = 0; j < m.njnt; ++j) {
      const RigidBody<double>& b = tm.tree.body(
          tm.tree.FindJointBodyIndex(mj_id2name(&m, mjOBJ_JOINT, j)));
      for (int k = 0; k < b.num_positions; ++k) {
        d->qpos[m.jnt_qposadr[j] + k] = q[b.position_start + k];
      }
      const int a = m.jnt_dofadr[j], t = b.velocity_start;
      if (m.jnt_type[j] == mjJNT_FREE) {
        T.block<3, 3>(t, a + 3).setIdentity();
        T.block<3, 3>(t + 3, a) = quat.toRotationMatrix().transpose();
      } else {
        T(t, a) = 1;
      }
    }
    mj_forward(&m, d);
    MatrixX<double> H_mj(m.nv, m.nv);
    mj_fullM(&m, H_mj.data(), d->qM);  // symmetric: layout is moot
    KinematicsCache<double> cache(tm.tree);
    const MatrixX<double> H_tern =
        T.transpose() * MassMatrix(tm.tree, &cache, q) * T;
    double damping_tern = 0, damping_mj = 0;
    int limited_tern = 0, limited_mj = 0;
    for (int b = 1; b < tm.tree.num_bodies(); ++b) {
      const Joint<double>& j = tm.tree.body(b).joint;
      damping_tern += j.damping * tm.tree.body(b).num_velocities;
      limited_tern += std::isfinite(j.position_lower) ? 1 : 0;
    }
    for (int i = 0; i < m.nv; ++i) damping_mj += m.dof_damping[i];
    for (int j = 0; j < m.njnt; ++j) limited_mj += m.jnt_limited[j];
    std::printf(
        "robots %s: nv %d (mujoco %d), %d bodies (mujoco %d after welding), "
        "%d geoms (mujoco %d with the plane), max |H_tern - H_mujoco| = %.3g "
        "(|H| max %.3g), joint damping sum %g (mujoco %g), limited joints %d "
        "(mujoco %d), %d body pairs excluded in MuJoCo as in Tern\n",
        s->name.c_str(), nv, m.nv, tm.tree.num_bodies(), m.nbody,
        tm.geometry.num_geometries(), m.ngeom,
        (H_tern - H_mj).cwiseAbs().maxCoeff(), H_mj.cwiseAbs().maxCoeff(),
        damping_tern, damping_mj, limited_tern, limited_mj, mj.excluded());
  }
}

}  // namespace tern::bench::contact
