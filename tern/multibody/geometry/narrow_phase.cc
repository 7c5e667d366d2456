#include "tern/multibody/geometry/narrow_phase.h"

#include <ccd/ccd.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

namespace tern {

namespace {

using V3 = Vector3<double>;
using M3 = Matrix3<double>;
using X3 = RigidTransform<double>;

constexpr double kInf = std::numeric_limits<double>::infinity();
// A cylinder's cap within this tilt (rad) of a plane, a box face or
// another cap lies flat on it: several points (RimTowardPlane,
// FlatCapOnFace, ParallelSides).
constexpr double kFlatTilt = 1e-2;

inline void Set(Contact* c, const V3& n, double phi, const V3& p_WA,
                const V3& p_WB) {
  c->normal = n;
  c->signed_distance = phi;
  c->p_WA = p_WA;
  c->p_WB = p_WB;
}

// A unit vector orthogonal to unit n.
inline V3 AnyOrthogonal(const V3& n) {
  V3 t1, t2;
  ContactTangentBasis(n, &t1, &t2);
  return t1;
}

// Keeps the (up to) `capacity` deepest of the points offered, in a fixed
// array; used by the kernels that test several features.
class DeepestPoints {
 public:
  explicit DeepestPoints(Contact* out, int capacity = kMaxManifoldPoints)
      : out_(out), capacity_(capacity) {}
  void Offer(const V3& n, double phi, const V3& p_WA, const V3& p_WB) {
    if (n_ < capacity_) {
      Set(&out_[n_++], n, phi, p_WA, p_WB);
      return;
    }
    int worst = 0;
    for (int i = 1; i < n_; ++i) {
      if (out_[i].signed_distance > out_[worst].signed_distance) worst = i;
    }
    if (phi < out_[worst].signed_distance)
      Set(&out_[worst], n, phi, p_WA, p_WB);
  }
  int count() const { return n_; }

 private:
  Contact* out_;
  int capacity_;
  int n_{0};
};

// ---------------------------------------------------------------------------
// Support functions, in the shape's frame (d need not be unit).

V3 SupportLocal(const Shape& s, const V3& d) {
  switch (s.kind) {
    case ShapeKind::kSphere: {
      const double n = d.norm();
      return n > 0 ? V3(s.dims[0] / n * d) : V3(s.dims[0], 0, 0);
    }
    case ShapeKind::kCapsule: {
      const double n = d.norm();
      V3 p = n > 0 ? V3(s.dims[0] / n * d) : V3(s.dims[0], 0, 0);
      p.z() += d.z() >= 0 ? s.dims[1] : -s.dims[1];
      return p;
    }
    case ShapeKind::kBox:
      return V3(d.x() >= 0 ? s.dims.x() : -s.dims.x(),
                d.y() >= 0 ? s.dims.y() : -s.dims.y(),
                d.z() >= 0 ? s.dims.z() : -s.dims.z());
    case ShapeKind::kCylinder: {
      // A support direction is bounded (no overflow for hypot to guard).
      const double rho = std::sqrt(d.x() * d.x() + d.y() * d.y());
      V3 p(0, 0, d.z() >= 0 ? s.dims[1] : -s.dims[1]);
      if (rho > 0) {
        p.x() = s.dims[0] * d.x() / rho;
        p.y() = s.dims[0] * d.y() / rho;
      }
      return p;
    }
    case ShapeKind::kEllipsoid: {
      // argmax d·x over x = D u, |u| = 1: u = D d / |D d|.
      const V3 Dd = s.dims.cwiseProduct(d);
      const double n = Dd.norm();
      return n > 0 ? V3(s.dims.cwiseProduct(Dd) / n) : V3(s.dims.x(), 0, 0);
    }
    case ShapeKind::kConvex: {
      const auto& v = s.convex->vertices;
      int best = 0;
      double best_dot = v[0].dot(d);
      for (int i = 1; i < static_cast<int>(v.size()); ++i) {
        const double x = v[i].dot(d);
        if (x > best_dot) {
          best_dot = x;
          best = i;
        }
      }
      return v[best];
    }
    case ShapeKind::kHalfSpace:
    case ShapeKind::kTriangleMesh:
      break;
  }
  return V3::Zero();
}

// A convex object for GJK/MPR: a shape at a pose, or a triangle in world.
struct ConvexObject {
  const Shape* shape{nullptr};
  const X3* X{nullptr};
  V3 tri[3];  // world vertices, when shape == nullptr
  V3 center;  // an interior (or, for a triangle, a boundary) point
  // Spheres and capsules are a core (a point, a segment) swept by a sphere
  // of this radius; GJK runs on the core, which is a polytope, so it
  // converges exactly, and the radius is added after (as in Bullet's and
  // MuJoCo's treatment of margins).
  double radius{0};

  V3 CoreSupport(const V3& d_W) const {
    if (shape != nullptr && shape->kind == ShapeKind::kSphere) return X->p;
    if (shape != nullptr && shape->kind == ShapeKind::kCapsule) {
      const V3 h = shape->dims[1] * X->R.col(2);
      return h.dot(d_W) >= 0 ? V3(X->p + h) : V3(X->p - h);
    }
    return Support(d_W);
  }

  V3 Support(const V3& d_W) const {
    if (shape == nullptr) {
      const double a = tri[0].dot(d_W), b = tri[1].dot(d_W),
                   c = tri[2].dot(d_W);
      return a >= b ? (a >= c ? tri[0] : tri[2]) : (b >= c ? tri[1] : tri[2]);
    }
    const V3 d_S = X->R.transpose() * d_W;
    return X->R * SupportLocal(*shape, d_S) + X->p;
  }
};

ConvexObject MakeObject(const Shape& s, const X3& X) {
  ConvexObject o;
  o.shape = &s;
  o.X = &X;
  o.center = s.kind == ShapeKind::kConvex ? X * s.convex->centroid : X.p;
  if (s.kind == ShapeKind::kSphere || s.kind == ShapeKind::kCapsule) {
    o.radius = s.dims[0];
  }
  return o;
}

// ---------------------------------------------------------------------------
// GJK distance (Gilbert, Johnson, Keerthi, "A fast procedure for computing
// the distance between complex objects in three-dimensional space", IEEE J.
// Robotics and Automation 4(2), 1988), with the closest point on the simplex
// found by Voronoi-region tests (Ericson, Real-Time Collision Detection,
// sec. 5.1.2, 5.1.5, 5.1.6). Points are in the Minkowski difference A - B;
// each keeps its two support points for the witness points.

struct SimplexPoint {
  V3 w, a, b;
};

struct Simplex {
  SimplexPoint p[4];
  double lambda[4];
  int n{0};

  void Keep1(int i) {
    p[0] = p[i];
    lambda[0] = 1;
    n = 1;
  }
  void Keep2(int i, int j, double li, double lj) {
    const SimplexPoint pi = p[i], pj = p[j];
    p[0] = pi;
    p[1] = pj;
    lambda[0] = li;
    lambda[1] = lj;
    n = 2;
  }
  void Keep3(int i, int j, int k, double li, double lj, double lk) {
    const SimplexPoint pi = p[i], pj = p[j], pk = p[k];
    p[0] = pi;
    p[1] = pj;
    p[2] = pk;
    lambda[0] = li;
    lambda[1] = lj;
    lambda[2] = lk;
    n = 3;
  }
  V3 Point() const {
    V3 v = V3::Zero();
    for (int i = 0; i < n; ++i) v += lambda[i] * p[i].w;
    return v;
  }
};

// Closest point to the origin of triangle (i, j, k) of s, as barycentric
// weights over those three (Ericson 5.1.5 with P = 0). Writes the reduced
// support set into `keep` form: returns the region's vertex indices.
struct TriResult {
  int idx[3];
  double l[3];
  int n;
  V3 v;
};

TriResult ClosestOnTriangle(const Simplex& s, int ia, int ib, int ic) {
  const V3& a = s.p[ia].w;
  const V3& b = s.p[ib].w;
  const V3& c = s.p[ic].w;
  TriResult r;
  const V3 ab = b - a, ac = c - a, ap = -a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return {{ia, 0, 0}, {1, 0, 0}, 1, a};
  const V3 bp = -b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return {{ib, 0, 0}, {1, 0, 0}, 1, b};
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const double t = d1 / (d1 - d3);
    return {{ia, ib, 0}, {1 - t, t, 0}, 2, a + t * ab};
  }
  const V3 cp = -c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return {{ic, 0, 0}, {1, 0, 0}, 1, c};
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const double t = d2 / (d2 - d6);
    return {{ia, ic, 0}, {1 - t, t, 0}, 2, a + t * ac};
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    const double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return {{ib, ic, 0}, {1 - t, t, 0}, 2, b + t * (c - b)};
  }
  const double denom = 1 / (va + vb + vc);
  const double v = vb * denom, w = vc * denom;
  r = {{ia, ib, ic}, {1 - v - w, v, w}, 3, a + v * ab + w * ac};
  return r;
}

void ApplyTri(Simplex* s, const TriResult& r) {
  if (r.n == 1) {
    s->Keep1(r.idx[0]);
  } else if (r.n == 2) {
    s->Keep2(r.idx[0], r.idx[1], r.l[0], r.l[1]);
  } else {
    s->Keep3(r.idx[0], r.idx[1], r.idx[2], r.l[0], r.l[1], r.l[2]);
  }
}

// Reduces s to the sub-simplex supporting its closest point to the origin;
// returns false if the origin is inside the tetrahedron.
bool ReduceSimplex(Simplex* s) {
  switch (s->n) {
    case 1:
      s->lambda[0] = 1;
      return true;
    case 2: {
      const V3& a = s->p[0].w;
      const V3 ab = s->p[1].w - a;
      const double den = ab.squaredNorm();
      const double t = den > 0 ? -a.dot(ab) / den : 0;
      if (t <= 0) {
        s->Keep1(0);
      } else if (t >= 1) {
        s->Keep1(1);
      } else {
        s->lambda[0] = 1 - t;
        s->lambda[1] = t;
      }
      return true;
    }
    case 3:
      ApplyTri(s, ClosestOnTriangle(*s, 0, 1, 2));
      return true;
    default: {
      // Faces of the tetrahedron whose plane separates the origin from the
      // opposite vertex; the closest point lies on one of them.
      static constexpr int kFace[4][4] = {
          {0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 3, 1}, {1, 2, 3, 0}};
      // A flat tetrahedron (faces of A and B parallel give coplanar points)
      // has no inside: then the closest point is on one of its faces.
      const V3& w0 = s->p[0].w;
      const V3 e1 = s->p[1].w - w0, e2 = s->p[2].w - w0, e3 = s->p[3].w - w0;
      const double scale =
          std::max({e1.squaredNorm(), e2.squaredNorm(), e3.squaredNorm()});
      const bool flat =
          std::abs(e1.dot(e2.cross(e3))) <= 1e-12 * scale * std::sqrt(scale);
      bool outside_any = false;
      TriResult best{};
      double best_d = kInf;
      for (const auto& f : kFace) {
        const V3& a = s->p[f[0]].w;
        const V3 nrm = (s->p[f[1]].w - a).cross(s->p[f[2]].w - a);
        const double side_o = -a.dot(nrm);
        const double side_d = (s->p[f[3]].w - a).dot(nrm);
        if (flat || side_o * side_d < 0) {
          outside_any = true;
          const TriResult r = ClosestOnTriangle(*s, f[0], f[1], f[2]);
          const double d = r.v.squaredNorm();
          if (d < best_d) {
            best_d = d;
            best = r;
          }
        }
      }
      if (!outside_any) return false;
      ApplyTri(s, best);
      return true;
    }
  }
}

struct GjkResult {
  bool overlap{false};
  double distance{0};
  V3 p_WA, p_WB;
  // On overlap with a tetrahedron around the origin: that tetrahedron, the
  // start of EPA.
  bool has_tetrahedron{false};
  SimplexPoint tetrahedron[4];
  bool beyond{false};  // stopped early: the distance exceeds the cutoff
  // The last nonzero closest point v of the simplex (A - B, so -v points
  // from A toward B): when the shapes only touch, the direction to push.
  V3 last_v{V3::Zero()};
  // Whether a separation was proved: Gilbert's rule stopped GJK (or the
  // cutoff did). A stop for want of progress or on a repeated support
  // point leaves distance an upper bound only: near touching, curved
  // shapes can stall there while they overlap.
  bool certified{false};
};

// cutoff: a caller that only needs to know whether the distance is at most
// cutoff lets GJK stop as soon as a separating plane proves it larger:
// then `beyond` is set and distance, p_WA and p_WB are the current
// simplex's (an upper bound, > cutoff too), not the closest points.
GjkResult Gjk(const ConvexObject& A, const ConvexObject& B,
              double cutoff = kInf) {
  GjkResult out;
  Simplex s;
  V3 d = B.center - A.center;
  if (d.squaredNorm() < 1e-24) d = V3::UnitX();
  // First point: A's support along -d minus B's along d (v = a - b).
  s.p[0].a = A.CoreSupport(-d);
  s.p[0].b = B.CoreSupport(d);
  s.p[0].w = s.p[0].a - s.p[0].b;
  s.lambda[0] = 1;
  s.n = 1;
  V3 v = s.p[0].w;
  double vv = v.squaredNorm();
  for (int iter = 0; iter < 128; ++iter) {
    if (vv > 0) out.last_v = v;
    if (vv < 1e-28) {
      out.overlap = true;
      return out;
    }
    SimplexPoint q;
    q.a = A.CoreSupport(-v);
    q.b = B.CoreSupport(v);
    q.w = q.a - q.b;
    // Gilbert's stopping rule: |v|² - v·w bounds |v|² - dist², so |v|
    // exceeds the distance by at most 1e-10 |v| (1e-13 m at 1 mm; tighter
    // costs iterations on curved shapes, whose convergence is linear).
    if (vv - v.dot(q.w) <= 1e-10 * vv) {
      out.certified = true;
      break;
    }
    // The plane through q.w normal to v separates the origin from A - B by
    // v.w / |v| <= the distance (van den Bergen's lower bound).
    const double vw = v.dot(q.w);
    if (vw > 0 && vw * vw > cutoff * cutoff * vv) {
      out.beyond = true;
      out.certified = true;
      break;
    }
    bool duplicate = false;
    for (int i = 0; i < s.n; ++i)
      duplicate |= (s.p[i].w - q.w).squaredNorm() < 1e-30;
    if (duplicate) break;
    // The simplex before this step (its points and weights only), for the
    // rare step that makes no progress.
    Simplex previous;
    previous.n = s.n;
    for (int i = 0; i < s.n; ++i) {
      previous.p[i] = s.p[i];
      previous.lambda[i] = s.lambda[i];
    }
    s.p[s.n++] = q;
    // ReduceSimplex leaves s as it is when the origin is inside it.
    if (!ReduceSimplex(&s)) {
      out.overlap = true;
      out.has_tetrahedron = true;
      for (int i = 0; i < 4; ++i) out.tetrahedron[i] = s.p[i];
      return out;
    }
    const V3 v_new = s.Point();
    const double vv_new = v_new.squaredNorm();
    if (vv_new >= vv) {  // no progress: at machine precision
      s = previous;
      break;
    }
    v = v_new;
    vv = vv_new;
  }
  out.p_WA.setZero();
  out.p_WB.setZero();
  for (int i = 0; i < s.n; ++i) {
    out.p_WA += s.lambda[i] * s.p[i].a;
    out.p_WB += s.lambda[i] * s.p[i].b;
  }
  out.distance = (out.p_WB - out.p_WA).norm();
  if (out.distance < 1e-12) out.overlap = true;
  return out;
}

// libccd callbacks.
void CcdSupport(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* vec) {
  const auto* o = static_cast<const ConvexObject*>(obj);
  const V3 p = o->Support(V3(dir->v[0], dir->v[1], dir->v[2]));
  ccdVec3Set(vec, p.x(), p.y(), p.z());
}
void CcdCenter(const void* obj, ccd_vec3_t* center) {
  const auto* o = static_cast<const ConvexObject*>(obj);
  ccdVec3Set(center, o->center.x(), o->center.y(), o->center.z());
}

// When the cores are apart, the shapes' signed distance is the cores'
// distance minus the radii, exact also in overlap (the Minkowski difference
// is the cores' difference swept by a sphere). Returns false if the cores
// overlap.
bool CoreContact(const ConvexObject& A, const ConvexObject& B,
                 const GjkResult& g, Contact* c) {
  if (g.overlap) return false;
  const V3 n = (g.p_WB - g.p_WA) / g.distance;
  Set(c, n, g.distance - A.radius - B.radius, g.p_WA + A.radius * n,
      g.p_WB - B.radius * n);
  return true;
}

// Expanding polytope algorithm (van den Bergen, "Proximity queries and
// penetration depth computation on 3D game objects", GDC 2001) on the cores,
// from GJK's tetrahedron, in fixed arrays (no heap): the face of the
// Minkowski difference closest to the origin gives the depth and normal.
// Exact (to rounding) for polytope cores: spheres, capsules, boxes, convex
// meshes; for cylinders and ellipsoids it stops at a relative tolerance or
// when the arrays are full. Returns false if it cannot run (degenerate
// start), leaving MPR to answer.
bool Epa(const ConvexObject& A, const ConvexObject& B, const GjkResult& g,
         Contact* c) {
  constexpr int kMaxVerts = 96, kMaxFaces = 192, kMaxEdges = 96;
  struct Face {
    int v[3];
    V3 n;
    double d;
    bool alive;
  };
  SimplexPoint verts[kMaxVerts];
  Face faces[kMaxFaces];
  int nv = 4, nf = 0;
  for (int i = 0; i < 4; ++i) verts[i] = g.tetrahedron[i];
  int free_slots[kMaxFaces];  // dead faces, reused before appending
  int nfree = 0;
  auto add_face = [&](int a, int b, int cc) {
    const V3 n = (verts[b].w - verts[a].w).cross(verts[cc].w - verts[a].w);
    const double len = n.norm();
    if (!(len > 1e-300)) return false;
    int slot;
    if (nfree > 0) {
      slot = free_slots[--nfree];
    } else if (nf < kMaxFaces) {
      slot = nf++;
    } else {
      return false;
    }
    Face& f = faces[slot];
    f.v[0] = a;
    f.v[1] = b;
    f.v[2] = cc;
    f.n = n / len;
    f.d = f.n.dot(verts[a].w);
    f.alive = true;
    return true;
  };
  static constexpr int kTet[4][4] = {
      {0, 1, 2, 3}, {0, 3, 1, 2}, {0, 2, 3, 1}, {1, 3, 2, 0}};
  for (const auto& t : kTet) {
    // Orient each face away from the opposite vertex.
    const V3 n =
        (verts[t[1]].w - verts[t[0]].w).cross(verts[t[2]].w - verts[t[0]].w);
    const bool flip = n.dot(verts[t[3]].w - verts[t[0]].w) > 0;
    if (!(flip ? add_face(t[0], t[2], t[1]) : add_face(t[0], t[1], t[2])))
      return false;
  }
  for (int i = 0; i < nf; ++i) {
    if (faces[i].d < -1e-12) return false;  // origin not inside
  }
  int best = 0;
  for (int iter = 0; iter < 128; ++iter) {
    best = -1;
    for (int i = 0; i < nf; ++i) {
      if (faces[i].alive && (best < 0 || faces[i].d < faces[best].d)) best = i;
    }
    if (best < 0) return false;
    const Face& f = faces[best];
    SimplexPoint w;
    w.a = A.CoreSupport(f.n);
    w.b = B.CoreSupport(-f.n);
    w.w = w.a - w.b;
    const double gap = f.n.dot(w.w) - f.d;
    // 1e-11 m (1e-12 took a curved pair 5 % of a resting humanoid's step,
    // running to kMaxVerts; 1e-10's answers moved enough from step to step
    // to cost a resting humanoid 0.4 Newton iterations per step).
    if (gap <= 1e-11 * (1 + f.d) || nv == kMaxVerts) break;
    // Remove the faces w sees; their unshared edges form the horizon.
    int edges[kMaxEdges][2];
    int ne = 0;
    bool overflow = false;
    for (int i = 0; i < nf; ++i) {
      Face& fi = faces[i];
      if (!fi.alive || fi.n.dot(w.w - verts[fi.v[0]].w) <= 0) continue;
      fi.alive = false;
      free_slots[nfree++] = i;
      for (int k = 0; k < 3; ++k) {
        const int e0 = fi.v[k], e1 = fi.v[(k + 1) % 3];
        int found = -1;
        for (int j = 0; j < ne; ++j) {
          if (edges[j][0] == e1 && edges[j][1] == e0) found = j;
        }
        if (found >= 0) {
          edges[found][0] = edges[ne - 1][0];
          edges[found][1] = edges[ne - 1][1];
          --ne;
        } else if (ne < kMaxEdges) {
          edges[ne][0] = e0;
          edges[ne][1] = e1;
          ++ne;
        } else {
          overflow = true;
        }
      }
    }
    if (overflow) return false;
    verts[nv] = w;
    const int iw = nv++;
    bool full = false;
    for (int j = 0; j < ne && !full; ++j)
      full = !add_face(edges[j][0], edges[j][1], iw);
    if (full) return false;
  }
  if (best < 0) return false;
  const Face& f = faces[best];
  // The origin's projection d n on the face's plane, in barycentric
  // coordinates of the face (Ericson 3.4), not clamped: when the Minkowski
  // difference has coplanar faces, the closest one found may be a neighbour
  // of the triangle that contains the projection; the plane, depth and
  // normal are the same, and the affine weights still give points on the
  // supporting features of A and B.
  const V3& w0 = verts[f.v[0]].w;
  const V3 v0 = verts[f.v[1]].w - w0, v1 = verts[f.v[2]].w - w0;
  const V3 v2 = f.d * f.n - w0;
  const double d00 = v0.dot(v0), d01 = v0.dot(v1), d11 = v1.dot(v1);
  const double d20 = v2.dot(v0), d21 = v2.dot(v1);
  const double den = d00 * d11 - d01 * d01;
  if (!(std::abs(den) > 1e-300)) return false;
  const double l1 = (d11 * d20 - d01 * d21) / den;
  const double l2 = (d00 * d21 - d01 * d20) / den;
  const double l0 = 1 - l1 - l2;
  const V3 pa =
      l0 * verts[f.v[0]].a + l1 * verts[f.v[1]].a + l2 * verts[f.v[2]].a;
  const V3 pb =
      l0 * verts[f.v[0]].b + l1 * verts[f.v[1]].b + l2 * verts[f.v[2]].b;
  const double depth = f.d + A.radius + B.radius;
  // Witness points symmetric about their midpoint, so that p_WB - p_WA =
  // phi n holds exactly whatever the rounding in the weights.
  const V3 mid = 0.5 * (pa + A.radius * f.n + pb - B.radius * f.n);
  Set(c, f.n, -depth, mid + 0.5 * depth * f.n, mid - 0.5 * depth * f.n);
  return true;
}

// margin: a caller that only keeps contacts whose signed distance is at
// most margin; a pair proved farther apart gets a signed distance above it
// (not the exact distance).
Contact ConvexPair(const ConvexObject& A, const ConvexObject& B,
                   double margin = kInf) {
  Contact c;
  const GjkResult g = Gjk(A, B, margin + A.radius + B.radius);
  // A stalled GJK whose cores are within 1 um may overlap (below); farther
  // apart its distance is good (an upper bound within round-off).
  const bool uncertain = !g.certified && g.distance < 1e-6;
  if (!uncertain && CoreContact(A, B, g, &c)) return c;
  if (g.has_tetrahedron && Epa(A, B, g, &c)) return c;
  // Fallback when EPA cannot start, or when GJK stopped near touching
  // without proving its separation (a stall: a forearm's side against a
  // torso's edge, overlapping by 3e-8 m, read 9e-9 m apart one step in 14
  // and kicked the resting humanoid; bench/contact/README.md): libccd's
  // Minkowski portal refinement
  // (Snethen, "XenoCollide", Game Programming Gems 7, 2008), the method
  // MuJoCo uses; unlike libccd's EPA it needs no heap. Its depth is along
  // the portal it finds, close to the least translation.
  ccd_t ccd;
  CCD_INIT(&ccd);
  ccd.support1 = CcdSupport;
  ccd.support2 = CcdSupport;
  ccd.center1 = CcdCenter;
  ccd.center2 = CcdCenter;
  ccd.max_iterations = 200;
  ccd.mpr_tolerance = 1e-12;
  ccd_real_t depth = 0;
  ccd_vec3_t dir, pos;
  if (ccdMPRPenetration(&A, &B, &ccd, &depth, &dir, &pos) == 0) {
    const V3 n(dir.v[0], dir.v[1], dir.v[2]);
    const V3 p(pos.v[0], pos.v[1], pos.v[2]);
    // MPR answers a touching pair (depth 0) with a zero direction: not a
    // normal; then the touching case below.
    if (std::abs(n.squaredNorm() - 1) < 1e-6 && std::isfinite(depth)) {
      Set(&c, n, -depth, p + 0.5 * depth * n, p - 0.5 * depth * n);
      return c;
    }
  }
  // A stalled GJK that MPR finds apart: its distance (an upper bound).
  if (CoreContact(A, B, g, &c)) return c;
  // GJK saw the origin on the boundary and MPR did not: touching, at the
  // points of A and B facing each other along GJK's last direction (or the
  // line of centers if it had none).
  V3 n = g.last_v.squaredNorm() > 0 ? V3(-g.last_v) : V3(B.center - A.center);
  n = n.squaredNorm() > 0 ? V3(n.normalized()) : V3::UnitZ();
  const V3 p = 0.5 * (A.Support(n) + B.Support(-n));
  Set(&c, n, 0, p, p);
  return c;
}

int GeneralConvex(const Shape& a, const X3& X_WA, const Shape& b,
                  const X3& X_WB, double margin, Contact* out) {
  out[0] = ConvexPair(MakeObject(a, X_WA), MakeObject(b, X_WB), margin);
  return out[0].signed_distance <= margin ? 1 : 0;
}

// ---------------------------------------------------------------------------
// Closed forms.

// Two spheres (centers ca, cb; radii ra, rb): one point on the center line.
inline int SpheresAt(const V3& ca, double ra, const V3& cb, double rb,
                     double margin, Contact* out) {
  const V3 d = cb - ca;
  const double dist = d.norm();
  const double phi = dist - ra - rb;
  if (phi > margin) return 0;
  // Coincident centers: any direction is a minimum translation.
  const V3 n = dist > 1e-15 ? V3(d / dist) : V3::UnitZ();
  Set(out, n, phi, ca + ra * n, cb - rb * n);
  return 1;
}

int SphereSphere(const Shape& a, const X3& X_WA, const Shape& b, const X3& X_WB,
                 double margin, Contact* out) {
  return SpheresAt(X_WA.p, a.dims[0], X_WB.p, b.dims[0], margin, out);
}

// Closest point of segment [p, q] to x, as the parameter in [0, 1].
inline double ClosestOnSegment(const V3& p, const V3& q, const V3& x) {
  const V3 d = q - p;
  const double dd = d.squaredNorm();
  return dd > 0 ? std::clamp((x - p).dot(d) / dd, 0.0, 1.0) : 0.0;
}

int SphereCapsule(const Shape& a, const X3& X_WA, const Shape& b,
                  const X3& X_WB, double margin, Contact* out) {
  const V3 h = b.dims[1] * X_WB.R.col(2);
  const V3 p = X_WB.p - h, q = X_WB.p + h;
  const double t = ClosestOnSegment(p, q, X_WA.p);
  return SpheresAt(X_WA.p, a.dims[0], p + t * (q - p), b.dims[0], margin, out);
}

// Sphere (center c, radius r) against a solid B given the closest point
// q_B (in B's frame) of B to c_B and, when c is inside B, the outward normal
// m_B of the nearest face and depth (the distance from c to it).
inline int SphereVsSolid(const V3& c_W, double r, const X3& X_WB, const V3& c_B,
                         const V3& q_B, bool inside, const V3& m_B_inside,
                         double depth, double margin, Contact* out) {
  V3 m_B;  // outward normal of B at q, in B, pointing toward the sphere
  double phi;
  if (!inside) {
    const V3 d = c_B - q_B;
    const double dist = d.norm();
    phi = dist - r;
    if (phi > margin) return 0;
    m_B = d / dist;
  } else {
    m_B = m_B_inside;
    phi = -depth - r;
  }
  const V3 m_W = X_WB.R * m_B;
  // The normal from A (the sphere) to B is -m.
  Set(out, -m_W, phi, c_W - r * m_W, X_WB * q_B);
  return 1;
}

int SphereBox(const Shape& a, const X3& X_WA, const Shape& b, const X3& X_WB,
              double margin, Contact* out) {
  const V3 c_B = X_WB.R.transpose() * (X_WA.p - X_WB.p);
  const V3& h = b.dims;
  const V3 q = c_B.cwiseMax(-h).cwiseMin(h);
  if ((q - c_B).squaredNorm() > 0) {
    return SphereVsSolid(X_WA.p, a.dims[0], X_WB, c_B, q, false, V3::Zero(), 0,
                         margin, out);
  }
  // Center inside: leave through the nearest face.
  const V3 gap = h - c_B.cwiseAbs();
  int k = 0;
  gap.minCoeff(&k);
  V3 m = V3::Zero();
  m[k] = c_B[k] >= 0 ? 1 : -1;
  V3 qf = c_B;
  qf[k] = m[k] * h[k];
  return SphereVsSolid(X_WA.p, a.dims[0], X_WB, c_B, qf, true, m, gap[k],
                       margin, out);
}

int SphereCylinder(const Shape& a, const X3& X_WA, const Shape& b,
                   const X3& X_WB, double margin, Contact* out) {
  const V3 c_B = X_WB.R.transpose() * (X_WA.p - X_WB.p);
  const double r = b.dims[0], h = b.dims[1];
  const double rho = std::hypot(c_B.x(), c_B.y());
  if (rho <= r && std::abs(c_B.z()) <= h) {
    const double side = r - rho, cap = h - std::abs(c_B.z());
    V3 m, q = c_B;
    double depth;
    if (side < cap) {
      m = rho > 1e-15 ? V3(c_B.x() / rho, c_B.y() / rho, 0) : V3::UnitX();
      q.x() = r * m.x();
      q.y() = r * m.y();
      depth = side;
    } else {
      m = V3(0, 0, c_B.z() >= 0 ? 1 : -1);
      q.z() = m.z() * h;
      depth = cap;
    }
    return SphereVsSolid(X_WA.p, a.dims[0], X_WB, c_B, q, true, m, depth,
                         margin, out);
  }
  V3 q(c_B.x(), c_B.y(), std::clamp(c_B.z(), -h, h));
  if (rho > r) {
    q.x() *= r / rho;
    q.y() *= r / rho;
  }
  return SphereVsSolid(X_WA.p, a.dims[0], X_WB, c_B, q, false, V3::Zero(), 0,
                       margin, out);
}

// Closest points of segments p1 + s d1 and p2 + t d2, s, t in [0, 1]
// (Ericson 5.1.9).
inline void ClosestSegmentSegment(const V3& p1, const V3& d1, const V3& p2,
                                  const V3& d2, double* s, double* t) {
  const V3 r = p1 - p2;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  const double c = d1.dot(r), b = d1.dot(d2);
  const double denom = a * e - b * b;
  double sv = denom > 1e-14 * a * e
                  ? std::clamp((b * f - c * e) / denom, 0.0, 1.0)
                  : 0.0;
  double tv = (b * sv + f) / e;
  if (tv < 0) {
    tv = 0;
    sv = std::clamp(-c / a, 0.0, 1.0);
  } else if (tv > 1) {
    tv = 1;
    sv = std::clamp((b - c) / a, 0.0, 1.0);
  }
  *s = sv;
  *t = tv;
}

int CapsuleCapsule(const Shape& a, const X3& X_WA, const Shape& b,
                   const X3& X_WB, double margin, Contact* out) {
  const V3 ha = a.dims[1] * X_WA.R.col(2), hb = b.dims[1] * X_WB.R.col(2);
  const V3 p1 = X_WA.p - ha, d1 = 2 * ha, p2 = X_WB.p - hb, d2 = 2 * hb;
  const double ra = a.dims[0], rb = b.dims[0];
  const V3 cr = d1.cross(d2);
  if (cr.squaredNorm() <= 1e-12 * d1.squaredNorm() * d2.squaredNorm()) {
    // Parallel axes: the closest points form an interval; report its two
    // ends (a capsule lying along another gets a two-point manifold).
    const double dd = d1.squaredNorm();
    double t0 = (p2 - p1).dot(d1) / dd, t1 = (p2 + d2 - p1).dot(d1) / dd;
    if (t0 > t1) std::swap(t0, t1);
    const double lo = std::max(0.0, t0), hi = std::min(1.0, t1);
    if (lo <= hi) {
      int n = 0;
      for (const double s : {lo, hi}) {
        const V3 x = p1 + s * d1;
        const double t = ClosestOnSegment(p2, p2 + d2, x);
        n += SpheresAt(x, ra, p2 + t * d2, rb, margin, out + n);
        if (hi - lo < 1e-12) break;
      }
      return n;
    }
  }
  double s, t;
  ClosestSegmentSegment(p1, d1, p2, d2, &s, &t);
  return SpheresAt(p1 + s * d1, ra, p2 + t * d2, rb, margin, out);
}

// --- Against a half-space B: boundary through X_WB.p, outward normal z.
// For a point x of A, phi = nH·(x - p0); the normal from A to B is -nH.

inline void HalfSpacePoint(const V3& x, const V3& nH, const V3& p0,
                           double margin, DeepestPoints* pts) {
  const double phi = nH.dot(x - p0);
  if (phi <= margin) pts->Offer(-nH, phi, x, x - phi * nH);
}

int SphereHalfSpace(const Shape& a, const X3& X_WA, const Shape&,
                    const X3& X_WB, double margin, Contact* out) {
  const V3 nH = X_WB.R.col(2);
  DeepestPoints pts(out);
  HalfSpacePoint(X_WA.p - a.dims[0] * nH, nH, X_WB.p, margin, &pts);
  return pts.count();
}

int CapsuleHalfSpace(const Shape& a, const X3& X_WA, const Shape&,
                     const X3& X_WB, double margin, Contact* out) {
  const V3 nH = X_WB.R.col(2);
  const V3 h = a.dims[1] * X_WA.R.col(2);
  DeepestPoints pts(out);
  HalfSpacePoint(X_WA.p - h - a.dims[0] * nH, nH, X_WB.p, margin, &pts);
  HalfSpacePoint(X_WA.p + h - a.dims[0] * nH, nH, X_WB.p, margin, &pts);
  return pts.count();
}

int BoxHalfSpace(const Shape& a, const X3& X_WA, const Shape&, const X3& X_WB,
                 double margin, Contact* out) {
  const V3 nH = X_WB.R.col(2);
  const V3 ex = a.dims.x() * X_WA.R.col(0), ey = a.dims.y() * X_WA.R.col(1),
           ez = a.dims.z() * X_WA.R.col(2);
  // Skip the corners that cannot be within the margin: the box's lowest
  // point is at phi_c - sum |nH·e|.
  const double phi_c = nH.dot(X_WA.p - X_WB.p);
  if (phi_c - std::abs(nH.dot(ex)) - std::abs(nH.dot(ey)) -
          std::abs(nH.dot(ez)) >
      margin) {
    return 0;
  }
  DeepestPoints pts(out);
  for (int i = 0; i < 8; ++i) {
    const V3 x = X_WA.p + ((i & 1) ? ex : V3(-ex)) + ((i & 2) ? ey : V3(-ey)) +
                 ((i & 4) ? ez : V3(-ez));
    HalfSpacePoint(x, nH, X_WB.p, margin, &pts);
  }
  return pts.count();
}

// The rim points of a cylinder (unit axis, radius r) that face a plane of
// outward unit normal n, as offsets from each cap's centre: offsets[0] = r
// w, w the direction in the cap that goes deepest (`fallback` when the
// axis is along n). A cap within kFlatTilt (~0.6 degrees) of parallel to
// the plane is treated as face down: then also -r w and +-r (axis x w),
// four rim points at quarter turns, each at its own depth, so a standing
// cylinder rests. (Within 1e-3 rad only, a cylinder 5 cm into the floor
// after an impact at 5 ms steps, tilted a few mrad, had one point; the
// position correction rotated it about that point instead of lifting it,
// the tilt and the point flipped sides every step, and it sank: MuJoCo's
// humanoid100 at 4.9 ms.) Within 1e-4 rad of
// parallel the quarter turns start from `fallback` (projected into the
// cap; callers pass a direction fixed to the cylinder or to the pair)
// instead of the deepest direction, whose azimuth a resting cylinder's
// round-off tilt turns at random: the points then stay where they were
// from step to step (their warm starts match), and the deepest of them is
// at most r sin(tilt) (1 - cos 45 deg) < 3e-5 r shallower than the rim's
// lowest point. Returns how many offsets to use (1, or 4 when flat).
inline int RimTowardPlane(const V3& axis, const V3& n, double r,
                          const V3& fallback, V3 offsets[4]) {
  V3 w = -(n - n.dot(axis) * axis);
  const double s = w.norm();
  if (s < 1e-4) {
    w = fallback - fallback.dot(axis) * axis;
    const double f = w.norm();
    w = f > 1e-12 ? V3(w / f) : AnyOrthogonal(axis);
  } else {
    w /= s;
  }
  const V3 v = axis.cross(w);
  offsets[0] = r * w;
  offsets[1] = -(r * w);
  offsets[2] = r * v;
  offsets[3] = -(r * v);
  return s < kFlatTilt ? 4 : 1;
}

int CylinderHalfSpace(const Shape& a, const X3& X_WA, const Shape&,
                      const X3& X_WB, double margin, Contact* out) {
  const V3 nH = X_WB.R.col(2);
  const V3 axis = X_WA.R.col(2);
  const double h = a.dims[1];
  V3 offsets[4];
  const int n = RimTowardPlane(axis, nH, a.dims[0], X_WA.R.col(0), offsets);
  DeepestPoints pts(out);
  for (const double side : {-1.0, 1.0}) {
    const V3 cc = X_WA.p + side * h * axis;
    for (int i = 0; i < n; ++i) {
      HalfSpacePoint(cc + offsets[i], nH, X_WB.p, margin, &pts);
    }
  }
  return pts.count();
}

// Box A (half sizes e) apart from the rim of cylinder B's cap, in A's
// frame: B's centre c, axis u, radius r, half length h, the cap at side
// (+-1). The rim's squared distance to the box, f(t) = |p - q|^2 with p(t)
// = cc + r (cos t a1 + sin t a2) and q the box's point closest to p, is
// minimized over t by Newton's method (f' = 2 (p - q) . p', f'' = 2 (|p'|^2
// over the clamped coordinates + (p - q) . p'')), from the rim point facing
// the box's point closest to the cap's centre. That gives an upper bound d
// of the pair's distance (q and p are points of each); the direction n = (p
// - q) / d gives a lower bound, the gap between the box's and the
// cylinder's supports along n (a separating axis). When they agree to 1e-9
// (d + r), d is the pair's distance and q, p its closest points: writes the
// contact (if within the margin) and returns the count. Returns -1 when they
// do not agree (the closest points lie elsewhere, a local minimum, or the
// pair overlaps): the caller takes the general route. A forearm's end
// beside a torso's edge costs a few Newton steps here instead of GJK's 20
// to 30 iterations on the curved rim (37,000 instructions a pair).
int RimApartFromBox(const V3& e, const V3& c, const V3& u, double r, double h,
                    double side, const X3& X_WA, double margin, Contact* out) {
  const V3 cc = c + side * h * u;
  V3 w = cc.cwiseMax(-e).cwiseMin(e) - cc;
  w -= w.dot(u) * u;
  const V3 a1 =
      w.squaredNorm() > 1e-24 * r * r ? V3(w.normalized()) : AnyOrthogonal(u);
  const V3 a2 = u.cross(a1);
  double t = 0;
  V3 p, q, g;
  for (int iter = 0; iter < 30; ++iter) {
    const double ct = std::cos(t), st = std::sin(t);
    const V3 radial = r * (ct * a1 + st * a2), dp = r * (ct * a2 - st * a1);
    p = cc + radial;
    q = p.cwiseMax(-e).cwiseMin(e);
    g = p - q;
    if (iter == 29) break;
    const double f1 = g.dot(dp);
    double f2 = -g.dot(radial);
    for (int i = 0; i < 3; ++i) {
      if (q[i] != p[i]) f2 += dp[i] * dp[i];
    }
    const double step =
        std::clamp(f2 > 0 ? -f1 / f2 : (f1 > 0 ? -0.5 : 0.5), -0.5, 0.5);
    if (std::abs(step) < 1e-13) break;
    t += step;
  }
  const double d = g.norm();
  if (!(d > 0)) return -1;
  const V3 n = g / d;
  const double nu = n.dot(u);
  const double gap = n.dot(c) - h * std::abs(nu) -
                     r * std::sqrt(std::max(0.0, 1 - nu * nu)) -
                     e.dot(n.cwiseAbs());
  if (!(d - gap <= 1e-9 * (d + r))) return -1;
  if (d > margin) return 0;
  Set(out, X_WA.R * n, d, X_WA * q, X_WA * p);
  return 1;
}

// Box A against the side of cylinder B (a small box against a limb):
// GJK on the box and the cylinder's axis segment, two polytopes, which
// ends in a few iterations, gives the box's point x closest to the axis,
// at distance d from its point s, and n = (s - x) / d. When s is interior
// to the axis, n is normal to it and x is the box's deepest point along n,
// at depth r - d under the side (or d - r apart). The ball of that radius
// about x lies in the cylinder when s is at least that far from both ends,
// so the signed distance is d - r exactly (the argument of BoxCylinder's
// face route). Otherwise the general route.
int BoxCylinderSide(const Shape& a, const X3& X_WA, const Shape& b,
                    const X3& X_WB, double margin, Contact* out) {
  Shape axis;
  axis.kind = ShapeKind::kCapsule;  // of radius 0: its core, the segment
  axis.dims = V3(0, b.dims[1], 0);
  const double r = b.dims[0], h = b.dims[1];
  const GjkResult g =
      Gjk(MakeObject(a, X_WA), MakeObject(axis, X_WB), margin + r);
  if (g.beyond) return 0;  // the cylinder lies in the capsule around the axis
  if (!g.overlap) {
    const double t = X_WB.R.col(2).dot(g.p_WB - X_WB.p);
    // Strictly interior (an end's closest point need not be normal to the
    // axis), and the ball under the side within the cylinder.
    if (std::abs(t) < h * (1 - 1e-9) &&
        std::abs(t) <= h - std::max(0.0, r - g.distance)) {
      const V3 n = (g.p_WB - g.p_WA) / g.distance;
      const double phi = g.distance - r;
      if (phi > margin) return 0;
      Set(out, n, phi, g.p_WA, g.p_WB - r * n);
      return 1;
    }
    // An end nearest the box: its rim, apart from the box.
    const int count =
        RimApartFromBox(a.dims, X_WA.R.transpose() * (X_WB.p - X_WA.p),
                        X_WA.R.transpose() * X_WB.R.col(2), r, h,
                        t >= 0 ? 1 : -1, X_WA, margin, out);
    if (count >= 0) return count;
  }
  return GeneralConvex(a, X_WA, b, X_WB, margin, out);
}

// Box A against the cap of cylinder B (a box on a post, a hand's corner
// against its forearm's end): the cap facing the box is a half-space for
// it, touched at the box's corners under it. Exact by BoxCylinder's
// argument when the box's deepest corner along the axis, at depth d, lies
// over the cap shrunk by d and the cylinder is at least d long: then the
// axis's gap is the signed distance. The corners over the cap within the
// margin make the manifold (the 4 deepest). Otherwise the side route.
int BoxCylinderCap(const Shape& a, const X3& X_WA, const Shape& b,
                   const X3& X_WB, double margin, Contact* out) {
  const V3 c = X_WA.R.transpose() * (X_WB.p - X_WA.p);
  const V3 u = X_WA.R.transpose() * X_WB.R.col(2);
  const double r = b.dims[0], h = b.dims[1];
  const V3& e = a.dims;
  // The cap's outward normal m, toward the box's centre (the origin).
  const V3 m = u.dot(c) <= 0 ? u : V3(-u);
  const double plane = m.dot(c) + h;  // the cap's plane: m . x = plane
  auto height = [&](const V3& x) { return m.dot(x) - plane; };
  auto radial = [&](const V3& x) {
    const V3 d = x - c;
    return (d - d.dot(u) * u).norm();
  };
  const V3 deepest(m.x() > 0 ? -e.x() : e.x(), m.y() > 0 ? -e.y() : e.y(),
                   m.z() > 0 ? -e.z() : e.z());
  const double depth = std::max(0.0, -height(deepest));
  if (!(radial(deepest) <= r - depth && h >= depth)) {
    return BoxCylinderSide(a, X_WA, b, X_WB, margin, out);
  }
  const V3 n_W = -(X_WA.R * m);
  DeepestPoints pts(out);
  for (int i = 0; i < 8; ++i) {
    const V3 x((i & 1) ? e.x() : -e.x(), (i & 2) ? e.y() : -e.y(),
               (i & 4) ? e.z() : -e.z());
    const double phi = height(x);
    if (phi <= margin && radial(x) <= r) {
      pts.Offer(n_W, phi, X_WA * x, X_WA * V3(x - phi * m));
    }
  }
  return pts.count();
}

// Four of the nc candidate points (a flat contact region's vertices on
// the surface of B, depths phi[i] along the unit normal m, A to B, all in
// one frame) spanning the region: the deepest, the one farthest from it,
// then the farthest on either side of the line through those two (the
// largest triangles). Writes the contacts (p_WA = y - phi m, p_WB = y,
// mapped by X) within the margin and returns their number. `scale` (m) sets
// what counts as a distinct point (1e-9 scale^2).
//
// A region lying flat is often symmetric (a cap on a face as wide as it):
// two candidates then tie for a pick, in depth, distance or area, and
// round-off would pick one or the other from step to step, points a
// region's width apart, each new to the warm start. So each pick is the
// first candidate (in the callers' fixed order) within a relative 1e-6 of
// the best (1e-6 scale in depth: the reported deepest point is at most
// that much shallower than the deepest candidate).
int SpanningManifold(const V3* cand, const double* phi, int nc, const V3& m,
                     double scale, const X3& X, double margin, Contact* out) {
  if (nc == 0) return 0;
  constexpr double kTie = 1e-6;
  int pick[4] = {0, -1, -1, -1};
  double deepest = phi[0];
  for (int i = 1; i < nc; ++i) deepest = std::min(deepest, phi[i]);
  while (phi[pick[0]] > deepest + kTie * scale) ++pick[0];
  const V3& p0 = cand[pick[0]];
  // The first index whose value is within kTie of the largest above
  // `floor` (-1 if none).
  auto first_best = [&](auto value, double floor) {
    double best = floor;
    for (int i = 0; i < nc; ++i) best = std::max(best, value(i));
    if (!(best > floor)) return -1;
    for (int i = 0; i < nc; ++i) {
      if (value(i) > floor && value(i) >= best * (1 - kTie)) return i;
    }
    return -1;
  };
  const double distinct = 1e-9 * scale * scale;
  pick[1] =
      first_best([&](int i) { return (cand[i] - p0).squaredNorm(); }, distinct);
  if (pick[1] >= 0) {
    const V3 along = cand[pick[1]] - p0;
    auto area = [&](int i) { return m.dot(along.cross(cand[i] - p0)); };
    pick[2] = first_best(area, distinct);
    pick[3] = first_best([&](int i) { return -area(i); }, distinct);
  }
  const V3 n_W = X.R * m;
  int count = 0;
  for (const int i : pick) {
    if (i < 0 || phi[i] > margin) continue;
    const V3& y = cand[i];
    Set(&out[count++], n_W, phi[i], X * V3(y - phi[i] * m), X * y);
  }
  return count;
}

// A cylinder's cap lying flat on a box's face (the cap's normal within
// kFlatTilt of the face's: RimTowardPlane's flat) and overhanging it, in the
// box's frame: the cap's centre cc, axis u and radius r; the face is k,
// sign of the box with half sizes e. The region where the cap lies over
// the face (disk and rectangle) is convex; the depths of the cap's points
// along the face normal are linear on it, so the deepest point over the
// face, at depth d_f, is a vertex of the region: the lowest rim point, a
// face corner under the disk, or where the rim crosses a face edge (all
// found here on the cap's own, tilted plane). Lifting the cylinder by d_f
// along the normal separates the pair (what is not over the face is
// beside the box), and the ball argument of BoxCylinder at the cap's
// centre (over the face shrunk by the depth: the caller's test) bounds the
// depth from below by the centre's, at most r sin(tilt) <= 1e-2 r less:
// the reported signed distance -d_f is exact for a cap lying exactly flat
// and at most 1e-2 r too deep otherwise. The manifold is 4 vertices
// spanning the region, the deepest among them (instead of the general
// route's one point jumping between the region's ends from step to step).
int FlatCapOnFace(const V3& cc, const V3& u, double r, const V3& e, int k,
                  double sign, const X3& X_WA, double margin, Contact* out) {
  const int j1 = (k + 1) % 3, j2 = (k + 2) % 3;
  V3 m = V3::Zero();
  m[k] = sign;
  const V3 a1 = AnyOrthogonal(u), a2 = u.cross(a1);
  auto over_face = [&](const V3& y) {
    return std::abs(y[j1]) <= e[j1] * (1 + 1e-12) &&
           std::abs(y[j2]) <= e[j2] * (1 + 1e-12);
  };
  V3 cand[16];
  int nc = 0;
  // The lowest rim point and the other quarter turns (RimTowardPlane).
  V3 offsets[4];
  RimTowardPlane(u, m, r, a1, offsets);
  for (const V3& o : offsets) {
    if (over_face(cc + o)) cand[nc++] = cc + o;
  }
  // Face corners under the disk, lifted along m onto the cap's plane.
  for (int i = 0; i < 4; ++i) {
    V3 x = V3::Zero();
    x[j1] = (i & 1) ? e[j1] : -e[j1];
    x[j2] = (i & 2) ? e[j2] : -e[j2];
    const V3 y = x + (u.dot(cc - x) / u.dot(m)) * m;
    if ((y - cc).squaredNorm() <= r * r) cand[nc++] = y;
  }
  // The rim crossing each face edge: cc + r (cos t a1 + sin t a2) with
  // coordinate j at +-e_j, A cos t + B sin t = C.
  for (const int j : {j1, j2}) {
    const int o = j == j1 ? j2 : j1;
    const double A = r * a1[j], B = r * a2[j], len = std::hypot(A, B);
    for (const double bound : {-e[j], e[j]}) {
      const double C = bound - cc[j];
      if (!(len > 0) || std::abs(C) > len) continue;
      const double base = std::atan2(B, A), spread = std::acos(C / len);
      for (const double t : {base + spread, base - spread}) {
        V3 y = cc + r * (std::cos(t) * a1 + std::sin(t) * a2);
        y[j] = bound;  // on the edge to the bit
        if (std::abs(y[o]) <= e[o]) cand[nc++] = y;
      }
    }
  }
  double phi[16];
  for (int i = 0; i < nc; ++i) phi[i] = sign * cand[i][k] - e[k];
  return SpanningManifold(cand, phi, nc, m, r, X_WA, margin, out);
}

// Box A against cylinder B, through the box face that separates them most
// (separating-axis test on the box's face normals and the cylinder's axis).
// That face is a half-space for the cylinder, which touches it at the
// lowest rim point of each cap (four rim points per cap when a cap lies
// nearly flat on it), as in CylinderHalfSpace; the points that project
// inside the face make the manifold, so an arm lying along a torso or a
// cylinder standing on a table gets two or four points instead of the
// general route's one.
//
// The answer is exact when the cylinder's deepest point y along the face
// normal m at depth d = max(0, -phi) projects inside the face shrunk by d,
// and the box is at least d thick: every translation shorter than d leaves
// y + t in the box, so the signed distance is at most the face's gap,
// which bounds it from below (as any axis does). When apart (d = 0), y is
// then a closest point. Otherwise (a box edge or corner against the side
// or rim) the general route answers. Either axis test beyond the margin
// rejects the pair without it.
int BoxCylinder(const Shape& a, const X3& X_WA, const Shape& b, const X3& X_WB,
                double margin, Contact* out) {
  // The cylinder's center and axis in the box's frame.
  const V3 c = X_WA.R.transpose() * (X_WB.p - X_WA.p);
  const V3 u = X_WA.R.transpose() * X_WB.R.col(2);
  const double r = b.dims[0], h = b.dims[1];
  const V3& e = a.dims;
  // Along the cylinder's axis: the box's extent is sum |u_k| e_k.
  if (std::abs(u.dot(c)) - h - std::abs(u.x()) * e.x() -
          std::abs(u.y()) * e.y() - std::abs(u.z()) * e.z() >
      margin) {
    return 0;
  }
  // Along face normal s e_k: the cylinder's extent is h |u_k| + r sqrt(1 -
  // u_k^2).
  int k = 0;
  double sign = 1, gap = -kInf;
  for (int i = 0; i < 3; ++i) {
    const double extent =
        h * std::abs(u[i]) + r * std::sqrt(std::max(0.0, 1 - u[i] * u[i]));
    const double g = std::abs(c[i]) - extent - e[i];
    if (g > gap) {
      gap = g;
      k = i;
      sign = c[i] >= 0 ? 1 : -1;
    }
  }
  if (gap > margin) return 0;
  V3 m = V3::Zero();
  m[k] = sign;
  // The rim points toward the face, as CylinderHalfSpace's. The deepest of
  // the two lowest (one per cap) is the cylinder's deepest.
  V3 offsets[4];
  const bool flat = RimTowardPlane(u, m, r, AnyOrthogonal(u), offsets) == 4;
  const double depth = std::max(0.0, -gap);
  const int j1 = (k + 1) % 3, j2 = (k + 2) % 3;
  auto inside_face = [&](const V3& y, double shrink) {
    return std::abs(y[j1]) <= e[j1] - shrink &&
           std::abs(y[j2]) <= e[j2] - shrink;
  };
  const V3 n_W = X_WA.R * m;
  DeepestPoints pts(out);
  auto offer = [&](const V3& y) {
    const double phi = sign * y[k] - e[k];
    if (phi <= margin) pts.Offer(n_W, phi, X_WA * V3(y - phi * m), X_WA * y);
  };
  const V3 y0 = c - h * u + offsets[0], y1 = c + h * u + offsets[0];
  const double phi0 = sign * y0[k] - e[k], phi1 = sign * y1[k] - e[k];
  const V3& deepest = phi0 <= phi1 ? y0 : y1;
  if (flat && e[k] >= depth) {
    // A cap lying flat on the face, within it or overhanging it (a hand's
    // flat face on the end of its forearm): the vertices of the region
    // where the cap lies over the face. One route whether or not the rim
    // overhangs, so a cap whose radius equals the face's half width (the
    // humanoid's hand, 0.08 m wide, on its forearm's 0.04 m cap) does not
    // alternate between two manifolds as round-off moves the rim across
    // the face's edge.
    const V3 cc = phi0 <= phi1 ? V3(c - h * u) : V3(c + h * u);
    if (inside_face(cc, depth)) {
      return FlatCapOnFace(cc, u, r, e, k, sign, X_WA, margin, out);
    }
  }
  if (!(inside_face(deepest, depth) && e[k] >= depth)) {
    return BoxCylinderCap(a, X_WA, b, X_WB, margin, out);
  }
  if (flat) {
    // The rim points of each cap that lie over the face.
    for (const double side : {-1.0, 1.0}) {
      for (const V3& o : offsets) {
        const V3 y = c + side * h * u + o;
        if (inside_face(y, 0)) offer(y);
      }
    }
    return pts.count();
  }
  // The side's lowest line from y0 to y1, clipped to the face (Liang and
  // Barsky's parametric clipping): its ends are the manifold, so a
  // cylinder lying across the face's edge is held at that edge.
  double t0 = 0, t1 = 1;
  const V3 d = y1 - y0;
  for (const int j : {j1, j2}) {
    for (const double bound : {-e[j], e[j]}) {
      // Keep the part with (y0 + t d)_j on the inner side of the bound.
      const double outward = bound > 0 ? 1 : -1;
      const double num = outward * (bound - y0[j]), den = outward * d[j];
      if (den == 0) {
        if (num < 0) t1 = -1;  // parallel and outside (not the deepest)
      } else if (den > 0) {
        t1 = std::min(t1, num / den);
      } else {
        t0 = std::max(t0, num / den);
      }
    }
  }
  if (t0 > t1) return GeneralConvex(a, X_WA, b, X_WB, margin, out);
  offer(y0 + t0 * d);
  if (t1 > t0) offer(y0 + t1 * d);
  return pts.count();
}

// Cylinder B's cap against cylinder A's cap (axes within kFlatTilt of
// parallel, the caps' gap separating at least as much as the sides': a
// stack of cylinders, or two standing ones overlapping at their rims): the
// normal n is A's axis toward B, A's facing cap the plane; the region where
// B's cap lies over A's is the intersection of two disks, whose vertices
// (the rims' crossings, each rim's points toward and across the other's
// centre and B's lowest rim point, where inside the other disk; all on B's
// cap, A's lifted onto it) give 4 spanning points (SpanningManifold) at
// their depths along n. For parallel axes the Minkowski difference of the
// pair is a cylinder (half length ha + hb, radius ra + rb), so the signed
// distance is the larger of the caps' and the sides' gaps whenever both
// are not positive, or one is and the disks overlap: exact here (see
// ParallelSides); for a tilt t within (ra + rb + ha + hb) sin(t).
int FlatCapOnCap(const Shape& a, const X3& X_WA, const Shape& b, const X3& X_WB,
                 double margin, Contact* out) {
  const double ra = a.dims[0], ha = a.dims[1], rb = b.dims[0], hb = b.dims[1];
  const V3 ua = X_WA.R.col(2), ub = X_WB.R.col(2);
  // ParallelSides has checked that the axes are parallel within kFlatTilt
  // and that the caps' gap is within the margin.
  const V3 d = X_WB.p - X_WA.p;
  const V3 n = ua.dot(d) >= 0 ? ua : V3(-ua);
  const V3 ca = X_WA.p + ha * n;  // A's cap facing B
  const V3 nb = ub.dot(n) >= 0 ? ub : V3(-ub);
  const V3 cb = X_WB.p - hb * nb;  // B's cap facing A
  const V3 lateral = (cb - ca) - n.dot(cb - ca) * n;
  const double rho = lateral.norm();
  // ParallelSides sends only pairs whose caps' gap separates at least as
  // much as the sides' and that are not apart both ways: the disks then
  // overlap (rho <= ra + rb).
  const V3 u1 = rho > 1e-12 * ra ? V3(lateral / rho) : AnyOrthogonal(n);
  const V3 u2 = n.cross(u1);
  V3 cand[12];
  int nc = 0;
  // Onto B's cap plane along n (nb . n >= cos(kFlatTilt)).
  auto lift = [&](const V3& x) -> V3 {
    return x + (nb.dot(cb - x) / nb.dot(n)) * n;
  };
  auto in_a = [&](const V3& y) {
    const V3 q = (y - ca) - n.dot(y - ca) * n;
    return q.squaredNorm() <= ra * ra * (1 + 1e-12);
  };
  auto in_b = [&](const V3& y) {
    return (y - cb).squaredNorm() <= rb * rb * (1 + 1e-12);
  };
  // B's rim: toward and away from A's centre, across, and its lowest point.
  const V3 w1 = (u1 - nb.dot(u1) * nb).normalized(), w2 = nb.cross(w1);
  V3 low[4];
  RimTowardPlane(nb, n, rb, w1, low);
  for (const V3& o :
       {V3(-rb * w1), V3(rb * w1), V3(rb * w2), V3(-rb * w2), low[0]}) {
    if (in_a(cb + o)) cand[nc++] = cb + o;
  }
  // A's rim, toward and away from B's centre and across, under B's cap.
  for (const V3& o : {V3(ra * u1), V3(-ra * u1), V3(ra * u2), V3(-ra * u2)}) {
    const V3 y = lift(ca + o);
    if (in_b(y)) cand[nc++] = y;
  }
  // The rims' crossings (in A's plane; B's rim there is a circle of radius
  // rb about cb's projection to within the tilt).
  if (rho > std::abs(ra - rb) && rho < ra + rb) {
    const double along = (rho * rho + ra * ra - rb * rb) / (2 * rho);
    const double across = std::sqrt(std::max(0.0, ra * ra - along * along));
    for (const double side : {-1.0, 1.0}) {
      cand[nc++] = lift(ca + along * u1 + side * across * u2);
    }
  }
  double phi[12];
  for (int i = 0; i < nc; ++i) phi[i] = n.dot(cand[i] - ca);
  return SpanningManifold(cand, phi, nc, n, std::min(ra, rb), X3(), margin,
                          out);
}

// Two cylinders with axes within kFlatTilt of parallel. For parallel axes
// the Minkowski difference of the pair is itself a cylinder (half length
// ha + hb, radius ra + rb along A's axis), so the signed distance is exact
// from the two gaps: the sides' (lateral distance - ra - rb) and the caps'
// (axial distance - ha - B's reach): the larger when they are not both
// positive (both positive: rim to rim, apart, the general route; -1).
// The caps' the larger: FlatCapOnCap. The sides' (two cans standing
// together): a line contact along the part of the axes that faces both,
// [t0, t1] in A's axial coordinate; at each end B's axis point and A's
// axis give the distance d, the normal and the depth ra + rb - d: 2
// points (the general route gave one, jumping along the line from step to
// step). For a tilt t the ends' own distances are reported, within
// (ra + rb + ha + hb) sin(t) of the exact one.
int ParallelSides(const Shape& a, const X3& X_WA, const Shape& b,
                  const X3& X_WB, double margin, Contact* out) {
  const double ra = a.dims[0], ha = a.dims[1], rb = b.dims[0], hb = b.dims[1];
  const V3 u = X_WA.R.col(2), ub = X_WB.R.col(2);
  if (std::abs(u.dot(ub)) < std::cos(kFlatTilt)) return -1;
  const V3 d = X_WB.p - X_WA.p;
  const double axial = u.dot(d);
  const double lateral = (d - axial * u).norm();
  const double gap_side = lateral - ra - rb;
  const double reach_b =
      hb * std::abs(u.dot(ub)) +
      rb * std::sqrt(std::max(0.0, 1 - u.dot(ub) * u.dot(ub)));
  const double gap_axis = std::abs(axial) - ha - reach_b;
  if (gap_side > margin || gap_axis > margin) return 0;
  if (gap_side > 0 && gap_axis > 0) return -1;  // rim to rim, apart
  if (gap_axis > gap_side) return FlatCapOnCap(a, X_WA, b, X_WB, margin, out);
  if (!(lateral > 1e-9 * (ra + rb))) return -1;
  // B's axial extent in A's coordinate, and the overlap with A's.
  const double b_lo = axial - hb * std::abs(u.dot(ub)),
               b_hi = axial + hb * std::abs(u.dot(ub));
  const double t0 = std::max(-ha, b_lo), t1 = std::min(ha, b_hi);
  if (!(t1 >= t0)) return -1;
  // B's axis as a function of A's coordinate t.
  const double sgn = u.dot(ub) >= 0 ? 1 : -1;
  int count = 0;
  for (const double t : {t0, t1}) {
    const V3 sa = X_WA.p + t * u;
    const V3 sb = X_WB.p + sgn * ((t - axial) / std::abs(u.dot(ub))) * ub;
    V3 n = (sb - sa) - (sb - sa).dot(u) * u;  // normal to A's axis
    const double dist = n.norm();
    n /= dist;
    const double phi = dist - ra - rb;
    if (phi > margin) continue;
    Set(&out[count++], n, phi, sa + ra * n, sa + (dist - rb) * n);
    if (t1 == t0) break;
  }
  return count;
}

// Cylinder O against the cap of cylinder C facing it (a cylinder lying
// across the end of a standing one, a limb on a post): the cap is a
// half-space for O, which touches it along its side's lowest line (the
// lowest rim point of each of O's caps, RimTowardPlane), clipped to the
// cap's disk: its ends are the manifold, each at its own depth. Exact by
// BoxCylinder's face argument when O's deepest point lies over the disk
// shrunk by its depth d and C is at least d long (every shorter
// translation keeps that point in C; the cap plane bounds the depth from
// the other side). Contacts are written from A to B (`c_is_a`: C is the
// pair's A). Returns -1 when that does not hold.
int CapAgainstCylinder(const Shape& c, const X3& X_WC, const Shape& o,
                       const X3& X_WO, bool c_is_a, double margin,
                       Contact* out) {
  const double rc = c.dims[0], hc = c.dims[1], ro = o.dims[0], ho = o.dims[1];
  const V3 uc = X_WC.R.col(2), uo = X_WO.R.col(2);
  const V3 n = uc.dot(X_WO.p - X_WC.p) >= 0 ? uc : V3(-uc);  // toward O
  const V3 cc = X_WC.p + hc * n;
  V3 offsets[4];
  RimTowardPlane(uo, n, ro, AnyOrthogonal(uo), offsets);
  const V3 y0 = X_WO.p - ho * uo + offsets[0],
           y1 = X_WO.p + ho * uo + offsets[0];
  const double phi0 = n.dot(y0 - cc), phi1 = n.dot(y1 - cc);
  const double gap = std::min(phi0, phi1);
  if (gap > margin) return 0;
  const double depth = std::max(0.0, -gap);
  auto radial2 = [&](const V3& y) {
    const V3 q = (y - cc) - n.dot(y - cc) * n;
    return q.squaredNorm();
  };
  // The deepest point: the lower end, or, with the line level (its ends
  // equally deep to round-off), its point nearest C's axis.
  V3 deepest = phi0 <= phi1 ? y0 : y1;
  if (std::abs(phi0 - phi1) <= 1e-12 * (rc + ro)) {
    deepest =
        y0 + ClosestOnSegment(y0, y1, cc + n.dot(y0 - cc) * n) * (y1 - y0);
  }
  if (!(depth <= rc && radial2(deepest) <= (rc - depth) * (rc - depth) &&
        2 * hc >= depth)) {
    return -1;
  }
  // The line y0 + t (y1 - y0), t in [0, 1], clipped to the disk:
  // |q0 + t dq|^2 <= rc^2.
  const V3 q0 = (y0 - cc) - n.dot(y0 - cc) * n;
  const V3 d = y1 - y0, dq = d - n.dot(d) * n;
  const double qa = dq.squaredNorm(), qb = q0.dot(dq),
               qc = q0.squaredNorm() - rc * rc;
  double t0 = 0, t1 = 1;
  if (qa > 0) {
    const double disc = std::max(0.0, qb * qb - qa * qc);
    t0 = std::max(0.0, (-qb - std::sqrt(disc)) / qa);
    t1 = std::min(1.0, (-qb + std::sqrt(disc)) / qa);
  }
  if (!(t0 <= t1)) return -1;
  int count = 0;
  for (const double t : {t0, t1}) {
    const V3 y = y0 + t * d;
    const double phi = n.dot(y - cc);
    if (phi > margin) continue;
    if (c_is_a) {
      Set(&out[count++], n, phi, y - phi * n, y);
    } else {
      Set(&out[count++], -n, phi, y, y - phi * n);
    }
    if (t1 == t0) break;
  }
  return count;
}

// A capsule or a cylinder A against cylinder B, side to side, by the
// closest points sA, sB of their axes (Ericson 5.1.9), d apart, n = (sB -
// sA) / d. When sB is interior to B's axis (and, for a cylinder A, sA to
// A's), n is normal to the axes there and the shapes' supports along n are
// their radii: the gap d - ra - rb bounds the signed distance from below.
// In overlap, by delta = ra + rb - d, A's point q = sA + ra n lies under
// B's side at depth delta, and the ball of that radius about q lies in B
// when q is on B's near side of its axis and sB is at least delta from B's
// ends (or the same with A and B swapped): every shorter translation keeps
// q in both, so the signed distance is d - ra - rb exactly (one point).
// Otherwise (an end or a rim closest, parallel axes whose closest point is
// an end) the general route; pairs whose capsules are beyond the margin
// are rejected (a cylinder lies in its capsule).
int AxisCylinder(const Shape& a, const X3& X_WA, const Shape& b, const X3& X_WB,
                 double margin, Contact* out) {
  const double ha = a.dims[1], hb = b.dims[1], ra = a.dims[0], rb = b.dims[0];
  const V3 ua = X_WA.R.col(2), ub = X_WB.R.col(2);
  if (a.kind == ShapeKind::kCylinder) {  // parallel sides: a line contact
    const int count = ParallelSides(a, X_WA, b, X_WB, margin, out);
    if (count >= 0) return count;
  }
  const V3 p1 = X_WA.p - ha * ua, d1 = 2 * ha * ua;
  const V3 p2 = X_WB.p - hb * ub, d2 = 2 * hb * ub;
  double s, t;
  ClosestSegmentSegment(p1, d1, p2, d2, &s, &t);
  const V3 sa = p1 + s * d1, sb = p2 + t * d2;
  const double d = (sb - sa).norm();
  if (d > margin + ra + rb) return 0;
  const double delta = std::max(0.0, ra + rb - d);
  const double ta = (2 * s - 1) * ha, tb = (2 * t - 1) * hb;  // from centres
  const bool capsule = a.kind == ShapeKind::kCapsule;
  const bool sides = (capsule || std::abs(ta) < ha * (1 - 1e-9)) &&
                     std::abs(tb) < hb * (1 - 1e-9);
  // The ball under B's side about A's point q (q on B's near side of its
  // axis: d >= ra), or the same with the roles swapped (a capsule holds
  // the ball about B's point, which is within ra of sA, whole).
  const bool ball_in_b = d >= ra && std::abs(tb) <= hb - delta;
  const bool ball_in_a = d >= rb && (capsule || std::abs(ta) <= ha - delta);
  if (d > 1e-12 * (1 + ra + rb) && sides && (ball_in_a || ball_in_b)) {
    const V3 n = (sb - sa) / d;
    const double phi = d - ra - rb;
    if (phi > margin) return 0;
    Set(out, n, phi, sa + ra * n, sb - rb * n);
    return 1;
  }
  if (!capsule) {  // one lying across the other's end
    int count = CapAgainstCylinder(a, X_WA, b, X_WB, true, margin, out);
    if (count < 0) {
      count = CapAgainstCylinder(b, X_WB, a, X_WA, false, margin, out);
    }
    if (count >= 0) return count;
  }
  return GeneralConvex(a, X_WA, b, X_WB, margin, out);
}

int EllipsoidHalfSpace(const Shape& a, const X3& X_WA, const Shape&,
                       const X3& X_WB, double margin, Contact* out) {
  const V3 nH = X_WB.R.col(2);
  const V3 x = X_WA * SupportLocal(a, X_WA.R.transpose() * (-nH));
  DeepestPoints pts(out);
  HalfSpacePoint(x, nH, X_WB.p, margin, &pts);
  return pts.count();
}

// Every hull vertex within the margin (narrow_phase.h), the deepest
// kMaxContactPoints if there are more.
int ConvexHalfSpace(const Shape& a, const X3& X_WA, const Shape&,
                    const X3& X_WB, double margin, Contact* out) {
  const V3 nH = X_WB.R.col(2);
  DeepestPoints pts(out, kMaxContactPoints);
  for (const V3& v : a.convex->vertices) {
    HalfSpacePoint(X_WA * v, nH, X_WB.p, margin, &pts);
  }
  return pts.count();
}

// --- Box against box: separating axes (Gottschalk, Lin, Manocha, "OBBTree",
// SIGGRAPH 1996; Ericson 4.4.1), then a face clipped against a face
// (Sutherland-Hodgman) or the closest points of two edges.

struct BoxPose {
  V3 c;
  M3 R;
  V3 h;
};

// Clips polygon `in` (n points) by the plane dot(a, x) <= d into `out`.
int ClipPolygon(const V3* in, int n, const V3& a, double d, V3* out) {
  int m = 0;
  for (int i = 0; i < n; ++i) {
    const V3& p = in[i];
    const V3& q = in[(i + 1) % n];
    const double dp = a.dot(p) - d, dq = a.dot(q) - d;
    if (dp <= 0) out[m++] = p;
    if ((dp < 0 && dq > 0) || (dp > 0 && dq < 0)) {
      out[m++] = p + (dp / (dp - dq)) * (q - p);
    }
  }
  return m;
}

// Face `k` of `ref` with outward normal nr (world) clipped against the
// incident face of `inc`. Offers (point on inc, phi above the ref face).
// ref_is_a: whether `ref` is shape A (then n = nr, else n = -nr).
void FaceManifold(const BoxPose& ref, int k, const V3& nr, const BoxPose& inc,
                  bool ref_is_a, double margin, DeepestPoints* pts,
                  Contact* scratch_out) {
  (void)scratch_out;
  // Incident face: the face of inc most anti-parallel to nr.
  int m = 0;
  double best = -1;
  for (int i = 0; i < 3; ++i) {
    const double x = std::abs(nr.dot(inc.R.col(i)));
    if (x > best) {
      best = x;
      m = i;
    }
  }
  const double sm = nr.dot(inc.R.col(m)) > 0 ? -1 : 1;
  const int u = (m + 1) % 3, v = (m + 2) % 3;
  const V3 fc = inc.c + sm * inc.h[m] * inc.R.col(m);
  const V3 U = inc.h[u] * inc.R.col(u), Vv = inc.h[v] * inc.R.col(v);
  V3 poly[8] = {fc + U + Vv, fc - U + Vv, fc - U - Vv, fc + U - Vv};
  V3 tmp[8];
  int n = 4;
  const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
  for (const int axis : {k1, k2}) {
    const V3 a = ref.R.col(axis);
    const double d = a.dot(ref.c);
    n = ClipPolygon(poly, n, a, d + ref.h[axis], tmp);
    n = ClipPolygon(tmp, n, -a, -d + ref.h[axis], poly);
  }
  const double face = nr.dot(ref.c) + ref.h[k];
  V3 p[8];
  double phi[8];
  int m_in = 0;
  for (int i = 0; i < n; ++i) {
    const double d = nr.dot(poly[i]) - face;
    if (d > margin) continue;
    p[m_in] = poly[i];
    phi[m_in++] = d;
  }
  // More than 4 points (an octagon when two equal faces are turned 45
  // degrees): keep 4 that span the patch, so that a resting box does not
  // rock: the deepest, the farthest from it, the one making the largest
  // triangle with those two, and the farthest on the other side of the
  // first two.
  int keep[4] = {0, 1, 2, 3};
  int nk = std::min(m_in, 4);
  if (m_in > 4) {
    int i0 = 0;
    for (int i = 1; i < m_in; ++i)
      if (phi[i] < phi[i0]) i0 = i;
    int i1 = i0 == 0 ? 1 : 0;
    for (int i = 0; i < m_in; ++i) {
      if ((p[i] - p[i0]).squaredNorm() > (p[i1] - p[i0]).squaredNorm()) i1 = i;
    }
    const V3 e = p[i1] - p[i0];
    int i2 = -1;
    double best = -1;
    for (int i = 0; i < m_in; ++i) {
      const double a = e.cross(p[i] - p[i0]).squaredNorm();
      if (i != i0 && i != i1 && a > best) {
        best = a;
        i2 = i;
      }
    }
    const V3 side = e.cross(p[i2] - p[i0]);  // normal of the triangle
    int i3 = -1;
    best = -1;
    for (int i = 0; i < m_in; ++i) {
      if (i == i0 || i == i1 || i == i2) continue;
      // Area on the far side of edge (i0, i1) from i2.
      const double a = -e.cross(p[i] - p[i0]).dot(side);
      if (a > best) {
        best = a;
        i3 = i;
      }
    }
    keep[0] = i0;
    keep[1] = i1;
    keep[2] = i2;
    keep[3] = i3;
  }
  for (int k2 = 0; k2 < nk; ++k2) {
    const int i = keep[k2];
    const V3 on_ref = p[i] - phi[i] * nr;
    if (ref_is_a) {
      pts->Offer(nr, phi[i], on_ref, p[i]);
    } else {
      pts->Offer(-nr, phi[i], p[i], on_ref);
    }
  }
}

int BoxBox(const Shape& a, const X3& X_WA, const Shape& b, const X3& X_WB,
           double margin, Contact* out) {
  const BoxPose A{X_WA.p, X_WA.R, a.dims}, B{X_WB.p, X_WB.R, b.dims};
  const V3 t = B.c - A.c;
  // Test all 15 axes; keep the one of largest separation (least overlap).
  double best_face = -kInf, best_edge = -kInf;
  int face_axis = -1, edge_i = -1, edge_j = -1;
  V3 edge_n = V3::Zero();
  auto sep = [&](const V3& L) {
    double ra = 0, rb = 0;
    for (int k = 0; k < 3; ++k) {
      ra += A.h[k] * std::abs(L.dot(A.R.col(k)));
      rb += B.h[k] * std::abs(L.dot(B.R.col(k)));
    }
    return std::abs(L.dot(t)) - ra - rb;
  };
  for (int i = 0; i < 6; ++i) {
    const V3 L = i < 3 ? V3(A.R.col(i)) : V3(B.R.col(i - 3));
    const double s = sep(L);
    if (s > margin) return 0;
    if (s > best_face) {
      best_face = s;
      face_axis = i;
    }
  }
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      V3 L = A.R.col(i).cross(B.R.col(j));
      const double len = L.norm();
      if (len < 1e-9) continue;  // parallel edges: a face axis covers it
      L /= len;
      const double s = sep(L);
      if (s > margin) return 0;
      if (s > best_edge) {
        best_edge = s;
        edge_i = i;
        edge_j = j;
        edge_n = L;
      }
    }
  }
  // Prefer a face axis unless an edge axis separates clearly more: face
  // contacts give stable manifolds, and near ties are rounding.
  // An edge axis within about 11 degrees of the best face axis (two edges
  // lying nearly in the plane of a face, as when a box rests on another
  // turned about the vertical) stands for a face contact: the face's
  // clipped manifold is kept, not one edge-edge point.
  const V3 face_dir =
      face_axis < 3 ? V3(A.R.col(face_axis)) : V3(B.R.col(face_axis - 3));
  // (Unless only the edge axis separates: then the shapes are apart and
  // GJK's point is the contact.)
  // Overlapping, the edge axis still wins when it is more than 5 %
  // shallower: the rule of ODE's dBoxBox ("fudge factor" 1.05), so the
  // depth is never larger than what ODE (and FCL, which uses dBoxBox)
  // reports for the pair.
  const bool near_face = std::abs(edge_n.dot(face_dir)) >= 0.98 &&
                         !(best_edge > 0 && best_face <= 0) &&
                         !(best_edge < 0 && 1.05 * best_edge > best_face);
  const bool use_edge =
      best_edge > best_face + 1e-9 + 1e-6 * std::abs(best_face) && !near_face;
  const double best = use_edge ? best_edge : best_face;
  // Apart: the axes bound the distance from below; GJK gives it exactly.
  // When a face axis separates, the incident face clipped to the reference
  // face still gives up to 4 points within the margin, each at its
  // distance from the reference face, even when a corner overhangs the
  // face and GJK's closest pair is elsewhere: a box resting on a turned box
  // then keeps a 4-point manifold on both sides of phi = 0 instead of
  // alternating with a single point (which makes a time-stepping stack
  // rock). GJK's closest pair is added to the face's points (replacing the
  // farthest if there are 4), so the smallest phi stays the exact distance.
  Contact g;
  g.signed_distance = kInf;
  if (best > 0) {
    g = ConvexPair(MakeObject(a, X_WA), MakeObject(b, X_WB));
    if (g.signed_distance > margin) return 0;
    if (use_edge) {
      out[0] = g;
      return 1;
    }
  }
  DeepestPoints pts(out);
  if (!use_edge) {
    if (face_axis < 3) {
      const V3 ax = A.R.col(face_axis);
      const V3 nr = ax.dot(t) >= 0 ? ax : V3(-ax);
      FaceManifold(A, face_axis, nr, B, true, margin, &pts, out);
    } else {
      const V3 ax = B.R.col(face_axis - 3);
      const V3 nr = ax.dot(t) <= 0 ? ax : V3(-ax);
      FaceManifold(B, face_axis - 3, nr, A, false, margin, &pts, out);
    }
    if (pts.count() > 0) {
      double phi_min = kInf;
      for (int i = 0; i < pts.count(); ++i) {
        phi_min = std::min(phi_min, out[i].signed_distance);
      }
      if (g.signed_distance < phi_min - 1e-12 * (1 + std::abs(phi_min))) {
        pts.Offer(g.normal, g.signed_distance, g.p_WA, g.p_WB);
      }
      return pts.count();
    }
  }
  // Edge against edge (or a face case whose clipped polygon came out empty
  // by rounding): the closest points of the two supporting edges.
  V3 n = edge_n;
  int ei = edge_i, ej = edge_j;
  if (!use_edge || ei < 0) {
    const Contact g = ConvexPair(MakeObject(a, X_WA), MakeObject(b, X_WB));
    out[0] = g;
    return g.signed_distance <= margin ? 1 : 0;
  }
  if (n.dot(t) < 0) n = -n;
  V3 pa = A.c, pb = B.c;
  for (int k = 0; k < 3; ++k) {
    if (k != ei) pa += (n.dot(A.R.col(k)) >= 0 ? 1 : -1) * A.h[k] * A.R.col(k);
    if (k != ej) pb -= (n.dot(B.R.col(k)) >= 0 ? 1 : -1) * B.h[k] * B.R.col(k);
  }
  const V3 da = 2 * A.h[ei] * A.R.col(ei), db = 2 * B.h[ej] * B.R.col(ej);
  const V3 qa = pa - 0.5 * da, qb = pb - 0.5 * db;
  double s, u;
  ClosestSegmentSegment(qa, da, qb, db, &s, &u);
  const V3 wa = qa + s * da, wb = qb + u * db;
  Set(out, n, n.dot(wb - wa), wa, wb);
  return 1;
}

// --- Triangle mesh (B, static) against a convex shape A: the mesh's BVH is
// walked with A's box; each triangle near A gives at most one point (GJK
// when apart, depth along the triangle's normal when overlapping), and the
// deepest kMaxManifoldPoints are kept.
int ConvexMesh(const Shape& a, const X3& X_WA, const Shape& b, const X3& X_WB,
               double margin, Contact* out) {
  const TriangleMesh& mesh = *b.mesh;
  const X3 X_BA = X_WB.inverse() * X_WA;
  V3 lo, hi;
  ShapeAabb(a, X_BA, &lo, &hi);
  lo.array() -= margin;
  hi.array() += margin;
  const ConvexObject A = MakeObject(a, X_WA);
  DeepestPoints pts(out);
  int stack[64];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const TriangleMesh::Node& node = mesh.nodes[stack[--top]];
    if ((node.lo.array() > hi.array()).any() ||
        (node.hi.array() < lo.array()).any()) {
      continue;
    }
    if (node.count == 0) {
      const int self = static_cast<int>(&node - mesh.nodes.data());
      if (top + 2 > 64) continue;  // deeper than any BVH of < 2^60 triangles
      stack[top++] = node.right;
      stack[top++] = self + 1;
      continue;
    }
    for (int k = node.first; k < node.first + node.count; ++k) {
      const Eigen::Vector3i& tri = mesh.triangles[mesh.order[k]];
      ConvexObject T;
      for (int v = 0; v < 3; ++v) T.tri[v] = X_WB * mesh.vertices[tri[v]];
      T.center = (T.tri[0] + T.tri[1] + T.tri[2]) / 3.0;
      const GjkResult g = Gjk(A, T);
      Contact c;
      if (CoreContact(A, T, g, &c)) {
        if (c.signed_distance <= margin) {
          pts.Offer(c.normal, c.signed_distance, c.p_WA, c.p_WB);
        }
        continue;
      }
      // Overlapping: MPR needs an interior point, which a flat triangle
      // lacks, so the depth is taken along the triangle's outward normal
      // (the usual terrain rule): A's deepest point below its plane.
      const V3 nt =
          (T.tri[1] - T.tri[0]).cross(T.tri[2] - T.tri[0]).normalized();
      const V3 s = A.Support(-nt);
      const double phi = nt.dot(s - T.tri[0]);
      if (phi <= margin) pts.Offer(-nt, phi, s, s - phi * nt);
    }
  }
  return pts.count();
}

// ---------------------------------------------------------------------------
// The table: kernels for ordered kinds (a, b); Swapped<f> serves (b, a).

using Kernel = int (*)(const Shape&, const X3&, const Shape&, const X3&, double,
                       Contact*);

template <Kernel f>
int Swapped(const Shape& a, const X3& X_WA, const Shape& b, const X3& X_WB,
            double margin, Contact* out) {
  const int n = f(b, X_WB, a, X_WA, margin, out);
  for (int i = 0; i < n; ++i) {
    out[i].normal = -out[i].normal;
    std::swap(out[i].p_WA, out[i].p_WB);
  }
  return n;
}

struct KernelTable {
  Kernel k[kNumShapeKinds][kNumShapeKinds] = {};
  template <Kernel f>
  constexpr void Put(ShapeKind a, ShapeKind b) {
    k[static_cast<int>(a)][static_cast<int>(b)] = f;
    if (a != b) k[static_cast<int>(b)][static_cast<int>(a)] = &Swapped<f>;
  }
};

constexpr KernelTable MakeTable() {
  using K = ShapeKind;
  KernelTable t;
  constexpr K convex[] = {K::kSphere,   K::kCapsule,   K::kBox,
                          K::kCylinder, K::kEllipsoid, K::kConvex};
  for (K a : convex) {
    for (K b : convex)
      t.k[static_cast<int>(a)][static_cast<int>(b)] = &GeneralConvex;
    t.Put<&ConvexMesh>(a, K::kTriangleMesh);
  }
  t.Put<&SphereSphere>(K::kSphere, K::kSphere);
  t.Put<&SphereCapsule>(K::kSphere, K::kCapsule);
  t.Put<&SphereBox>(K::kSphere, K::kBox);
  t.Put<&SphereCylinder>(K::kSphere, K::kCylinder);
  t.Put<&CapsuleCapsule>(K::kCapsule, K::kCapsule);
  t.Put<&BoxCylinder>(K::kBox, K::kCylinder);
  t.Put<&AxisCylinder>(K::kCapsule, K::kCylinder);
  t.Put<&AxisCylinder>(K::kCylinder, K::kCylinder);
  t.Put<&BoxBox>(K::kBox, K::kBox);
  t.Put<&SphereHalfSpace>(K::kSphere, K::kHalfSpace);
  t.Put<&CapsuleHalfSpace>(K::kCapsule, K::kHalfSpace);
  t.Put<&BoxHalfSpace>(K::kBox, K::kHalfSpace);
  t.Put<&CylinderHalfSpace>(K::kCylinder, K::kHalfSpace);
  t.Put<&EllipsoidHalfSpace>(K::kEllipsoid, K::kHalfSpace);
  t.Put<&ConvexHalfSpace>(K::kConvex, K::kHalfSpace);
  return t;
}

constexpr KernelTable kTable = MakeTable();

}  // namespace

int CollideShapes(const Shape& a, const X3& X_WA, const Shape& b,
                  const X3& X_WB, double margin, Contact* out) {
  const Kernel f = kTable.k[static_cast<int>(a.kind)][static_cast<int>(b.kind)];
  return f != nullptr ? f(a, X_WA, b, X_WB, margin, out) : 0;
}

bool HasCollisionKernel(ShapeKind a, ShapeKind b) {
  return kTable.k[static_cast<int>(a)][static_cast<int>(b)] != nullptr;
}

Contact ConvexConvexGeneral(const Shape& a, const X3& X_WA, const Shape& b,
                            const X3& X_WB) {
  return ConvexPair(MakeObject(a, X_WA), MakeObject(b, X_WB));
}

// ---------------------------------------------------------------------------

bool ShapeAabb(const Shape& s, const X3& X, V3* lo, V3* hi) {
  const M3& R = X.R;
  V3 e = V3::Zero();  // half extents of the world box
  V3 c = X.p;
  switch (s.kind) {
    case ShapeKind::kSphere:
      e.setConstant(s.dims[0]);
      break;
    case ShapeKind::kCapsule:
      e = s.dims[1] * R.col(2).cwiseAbs() + V3::Constant(s.dims[0]);
      break;
    case ShapeKind::kBox:
      e = R.cwiseAbs() * s.dims;
      break;
    case ShapeKind::kCylinder:
      for (int i = 0; i < 3; ++i) {
        const double az = R(i, 2);
        e[i] = s.dims[1] * std::abs(az) +
               s.dims[0] * std::sqrt(std::max(0.0, 1 - az * az));
      }
      break;
    case ShapeKind::kEllipsoid:
      for (int i = 0; i < 3; ++i) {
        e[i] = R.row(i).cwiseProduct(s.dims.transpose()).norm();
      }
      break;
    case ShapeKind::kConvex:
    case ShapeKind::kTriangleMesh: {
      const V3& l =
          s.kind == ShapeKind::kConvex ? s.convex->lo : s.mesh->nodes[0].lo;
      const V3& u =
          s.kind == ShapeKind::kConvex ? s.convex->hi : s.mesh->nodes[0].hi;
      c = X * (0.5 * (l + u));
      e = R.cwiseAbs() * (0.5 * (u - l));
      break;
    }
    case ShapeKind::kHalfSpace:
      return false;
  }
  *lo = c - e;
  *hi = c + e;
  return true;
}

// ---------------------------------------------------------------------------
// Ray casts, in the shape's frame: origin o, unit direction u.

namespace {

// Smallest t >= 0 with |o + t u|² = r² (u unit), or the origin inside.
inline bool RaySphereLocal(const V3& o, const V3& u, double r, double* t,
                           bool* inside) {
  const double b = o.dot(u), c = o.squaredNorm() - r * r;
  *inside = c <= 0;
  if (*inside) {
    *t = 0;
    return true;
  }
  const double disc = b * b - c;
  if (b > 0 || disc < 0) return false;
  *t = -b - std::sqrt(disc);
  return true;
}

// The infinite cylinder x² + y² <= r² (entry only).
// First hit of the ray on the side of the cylinder of radius r about the z
// axis between z = -h and z = h, with the outward normal there.
inline bool RayCylinderSide(const V3& o, const V3& u, double r, double h,
                            double* t, V3* n) {
  const double a = u.x() * u.x() + u.y() * u.y();
  if (a < 1e-300) return false;
  const double b = o.x() * u.x() + o.y() * u.y();
  const double c = o.x() * o.x() + o.y() * o.y() - r * r;
  const double disc = b * b - a * c;
  if (disc < 0) return false;
  const double tt = (-b - std::sqrt(disc)) / a;
  if (tt < 0 || std::abs(o.z() + tt * u.z()) > h) return false;
  *t = tt;
  const V3 p = o + tt * u;
  *n = V3(p.x(), p.y(), 0).normalized();
  return true;
}

bool RayLocal(const Shape& s, const V3& o, const V3& u, double tmax,
              double* t_out, V3* n_out) {
  bool inside = false;
  double t = kInf;
  V3 n = V3::Zero();
  switch (s.kind) {
    case ShapeKind::kSphere: {
      if (!RaySphereLocal(o, u, s.dims[0], &t, &inside)) return false;
      n = inside ? V3(-u) : V3((o + t * u).normalized());
      break;
    }
    case ShapeKind::kCapsule: {
      const double r = s.dims[0], h = s.dims[1];
      const V3 oc(0, 0, std::clamp(o.z(), -h, h));
      if ((o - oc).squaredNorm() <= r * r) {
        inside = true;
        t = 0;
        n = -u;
        break;
      }
      RayCylinderSide(o, u, r, h, &t, &n);
      for (const double side : {-h, h}) {
        const V3 oc2 = o - V3(0, 0, side);
        bool in2;
        double tc;
        if (RaySphereLocal(oc2, u, r, &tc, &in2) && tc < t) {
          t = tc;
          n = (oc2 + tc * u).normalized();
        }
      }
      if (!(t < kInf)) return false;
      break;
    }
    case ShapeKind::kBox:
    case ShapeKind::kConvex: {
      // Cyrus-Beck clipping of the ray by the face planes.
      double t0 = 0, t1 = kInf;
      V3 n0 = -u;
      auto clip = [&](const V3& nf, double d) {
        const double den = nf.dot(u), num = d - nf.dot(o);
        if (std::abs(den) < 1e-300) return num >= 0;
        const double tt = num / den;
        if (den < 0) {
          if (tt > t0) {
            t0 = tt;
            n0 = nf;
          }
        } else if (tt < t1) {
          t1 = tt;
        }
        return t0 <= t1;
      };
      if (s.kind == ShapeKind::kBox) {
        for (int k = 0; k < 3; ++k) {
          V3 e = V3::Zero();
          e[k] = 1;
          if (!clip(e, s.dims[k]) || !clip(-e, s.dims[k])) return false;
        }
      } else {
        for (const auto& p : s.convex->planes) {
          if (!clip(p.head<3>(), p[3])) return false;
        }
      }
      t = t0;
      n = n0;
      inside = t0 == 0 && n0 == -u;
      break;
    }
    case ShapeKind::kCylinder: {
      const double r = s.dims[0], h = s.dims[1];
      if (o.x() * o.x() + o.y() * o.y() <= r * r && std::abs(o.z()) <= h) {
        inside = true;
        t = 0;
        n = -u;
        break;
      }
      RayCylinderSide(o, u, r, h, &t, &n);
      if (std::abs(u.z()) > 1e-300) {
        for (const double side : {-h, h}) {
          const double tc = (side - o.z()) / u.z();
          if (tc < 0 || tc >= t) continue;
          if (side * u.z() > 0) continue;  // the far cap
          const V3 p = o + tc * u;
          if (p.x() * p.x() + p.y() * p.y() <= r * r) {
            t = tc;
            n = V3(0, 0, side > 0 ? 1 : -1);
          }
        }
      }
      if (!(t < kInf)) return false;
      break;
    }
    case ShapeKind::kEllipsoid: {
      // Scale to the unit sphere: x = D y.
      const V3 oy = o.cwiseQuotient(s.dims), uy = u.cwiseQuotient(s.dims);
      const double a = uy.squaredNorm(), b = oy.dot(uy),
                   c = oy.squaredNorm() - 1;
      if (c <= 0) {
        inside = true;
        t = 0;
        n = -u;
        break;
      }
      const double disc = b * b - a * c;
      if (b > 0 || disc < 0) return false;
      t = (-b - std::sqrt(disc)) / a;
      const V3 p = o + t * u;
      n = p.cwiseQuotient(s.dims.cwiseProduct(s.dims)).normalized();
      break;
    }
    case ShapeKind::kHalfSpace: {
      if (o.z() <= 0) {
        inside = true;
        t = 0;
        n = -u;
        break;
      }
      if (u.z() >= 0) return false;
      t = -o.z() / u.z();
      n = V3::UnitZ();
      break;
    }
    case ShapeKind::kTriangleMesh: {
      // Moller and Trumbore, "Fast, minimum storage ray-triangle
      // intersection", J. Graphics Tools 2(1), 1997, over the BVH.
      const TriangleMesh& m = *s.mesh;
      const V3 inv(1 / u.x(), 1 / u.y(), 1 / u.z());
      int stack[64];
      int top = 0;
      stack[top++] = 0;
      while (top > 0) {
        const int index = stack[--top];
        const TriangleMesh::Node& node = m.nodes[index];
        // Slab test of the node's box against [0, min(t, tmax)].
        double t0 = 0, t1 = std::min(t, tmax);
        bool hit = true;
        for (int k = 0; k < 3 && hit; ++k) {
          double a = (node.lo[k] - o[k]) * inv[k],
                 b = (node.hi[k] - o[k]) * inv[k];
          if (a > b) std::swap(a, b);
          if (std::isnan(a) || std::isnan(b)) {  // parallel, origin on slab
            hit = o[k] >= node.lo[k] && o[k] <= node.hi[k];
            continue;
          }
          t0 = std::max(t0, a);
          t1 = std::min(t1, b);
          hit = t0 <= t1;
        }
        if (!hit) continue;
        if (node.count == 0) {
          if (top + 2 > 64) continue;
          stack[top++] = node.right;
          stack[top++] = index + 1;
          continue;
        }
        for (int k = node.first; k < node.first + node.count; ++k) {
          const Eigen::Vector3i& tri = m.triangles[m.order[k]];
          const V3& v0 = m.vertices[tri[0]];
          const V3 e1 = m.vertices[tri[1]] - v0, e2 = m.vertices[tri[2]] - v0;
          const V3 pv = u.cross(e2);
          const double det = e1.dot(pv);
          if (std::abs(det) < 1e-300) continue;
          const double inv_det = 1 / det;
          const V3 tv = o - v0;
          const double bu = tv.dot(pv) * inv_det;
          if (bu < 0 || bu > 1) continue;
          const V3 qv = tv.cross(e1);
          const double bv = u.dot(qv) * inv_det;
          if (bv < 0 || bu + bv > 1) continue;
          const double tt = e2.dot(qv) * inv_det;
          if (tt >= 0 && tt < t) {
            t = tt;
            n = e1.cross(e2).normalized();
            if (n.dot(u) > 0) n = -n;
          }
        }
      }
      if (!(t < kInf)) return false;
      break;
    }
  }
  if (inside) n = -u;
  if (t > tmax) return false;
  *t_out = t;
  *n_out = n;
  return true;
}

}  // namespace

bool RayCastShape(const Shape& s, const X3& X_WS, const V3& origin,
                  const V3& dir, double max_distance, double* t, V3* normal) {
  const V3 o = X_WS.R.transpose() * (origin - X_WS.p);
  const V3 u = X_WS.R.transpose() * dir;
  V3 n;
  if (!RayLocal(s, o, u, max_distance, t, &n)) return false;
  *normal = X_WS.R * n;
  return true;
}

}  // namespace tern
