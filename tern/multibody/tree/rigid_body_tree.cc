#include "tern/multibody/tree/rigid_body_tree.h"

#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <random>
#include <stdexcept>

#include "tern/multibody/tree/joint_kernels.h"
#include "tern/multibody/tree/kinematics.h"

namespace tern {
namespace {

template <typename T>
Matrix3<double> ValueOf(const Matrix3<T>& M) {
  Matrix3<double> out;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out(i, j) = ExtractDoubleOrThrow(M(i, j));
  return out;
}

}  // namespace

template <typename T>
RigidBodyTree<T>::RigidBodyTree(std::string name) : name_(std::move(name)) {
  RigidBody<T> world;
  world.name = "world";
  bodies_.push_back(world);
  body_by_name_["world"] = 0;
  frames_.push_back(Frame<T>{"world", 0, RigidTransform<T>()});
  frame_by_name_["world"] = 0;
  last_dof_.push_back(-1);
  carrier_.push_back(0);
  X_CB_.push_back(RigidTransform<T>());
}

template <typename T>
int RigidBodyTree<T>::AddBody(const std::string& name, int parent,
                              const Joint<T>& joint,
                              const SpatialInertia<T>& inertia) {
  if (body_by_name_.count(name)) {
    throw std::invalid_argument(fmt::format(
        "RigidBodyTree '{}': a body named '{}' already exists", name_, name));
  }
  if (parent < 0 || parent >= num_bodies()) {
    throw std::invalid_argument(fmt::format(
        "RigidBodyTree '{}': body '{}' has parent index {}, but the tree has "
        "{} bodies",
        name_, name, parent, num_bodies()));
  }
  if (joint.name.empty() || joint_by_name_.count(joint.name)) {
    throw std::invalid_argument(fmt::format(
        "RigidBodyTree '{}': joint '{}' of body '{}' is unnamed or its name "
        "is taken",
        name_, joint.name, name));
  }
  const double mass = ExtractDoubleOrThrow(inertia.m);
  if (!(mass >= 0)) {
    throw std::invalid_argument(
        fmt::format("RigidBodyTree '{}': body '{}' has mass {} (must be >= 0)",
                    name_, name, mass));
  }
  if (mass == 0 && (ExtractDoubleOrThrow(inertia.h(0)) != 0 ||
                    ExtractDoubleOrThrow(inertia.h(1)) != 0 ||
                    ExtractDoubleOrThrow(inertia.h(2)) != 0)) {
    throw std::invalid_argument(fmt::format(
        "RigidBodyTree '{}': body '{}' has zero mass but a nonzero first "
        "moment of mass h (h = m c must be zero)",
        name_, name));
  }
  // Rotational inertia about the com must be symmetric positive semidefinite.
  {
    const Matrix3<double> I_O = ValueOf(inertia.I);
    const Vector3<double> h(ExtractDoubleOrThrow(inertia.h(0)),
                            ExtractDoubleOrThrow(inertia.h(1)),
                            ExtractDoubleOrThrow(inertia.h(2)));
    Matrix3<double> I_c = I_O;
    if (mass > 0) {
      const Vector3<double> c = h / mass;
      I_c -= mass * (c.squaredNorm() * Matrix3<double>::Identity() -
                     c * c.transpose());
    }
    const double scale = std::max(1.0, I_O.norm());
    const Eigen::SelfAdjointEigenSolver<Matrix3<double>> eig(I_c);
    if (!I_c.allFinite() || (I_c - I_c.transpose()).norm() > 1e-9 * scale ||
        eig.eigenvalues().minCoeff() < -1e-9 * scale) {
      throw std::invalid_argument(fmt::format(
          "RigidBodyTree '{}': body '{}' has a rotational inertia that is not "
          "symmetric positive semidefinite",
          name_, name));
    }
    // Principal moments of a real body satisfy the triangle inequality
    // A + B >= C (each is a sum of two of the three second moments of the
    // mass distribution), as MuJoCo's compiler checks. The tolerance admits
    // the rounding of URDF inertias written to about six digits (a thin
    // disk has A + B = C exactly) and the small violations of real files,
    // which the URDF parser reports as warnings.
    const Eigen::Vector3d lambda = eig.eigenvalues();  // ascending
    if (lambda(0) + lambda(1) <
        lambda(2) - kInertiaTriangleTolerance * std::abs(lambda(2))) {
      throw std::invalid_argument(fmt::format(
          "RigidBodyTree '{}': body '{}' has principal moments of inertia "
          "{:.6g}, {:.6g}, {:.6g} about its center of mass, which violate the "
          "triangle inequality A + B >= C: no rigid body has them",
          name_, name, lambda(0), lambda(1), lambda(2)));
    }
  }
  RigidBody<T> b;
  b.name = name;
  b.parent = parent;
  b.joint = joint;
  b.inertia = inertia;
  b.num_positions = JointNumPositions(joint.type);
  b.num_velocities = JointNumVelocities(joint.type);
  b.position_start = nq_;
  b.velocity_start = nv_;
  const JointType type = joint.type;
  if (type == JointType::kRevolute || type == JointType::kPrismatic ||
      type == JointType::kPlanar) {
    const double n = ExtractDoubleOrThrow(joint.axis.norm());
    if (!(n > 1e-12)) {
      throw std::invalid_argument(fmt::format(
          "RigidBodyTree '{}': {} joint '{}' of body '{}' has a zero axis",
          name_, JointTypeName(type), joint.name, name));
    }
    b.joint.axis = joint.axis / joint.axis.norm();
    for (int k = 0; k < 3; ++k) {
      const double a = ExtractDoubleOrThrow(b.joint.axis(k));
      const double o1 = ExtractDoubleOrThrow(b.joint.axis((k + 1) % 3));
      const double o2 = ExtractDoubleOrThrow(b.joint.axis((k + 2) % 3));
      if (std::abs(a) == 1.0 && o1 == 0.0 && o2 == 0.0 &&
          type != JointType::kPlanar) {
        b.axis_index = k;
        b.axis_sign = a;
      }
    }
  }
  if (type == JointType::kPlanar) {
    Vector3<double> a(ExtractDoubleOrThrow(b.joint.axis(0)),
                      ExtractDoubleOrThrow(b.joint.axis(1)),
                      ExtractDoubleOrThrow(b.joint.axis(2)));
    Vector3<double> t1, t2;
    PlanarBasis(a, &t1, &t2);
    b.planar_t1 = t1.cast<T>();
    b.planar_t2 = t2.cast<T>();
  }
  b.joint_frame_unrotated = true;
  for (int r = 0; r < 3; ++r) {
    for (int k = 0; k < 3; ++k) {
      if (ExtractDoubleOrThrow(joint.X_PJ.R(r, k)) != (r == k ? 1.0 : 0.0)) {
        b.joint_frame_unrotated = false;
      }
    }
  }
  b.simple_revolute = type == JointType::kRevolute && b.axis_index >= 0 &&
                      b.joint_frame_unrotated;
  b.inertia_with_welded = inertia;
  b.welded = type == JointType::kFixed && parent > 0;
  // The carrier and the pose in it come from the parent's, and the last dof
  // on the path to the root from the parent's: O(1) per body, so a chain of
  // any length builds in linear time.
  int carrier = num_bodies();
  RigidTransform<T> X_CB;
  if (b.welded) {
    carrier = carrier_[parent];
    X_CB = X_CB_[parent] * joint.X_PJ;
    bodies_[carrier].inertia_with_welded += inertia.Transformed(X_CB);
    bodies_[carrier].central_inertia_with_welded =
        CentralInertia<T>(bodies_[carrier].inertia_with_welded);
  }
  b.central_inertia_with_welded = CentralInertia<T>(b.inertia_with_welded);
  const int previous = last_dof_[parent];
  for (int k = 0; k < b.num_velocities; ++k) {
    velocity_parents_.push_back(k == 0 ? previous : nv_ + k - 1);
  }
  last_dof_.push_back(b.num_velocities > 0 ? nv_ + b.num_velocities - 1
                                           : previous);
  carrier_.push_back(carrier);
  X_CB_.push_back(X_CB);
  nq_ += b.num_positions;
  nv_ += b.num_velocities;
  const int index = num_bodies();
  bodies_.push_back(std::move(b));
  body_by_name_[name] = index;
  joint_by_name_[joint.name] = index;
  if (!frame_by_name_.count(name)) AddFrame(name, index, RigidTransform<T>());
  return index;
}

template <typename T>
int RigidBodyTree<T>::AddFrame(const std::string& name, int body,
                               const RigidTransform<T>& X_BF) {
  if (frame_by_name_.count(name)) {
    throw std::invalid_argument(fmt::format(
        "RigidBodyTree '{}': a frame named '{}' already exists", name_, name));
  }
  if (body < 0 || body >= num_bodies()) {
    throw std::invalid_argument(fmt::format(
        "RigidBodyTree '{}': frame '{}' is on body index {}, but the tree has "
        "{} bodies",
        name_, name, body, num_bodies()));
  }
  frames_.push_back(Frame<T>{name, body, X_BF});
  frame_by_name_[name] = num_frames() - 1;
  return num_frames() - 1;
}

template <typename T>
void RigidBodyTree<T>::AddVisual(int body, const BodyGeometry& g) {
  bodies_.at(body).visuals.push_back(g);
}

template <typename T>
void RigidBodyTree<T>::AddCollision(int body, const BodyGeometry& g) {
  bodies_.at(body).collisions.push_back(g);
}

template <typename T>
void RigidBodyTree<T>::AddMimicConstraint(const MimicConstraint& m) {
  mimics_.push_back(m);
}

template <typename T>
T RigidBodyTree<T>::total_mass() const {
  T m(0);
  for (const auto& b : bodies_) m += b.inertia.m;
  return m;
}

template <typename T>
int RigidBodyTree<T>::FindBodyIndex(const std::string& name) const {
  auto it = body_by_name_.find(name);
  if (it == body_by_name_.end()) {
    throw std::invalid_argument(
        fmt::format("RigidBodyTree '{}' has no body named '{}'", name_, name));
  }
  return it->second;
}

template <typename T>
int RigidBodyTree<T>::FindJointBodyIndex(const std::string& joint_name) const {
  auto it = joint_by_name_.find(joint_name);
  if (it == joint_by_name_.end()) {
    throw std::invalid_argument(fmt::format(
        "RigidBodyTree '{}' has no joint named '{}'", name_, joint_name));
  }
  return it->second;
}

template <typename T>
int RigidBodyTree<T>::FindFrameIndex(const std::string& name) const {
  auto it = frame_by_name_.find(name);
  if (it == frame_by_name_.end()) {
    throw std::invalid_argument(
        fmt::format("RigidBodyTree '{}' has no frame named '{}'", name_, name));
  }
  return it->second;
}

template <typename T>
bool RigidBodyTree<T>::HasBody(const std::string& name) const {
  return body_by_name_.count(name) > 0;
}

template <typename T>
bool RigidBodyTree<T>::HasJoint(const std::string& name) const {
  return joint_by_name_.count(name) > 0;
}

template <typename T>
VectorX<T> RigidBodyTree<T>::GetZeroConfiguration() const {
  VectorX<T> q = VectorX<T>::Zero(nq_);
  for (const auto& b : bodies_) {
    if (b.joint.type == JointType::kFloating) q(b.position_start + 3) = T(1);
    if (b.joint.type == JointType::kBall) q(b.position_start) = T(1);
  }
  return q;
}

template <typename T>
std::vector<std::string> RigidBodyTree<T>::GetPositionNames() const {
  std::vector<std::string> names;
  for (const auto& b : bodies_) {
    const std::string& j = b.joint.name;
    switch (b.joint.type) {
      case JointType::kFixed:
        break;
      case JointType::kRevolute:
      case JointType::kPrismatic:
        names.push_back(j);
        break;
      case JointType::kFloating:
        for (const char* s : {"_x", "_y", "_z", "_qw", "_qx", "_qy", "_qz"})
          names.push_back(j + s);
        break;
      case JointType::kBall:
        for (const char* s : {"_qw", "_qx", "_qy", "_qz"})
          names.push_back(j + s);
        break;
      case JointType::kPlanar:
        for (const char* s : {"_x", "_y", "_theta"}) names.push_back(j + s);
        break;
    }
  }
  return names;
}

template <typename T>
std::vector<std::string> RigidBodyTree<T>::GetVelocityNames() const {
  std::vector<std::string> names;
  for (const auto& b : bodies_) {
    const std::string& j = b.joint.name;
    switch (b.joint.type) {
      case JointType::kFixed:
        break;
      case JointType::kRevolute:
      case JointType::kPrismatic:
        names.push_back(j);
        break;
      case JointType::kFloating:
        for (const char* s : {"_wx", "_wy", "_wz", "_vx", "_vy", "_vz"})
          names.push_back(j + s);
        break;
      case JointType::kBall:
        for (const char* s : {"_wx", "_wy", "_wz"}) names.push_back(j + s);
        break;
      case JointType::kPlanar:
        for (const char* s : {"_x", "_y", "_theta"}) names.push_back(j + s);
        break;
    }
  }
  return names;
}

template <typename U, typename T>
RigidBodyTree<U> CastTree(const RigidBodyTree<T>& tree) {
  RigidBodyTree<U> out(tree.name());
  for (int i = 1; i < tree.num_bodies(); ++i) {
    const RigidBody<T>& b = tree.body(i);
    const int k = out.AddBody(b.name, b.parent, b.joint.template cast<U>(),
                              b.inertia.template cast<U>());
    for (const auto& g : b.visuals) out.AddVisual(k, g);
    for (const auto& g : b.collisions) out.AddCollision(k, g);
  }
  for (const Frame<T>& f : tree.frames()) {
    if (f.body > 0 && f.name == tree.body(f.body).name) continue;
    if (f.name == "world") continue;
    out.AddFrame(f.name, f.body, f.X_BF.template cast<U>());
  }
  for (const auto& m : tree.mimic_constraints()) out.AddMimicConstraint(m);
  out.set_gravity(tree.gravity().template cast<U>());
  return out;
}

int FindSingularMassMatrixJoint(const RigidBodyTree<double>& tree,
                                std::string* why) {
  const int nb = tree.num_bodies();
  // A generic configuration: H is singular for every q only by construction,
  // and a fixed seed keeps the check deterministic.
  std::mt19937 gen(12345);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  VectorX<double> q = tree.GetZeroConfiguration();
  for (int i = 0; i < q.size(); ++i) q(i) = uniform(gen);
  NormalizeQuaternions(tree, &q);
  // Articulated inertias in body coordinates, leaves to root (v = 0).
  std::vector<Matrix6<double>> IA(nb);
  for (int i = 0; i < nb; ++i) IA[i] = tree.body(i).inertia.ToMatrix();
  for (int i = nb - 1; i > 0; --i) {
    const RigidBody<double>& b = tree.body(i);
    RigidTransform<double> X_PB;
    Matrix6<double> S6 = Matrix6<double>::Zero();
    internal::JointPoseAndSubspace(b, q.data() + b.position_start, &X_PB, &S6);
    Matrix6<double> Ia = IA[i];
    const int nv = b.num_velocities;
    if (nv > 0) {
      const MatrixX<double> S = S6.leftCols(nv);
      const MatrixX<double> U = IA[i] * S;
      MatrixX<double> D = S.transpose() * U;
      D.diagonal().array() += b.joint.armature;
      const Eigen::SelfAdjointEigenSolver<MatrixX<double>> eig(D);
      const double scale = IA[i].cwiseAbs().maxCoeff();
      if (!(eig.eigenvalues().minCoeff() > 1e-12 * scale)) {
        if (why != nullptr) {
          *why = fmt::format(
              "the mass matrix is singular: {} joint '{}' "
              "of body '{}' moves a subtree with no mass or inertia along one "
              "of its directions of motion (articulated inertia {:.3g} "
              "against {:.3g}), e.g. a massless body at the end of a joint or "
              "a massless floating base; give the body '{}' or its "
              "descendants mass and inertia, or the joint armature",
              JointTypeName(b.joint.type), b.joint.name, b.name,
              eig.eigenvalues().minCoeff(), scale, b.name);
        }
        return i;
      }
      Ia -= U * D.inverse() * U.transpose();
    }
    IA[b.parent] += TransformInertiaMatrix(X_PB, Ia);
  }
  return -1;
}

void CheckMassMatrixNonsingular(const RigidBodyTree<double>& tree) {
  std::string why;
  if (FindSingularMassMatrixJoint(tree, &why) >= 0) {
    throw std::invalid_argument(
        fmt::format("RigidBodyTree '{}': {}", tree.name(), why));
  }
}

TERN_INSTANTIATE_CLASS_ON_DEFAULT_SCALARS(RigidBodyTree)
template RigidBodyTree<double> CastTree<double, double>(
    const RigidBodyTree<double>&);
template RigidBodyTree<AutoDiffXd> CastTree<AutoDiffXd, double>(
    const RigidBodyTree<double>&);

}  // namespace tern
