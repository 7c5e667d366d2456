#include "tern/multibody/geometry/geometry_model.h"

#include <fmt/format.h>

#include <stdexcept>

namespace tern {

GeometryModel::GeometryModel(int num_bodies,
                             const GeometryModelOptions& options)
    : num_bodies_(num_bodies), options_(options) {
  if (num_bodies < 1) {
    throw std::invalid_argument(fmt::format(
        "GeometryModel: num_bodies is {}; it must be >= 1 (the world)",
        num_bodies));
  }
  body_names_.resize(num_bodies);
  body_names_[0] = "world";
  for (int b = 1; b < num_bodies; ++b) body_names_[b] = fmt::format("#{}", b);
  if (dense_filter()) {
    excluded_.assign(static_cast<std::size_t>(num_bodies) * num_bodies, false);
  }
}

std::string GeometryModel::Describe(const Geometry& g) const {
  const std::string body = g.body >= 0 && g.body < num_bodies_
                               ? body_names_[g.body]
                               : fmt::format("#{}", g.body);
  return fmt::format("geometry '{}' ({}) of body '{}'", g.name,
                     ShapeKindName(g.shape.kind), body);
}

int GeometryModel::AddGeometry(Geometry g) {
  auto fail = [&](const std::string& msg) {
    throw std::invalid_argument(
        fmt::format("GeometryModel: {}: {}", Describe(g), msg));
  };
  if (g.body < 0 || g.body >= num_bodies_) {
    fail(fmt::format("body index {} is not in 0..{}", g.body, num_bodies_ - 1));
  }
  if (!g.X_BG.R.allFinite() || !g.X_BG.p.allFinite()) {
    fail("the pose in the body is not finite (NaN or infinity)");
  }
  if ((g.X_BG.R.transpose() * g.X_BG.R - Matrix3<double>::Identity())
              .cwiseAbs()
              .maxCoeff() > 1e-9 ||
      g.X_BG.R.determinant() < 0) {
    fail("the pose's rotation matrix is not a rotation");
  }
  if (!g.shape.dims.allFinite() || g.shape.dims.minCoeff() < 0 ||
      ((g.shape.kind == ShapeKind::kSphere) && !(g.shape.dims[0] > 0)) ||
      ((g.shape.kind == ShapeKind::kCapsule ||
        g.shape.kind == ShapeKind::kCylinder) &&
       !(g.shape.dims[0] > 0 && g.shape.dims[1] > 0)) ||
      ((g.shape.kind == ShapeKind::kBox ||
        g.shape.kind == ShapeKind::kEllipsoid) &&
       !(g.shape.dims.minCoeff() > 0))) {
    fail(fmt::format("sizes ({}, {}, {}) must be positive and finite",
                     g.shape.dims[0], g.shape.dims[1], g.shape.dims[2]));
  }
  if ((g.shape.kind == ShapeKind::kConvex && !g.shape.convex) ||
      (g.shape.kind == ShapeKind::kTriangleMesh && !g.shape.mesh)) {
    fail("the mesh has no data (use Shape::ConvexHull or Shape::Mesh)");
  }
  if ((g.shape.kind == ShapeKind::kHalfSpace ||
       g.shape.kind == ShapeKind::kTriangleMesh) &&
      g.body != 0) {
    fail(
        "half-spaces and triangle meshes are static scenery: attach them "
        "to the world (body 0)");
  }
  const ContactProperties& p = g.properties;
  if (!(p.friction >= 0) || !(p.stiffness >= 0) || !(p.dissipation >= 0) ||
      !(p.restitution >= 0 && p.restitution <= 1)) {
    fail(
        "friction, stiffness and dissipation must be >= 0 and restitution "
        "in [0, 1]");
  }
  geometries_.push_back(std::move(g));
  return num_geometries() - 1;
}

void GeometryModel::ExcludeBodyPair(int body_a, int body_b) {
  if (body_a < 0 || body_a >= num_bodies_ || body_b < 0 ||
      body_b >= num_bodies_) {
    throw std::invalid_argument(fmt::format(
        "GeometryModel::ExcludeBodyPair: bodies {} and {} are not both in "
        "0..{}",
        body_a, body_b, num_bodies_ - 1));
  }
  if (!dense_filter()) {
    excluded_pairs_.insert(PairKey(body_a, body_b));
    return;
  }
  excluded_[static_cast<std::size_t>(body_a) * num_bodies_ + body_b] = true;
  excluded_[static_cast<std::size_t>(body_b) * num_bodies_ + body_a] = true;
}

void GeometryModel::SetBodyName(int body, const std::string& name) {
  if (body < 0 || body >= num_bodies_) {
    throw std::invalid_argument(
        fmt::format("GeometryModel::SetBodyName: body {} is not in 0..{}", body,
                    num_bodies_ - 1));
  }
  body_names_[body] = name;
}

int GeometryModel::FindBody(const std::string& name,
                            const std::string& where) const {
  for (int b = 0; b < num_bodies_; ++b) {
    if (body_names_[b] == name) return b;
  }
  std::string known;
  for (int b = 0; b < num_bodies_; ++b) {
    known += (b ? ", " : "") + body_names_[b];
  }
  throw std::invalid_argument(
      fmt::format("{}GeometryModel: no body (link) '{}'; bodies: {}",
                  where.empty() ? "" : where + ": ", name, known));
}

void GeometryModel::ExcludeBodyPair(const std::string& body_a,
                                    const std::string& body_b) {
  ExcludeBodyPair(FindBody(body_a), FindBody(body_b));
}

void GeometryModel::ExcludeBodyPairs(
    const std::vector<std::pair<std::string, std::string>>& pairs) {
  for (const auto& [a, b] : pairs) ExcludeBodyPair(a, b);
}

void GeometryModel::ExcludeGroupPair(const std::vector<int>& group_a,
                                     const std::vector<int>& group_b) {
  for (int a : group_a) {
    for (int b : group_b) {
      if (a != b) ExcludeBodyPair(a, b);
    }
  }
}

GeometryModel GeometryModel::FromTree(const RigidBodyTree<double>& tree,
                                      const GeometryModelOptions& options) {
  GeometryModel model(tree.num_bodies(), options);
  for (int b = 0; b < tree.num_bodies(); ++b) {
    model.body_names_[b] = tree.body(b).name;
  }
  for (int b = 1; b < tree.num_bodies(); ++b) {
    const RigidBody<double>& body = tree.body(b);
    // A free body's parent is the world, which holds the ground.
    const bool free =
        body.parent == 0 && (body.joint.type == JointType::kFloating ||
                             body.joint.type == JointType::kPlanar);
    if (options.exclude_parent_child && body.parent >= 0 && !free) {
      model.ExcludeBodyPair(b, body.parent);
    }
  }
  for (int b = 0; b < tree.num_bodies(); ++b) {
    const auto& collisions = tree.body(b).collisions;
    for (size_t i = 0; i < collisions.size(); ++i) {
      const BodyGeometry& bg = collisions[i];
      Geometry g;
      g.name = bg.name.empty()
                   ? fmt::format("{}_collision_{}", tree.body(b).name, i)
                   : bg.name;
      g.body = b;
      g.X_BG = bg.X_BG;
      // Named by its kind in messages before the shape is made.
      if (bg.shape == BodyGeometry::Shape::kMesh) {
        g.shape.kind = b == 0 ? ShapeKind::kTriangleMesh : ShapeKind::kConvex;
      }
      const std::string where =
          bg.source_file.empty()
              ? std::string()
              : fmt::format("{}:{}: ", bg.source_file, bg.source_line);
      try {
        switch (bg.shape) {
          case BodyGeometry::Shape::kBox:
            g.shape =
                Shape::Box(bg.box_size.x(), bg.box_size.y(), bg.box_size.z());
            break;
          case BodyGeometry::Shape::kSphere:
            g.shape = Shape::Sphere(bg.radius);
            break;
          case BodyGeometry::Shape::kCylinder:
            g.shape = Shape::Cylinder(bg.radius, bg.length);
            break;
          case BodyGeometry::Shape::kCapsule:
            g.shape = Shape::Capsule(bg.radius, bg.length);
            break;
          case BodyGeometry::Shape::kEllipsoid:
            g.shape =
                Shape::Ellipsoid(bg.radii.x(), bg.radii.y(), bg.radii.z());
            break;
          case BodyGeometry::Shape::kPlane:
            g.shape = Shape::HalfSpace();
            break;
          case BodyGeometry::Shape::kMesh: {
            // Named by its file from here on, not by the default shape.
            g.shape.kind =
                b == 0 ? ShapeKind::kTriangleMesh : ShapeKind::kConvex;
            const std::string file =
                bg.mesh_path.empty() ? bg.mesh_uri : bg.mesh_path;
            if (!bg.mesh) {
              throw std::invalid_argument(fmt::format(
                  "mesh '{}' has no data (not found, or not read)", file));
            }
            if (bg.mesh->triangles.empty()) {
              throw std::invalid_argument(
                  fmt::format("mesh '{}' is empty", file));
            }
            if (b == 0) {
              // Static scenery keeps its triangles, closed or not: terrain
              // is usually an open surface, and the mesh-convex kernel
              // treats each triangle on its own (by its outward normal).
              g.shape = Shape::Mesh(bg.mesh->vertices, bg.mesh->triangles);
            } else {
              // A moving body collides with the convex hull of its mesh's
              // vertices (as MuJoCo does), which needs no closed surface.
              try {
                g.shape = Shape::ConvexHull(bg.mesh->vertices);
              } catch (const std::invalid_argument& e) {
                throw std::invalid_argument(fmt::format(
                    "mesh '{}' has a degenerate convex hull (fewer than 4 "
                    "points not in one plane): {}",
                    file, e.what()));
              }
            }
            break;
          }
        }
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(fmt::format(
            "{}GeometryModel: {}: {}", where, model.Describe(g), e.what()));
      }
      if (bg.contact.has_mu) g.properties.friction = bg.contact.mu;
      if (bg.contact.has_kp) g.properties.stiffness = bg.contact.kp;
      if (bg.contact.has_kd) g.properties.dissipation = bg.contact.kd;
      g.contype = bg.contype;
      g.conaffinity = bg.conaffinity;
      try {
        model.AddGeometry(std::move(g));
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(where + e.what());
      }
    }
  }
  return model;
}

GeometryWorkspace::GeometryWorkspace(const GeometryModel& model)
    : num_geometries(model.num_geometries()),
      X_WG(model.num_geometries()),
      aabb_lo(model.num_geometries()),
      aabb_hi(model.num_geometries()) {
  for (int i = 0; i < model.num_geometries(); ++i) {
    if (model.geometry(i).shape.kind == ShapeKind::kHalfSpace) {
      unbounded.push_back(i);
    } else {
      bounded.push_back(i);
    }
  }
  sweep.resize(bounded.size());
  pairs.reserve(4 * model.num_geometries());
  pair_start.resize(model.num_geometries() + 1);
  unsorted_pairs.reserve(4 * model.num_geometries());
  contacts.reserve(4 * model.num_geometries());
}

}  // namespace tern
