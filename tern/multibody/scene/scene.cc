#include "tern/multibody/scene/scene.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace tern {

std::vector<int> CopyBodies(const RigidBodyTree<double>& source,
                            const std::string& prefix,
                            const RigidTransform<double>& X_WM,
                            const BodyEdit& edit,
                            RigidBodyTree<double>* destination) {
  std::vector<int> index(source.num_bodies(), 0);
  // The model's own scenery (an MJCF floor plane, SDFormat static links
  // welded to the world) goes onto the world, placed at X_WM.
  const RigidBody<double>& world = source.body(0);
  for (BodyGeometry g : world.visuals) {
    g.X_BG = X_WM * g.X_BG;
    destination->AddVisual(0, g);
  }
  for (BodyGeometry g : world.collisions) {
    g.X_BG = X_WM * g.X_BG;
    destination->AddCollision(0, g);
  }
  for (int b = 1; b < source.num_bodies(); ++b) {
    RigidBody<double> body = source.body(b);
    body.name = prefix + body.name;
    body.joint.name = prefix + body.joint.name;
    if (body.parent == 0 && body.joint.type != JointType::kFloating) {
      body.joint.X_PJ = X_WM * body.joint.X_PJ;
    }
    if (edit) edit(b, &body);
    if (destination->HasBody(body.name)) {
      throw std::invalid_argument(fmt::format(
          "body '{}' is defined twice; give one model a 'prefix'", body.name));
    }
    if (destination->HasJoint(body.joint.name)) {
      throw std::invalid_argument(
          fmt::format("joint '{}' is defined twice; give one model a 'prefix'",
                      body.joint.name));
    }
    index[b] = destination->AddBody(body.name, index[body.parent], body.joint,
                                    body.inertia);
    for (const BodyGeometry& g : body.visuals) {
      destination->AddVisual(index[b], g);
    }
    for (const BodyGeometry& g : body.collisions) {
      destination->AddCollision(index[b], g);
    }
  }
  for (const Frame<double>& f : source.frames()) {
    // Every body has a frame of its name, which AddBody made already.
    if (source.HasBody(f.name) && source.FindBodyIndex(f.name) == f.body) {
      continue;
    }
    // AddFrame names a frame defined twice.
    destination->AddFrame(prefix + f.name, index[f.body], f.X_BF);
  }
  for (MimicConstraint m : source.mimic_constraints()) {
    m.joint = prefix + m.joint;
    m.leader_joint = prefix + m.leader_joint;
    m.body = index[m.body];
    m.leader_body = index[m.leader_body];
    destination->AddMimicConstraint(m);
  }
  return index;
}

EqualityConstraintSpec MapEqualityConstraint(
    const EqualityConstraintSpec& spec, const RigidBodyTree<double>& source,
    const std::vector<int>& index, const RigidTransform<double>& X_WM,
    const RigidBodyTree<double>& destination) {
  EqualityConstraintSpec out = spec;
  const auto map = [&](const std::string& name, std::string* mapped,
                       RigidTransform<double>* X) {
    if (!source.HasBody(name)) {
      throw std::invalid_argument(
          fmt::format("constraint '{}': no body '{}' in model '{}'", spec.name,
                      name, source.name()));
    }
    const int b = source.FindBodyIndex(name);
    *mapped = destination.body(index.at(b)).name;
    if (b == 0) *X = X_WM * *X;
  };
  map(spec.body1, &out.body1, &out.X_1F);
  map(spec.body2, &out.body2, &out.X_2G);
  return out;
}

JointSpringSpec MapJointSpring(const JointSpringSpec& spec,
                               const RigidBodyTree<double>& source,
                               const std::vector<int>& index,
                               const RigidBodyTree<double>& destination) {
  if (!source.HasJoint(spec.joint)) {
    throw std::invalid_argument(
        fmt::format("joint spring: no joint '{}' in model '{}'", spec.joint,
                    source.name()));
  }
  JointSpringSpec out = spec;
  out.joint = destination.body(index.at(source.FindJointBodyIndex(spec.joint)))
                  .joint.name;
  return out;
}

MjcfActuator MapMjcfActuator(const MjcfActuator& actuator,
                             const RigidBodyTree<double>& source,
                             const std::vector<int>& index,
                             const std::string& prefix,
                             const RigidBodyTree<double>& destination) {
  if (!source.HasJoint(actuator.joint)) {
    throw std::invalid_argument(
        fmt::format("MJCF actuator '{}': no joint '{}' in model '{}'",
                    actuator.name, actuator.joint, source.name()));
  }
  MjcfActuator out = actuator;
  out.joint =
      destination.body(index.at(source.FindJointBodyIndex(actuator.joint)))
          .joint.name;
  out.name = prefix + actuator.name;
  return out;
}

MjcfSensor MapMjcfSensor(const MjcfSensor& sensor,
                         const RigidBodyTree<double>& source,
                         const std::vector<int>& index,
                         const std::string& prefix,
                         const RigidBodyTree<double>& destination) {
  MjcfSensor out = sensor;
  out.name = prefix + sensor.name;
  if (sensor.type == "jointpos") {
    if (!source.HasJoint(sensor.target)) {
      throw std::invalid_argument(
          fmt::format("MJCF sensor '{}': no joint '{}' in model '{}'",
                      sensor.name, sensor.target, source.name()));
    }
    out.target =
        destination.body(index.at(source.FindJointBodyIndex(sensor.target)))
            .joint.name;
    return out;
  }
  bool found = false;
  for (const Frame<double>& f : source.frames()) {
    found = found || f.name == sensor.target;
  }
  if (!found) {
    throw std::invalid_argument(
        fmt::format("MJCF sensor '{}': no site '{}' in model '{}'", sensor.name,
                    sensor.target, source.name()));
  }
  out.target = prefix + sensor.target;
  return out;
}

RigidBodyTree<double> ScaleBodyMasses(
    const RigidBodyTree<double>& tree,
    const std::map<std::string, double>& factors) {
  for (const auto& [name, factor] : factors) {
    if (!tree.HasBody(name)) {
      throw std::invalid_argument(fmt::format(
          "ScaleBodyMasses: no body '{}' in tree '{}'", name, tree.name()));
    }
    if (!(std::isfinite(factor) && factor > 0)) {
      throw std::invalid_argument(fmt::format(
          "ScaleBodyMasses: body '{}': factor {} is not finite and positive",
          name, factor));
    }
  }
  RigidBodyTree<double> scaled(tree.name());
  scaled.set_gravity(tree.gravity());
  CopyBodies(
      tree, "", RigidTransform<double>(),
      [&factors](int, RigidBody<double>* body) {
        const auto it = factors.find(body->name);
        if (it == factors.end()) return;
        SpatialInertia<double>& M = body->inertia;
        M.m *= it->second;
        M.h *= it->second;
        M.I *= it->second;
      },
      &scaled);
  return scaled;
}

SpatialInertia<double> BoxInertia(double mass, const Vector3<double>& size) {
  const Vector3<double>& l = size;
  Matrix3<double> I = Matrix3<double>::Zero();
  I(0, 0) = mass / 12 * (l.y() * l.y() + l.z() * l.z());
  I(1, 1) = mass / 12 * (l.x() * l.x() + l.z() * l.z());
  I(2, 2) = mass / 12 * (l.x() * l.x() + l.y() * l.y());
  return SpatialInertia<double>::FromCom(mass, Vector3<double>::Zero(), I);
}

int AddBox(const BoxBody& box, RigidBodyTree<double>* tree) {
  if (tree->HasBody(box.name)) {
    throw std::invalid_argument(
        fmt::format("box '{}': a body of that name exists already", box.name));
  }
  if (!(box.size.array() > 0).all() || !box.size.allFinite()) {
    throw std::invalid_argument(
        fmt::format("box '{}': size [{}, {}, {}] is not positive", box.name,
                    box.size.x(), box.size.y(), box.size.z()));
  }
  if (!(std::isfinite(box.mass) && box.mass >= 0)) {
    throw std::invalid_argument(fmt::format(
        "box '{}': mass {} is negative or not finite", box.name, box.mass));
  }
  Joint<double> joint;
  joint.name = box.name + "_joint";
  if (box.mass > 0) {
    joint.type = JointType::kFloating;
  } else {
    joint.type = JointType::kFixed;
    joint.X_PJ = box.X_WB;
  }
  const int body =
      tree->AddBody(box.name, 0, joint, BoxInertia(box.mass, box.size));
  BodyGeometry g;
  g.name = box.name;
  g.shape = BodyGeometry::Shape::kBox;
  g.box_size = box.size;
  g.material.name = box.name;
  g.material.rgba = box.rgba;
  g.material.has_rgba = true;
  tree->AddVisual(body, g);
  tree->AddCollision(body, g);
  return body;
}

GeometryModel SceneGeometry(const RigidBodyTree<double>& tree,
                            const ContactProperties& material,
                            std::optional<double> ground_height,
                            std::span<const char> own_pair_filter) {
  const GeometryModel from_tree = GeometryModel::FromTree(tree);
  GeometryModel geometry(tree.num_bodies());
  // FromTree excludes only body-parent pairs, so they are the pairs to
  // copy: linear in the bodies (every pair was 5e7 lookups for 10,000
  // boxes).
  for (int a = 0; a < tree.num_bodies(); ++a) {
    geometry.SetBodyName(a, tree.body(a).name);
    const int parent = tree.body(a).parent;
    const bool own =
        a < static_cast<int>(own_pair_filter.size()) && own_pair_filter[a] != 0;
    if (a > 0 && parent >= 0 && !own && from_tree.IsExcluded(a, parent)) {
      geometry.ExcludeBodyPair(a, parent);
    }
  }
  const ContactProperties defaults;
  // Per property: a model that gives only a friction (MJCF geoms always
  // do) keeps it and takes the scene's stiffness and dissipation.
  for (Geometry g : from_tree.geometries()) {
    ContactProperties& p = g.properties;
    if (p.friction == defaults.friction) p.friction = material.friction;
    if (p.stiffness == defaults.stiffness) p.stiffness = material.stiffness;
    if (p.dissipation == defaults.dissipation) {
      p.dissipation = material.dissipation;
    }
    if (p.restitution == defaults.restitution) {
      p.restitution = material.restitution;
    }
    geometry.AddGeometry(g);
  }
  if (ground_height) {
    Geometry ground;
    ground.name = "ground";
    ground.body = 0;
    ground.X_BG.p = Vector3<double>(0, 0, *ground_height);
    ground.shape = Shape::HalfSpace();
    ground.properties = material;
    geometry.AddGeometry(ground);
  }
  return geometry;
}

}  // namespace tern
