#include "tern/multibody/geometry/geometry_queries.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tern {

void UpdateGeometryPoses(const GeometryModel& model,
                         const std::vector<RigidTransform<double>>& X_WB,
                         GeometryWorkspace* ws) {
  if (static_cast<int>(X_WB.size()) != model.num_bodies() ||
      ws->num_geometries != model.num_geometries()) {
    throw std::invalid_argument(
        fmt::format("UpdateGeometryPoses: {} body poses and a workspace for {} "
                    "geometries, but the model has {} bodies and {} geometries",
                    X_WB.size(), ws->num_geometries, model.num_bodies(),
                    model.num_geometries()));
  }
  for (int i = 0; i < model.num_geometries(); ++i) {
    const Geometry& g = model.geometry(i);
    const RigidTransform<double>& X = X_WB[g.body];
    if (!X.R.allFinite() || !X.p.allFinite()) {
      throw std::invalid_argument(fmt::format(
          "UpdateGeometryPoses: the pose of body '{}' (carrying geometry "
          "'{}') is not finite",
          model.body_name(g.body), g.name));
    }
    ws->X_WG[i] = X * g.X_BG;
    ShapeAabb(g.shape, ws->X_WG[i], &ws->aabb_lo[i], &ws->aabb_hi[i]);
  }
}

// Sweep and prune along x (Baraff, "Dynamic simulation of non-penetrating
// rigid bodies", PhD thesis, Cornell 1992, sec. 7.2; Cohen et al.,
// I-COLLIDE, 1995). Chosen over a dynamic bounding-volume tree because the
// scenes are re-posed every step by small motions: the list sorted at the
// last call is nearly sorted, so an insertion sort restores it in close to
// linear time, with flat arrays and no tree to refit or rebalance.
// Half-spaces have no finite box and are tested against every box.
const std::vector<std::pair<int, int>>& ComputeCandidatePairs(
    const GeometryModel& model, GeometryWorkspace* ws, double margin) {
  auto& order = ws->bounded;
  const auto& lo = ws->aabb_lo;
  const auto& hi = ws->aabb_hi;
  for (size_t i = 1; i < order.size(); ++i) {
    const int g = order[i];
    const double key = lo[g].x();
    size_t j = i;
    while (j > 0 && lo[order[j - 1]].x() > key) {
      order[j] = order[j - 1];
      --j;
    }
    order[j] = g;
  }
  auto& found = ws->unsorted_pairs;
  found.clear();
  const size_t n = order.size();
  // The sweep reads the boxes in sorted order from one packed array.
  auto& sb = ws->sweep;
  for (size_t i = 0; i < n; ++i) {
    const Vector3<double>& l = lo[order[i]];
    const Vector3<double>& h = hi[order[i]];
    sb[i] = {l.x(), l.y(), h.y(), l.z(), h.z(), h.x()};
  }
  for (size_t i = 0; i < n; ++i) {
    const double end = sb[i].xhi + margin;
    const double ylo = sb[i].ylo - margin, yhi = sb[i].yhi + margin;
    const double zlo = sb[i].zlo - margin, zhi = sb[i].zhi + margin;
    for (size_t j = i + 1; j < n && sb[j].xlo <= end; ++j) {
      // One branch for the four comparisons (bitwise &): most candidates
      // fail, and four separate branches mispredict often.
      const bool overlap = (sb[j].ylo <= yhi) & (sb[j].yhi >= ylo) &
                           (sb[j].zlo <= zhi) & (sb[j].zhi >= zlo);
      if (!overlap) continue;
      const int a = order[i], b = order[j];
      if (!model.CanCollide(a, b)) continue;
      found.emplace_back(std::min(a, b), std::max(a, b));
    }
  }
  for (const int h : ws->unbounded) {
    const Vector3<double> nH = ws->X_WG[h].R.col(2);
    const Vector3<double>& p0 = ws->X_WG[h].p;
    for (const int b : order) {
      const Vector3<double> c = 0.5 * (lo[b] + hi[b]);
      const Vector3<double> e = 0.5 * (hi[b] - lo[b]);
      if (nH.dot(c - p0) - nH.cwiseAbs().dot(e) > margin) continue;
      if (!model.CanCollide(h, b)) continue;
      found.emplace_back(std::min(h, b), std::max(h, b));
    }
  }
  // Sorted, so that the output is a function of the poses alone and not of
  // the order left by earlier calls: a counting sort on the first index
  // (the geometries are few), then each run (one geometry's few partners)
  // by insertion on the second. The pairs are distinct, so the order is
  // the one std::sort gave (about 45M instructions of 152M in a
  // 100-sphere pile run, now about 20M).
  auto& pos = ws->pair_start;  // (ng + 1)
  std::fill(pos.begin(), pos.end(), 0);
  for (const auto& pr : found) ++pos[pr.first + 1];
  for (size_t g = 1; g < pos.size(); ++g) pos[g] += pos[g - 1];
  auto& out = ws->pairs;
  out.resize(found.size());
  for (const auto& pr : found) out[pos[pr.first]++] = pr;
  // pos[g] is now the end of geometry g's run.
  int begin = 0;
  for (size_t g = 0; g + 1 < pos.size(); ++g) {
    const int end = pos[g];
    for (int i = begin + 1; i < end; ++i) {
      const std::pair<int, int> x = out[i];
      int j = i;
      while (j > begin && out[j - 1].second > x.second) {
        out[j] = out[j - 1];
        --j;
      }
      out[j] = x;
    }
    begin = end;
  }
  return ws->pairs;
}

const std::vector<Contact>& ComputeContacts(const GeometryModel& model,
                                            GeometryWorkspace* ws,
                                            double margin) {
  ComputeCandidatePairs(model, ws, margin);
  ws->contacts.clear();
  Contact manifold[kMaxContactPoints];
  for (const auto& [a, b] : ws->pairs) {
    const Geometry& ga = model.geometry(a);
    const Geometry& gb = model.geometry(b);
    const int n = CollideShapes(ga.shape, ws->X_WG[a], gb.shape, ws->X_WG[b],
                                margin, manifold);
    for (int k = 0; k < n; ++k) {
      Contact& c = manifold[k];
      c.geometry_a = a;
      c.geometry_b = b;
      c.body_a = ga.body;
      c.body_b = gb.body;
      ws->contacts.push_back(c);
    }
  }
  return ws->contacts;
}

int ExcludeBodyPairsInContact(GeometryModel* model,
                              const std::vector<RigidTransform<double>>& X_WB,
                              double margin) {
  GeometryWorkspace ws(*model);
  UpdateGeometryPoses(*model, X_WB, &ws);
  std::vector<std::pair<int, int>> bodies;
  for (const Contact& c : ComputeContacts(*model, &ws, margin)) {
    if (c.body_a != 0 && c.body_b != 0) bodies.emplace_back(c.body_a, c.body_b);
  }
  std::sort(bodies.begin(), bodies.end());
  bodies.erase(std::unique(bodies.begin(), bodies.end()), bodies.end());
  for (const auto& [a, b] : bodies) model->ExcludeBodyPair(a, b);
  return static_cast<int>(bodies.size());
}

namespace {

// Slab test of the ray against a box: entry distance, or false.
inline bool RayHitsBox(const Vector3<double>& o, const Vector3<double>& inv,
                       const Vector3<double>& lo, const Vector3<double>& hi,
                       double tmax) {
  double t0 = 0, t1 = tmax;
  for (int k = 0; k < 3; ++k) {
    double a = (lo[k] - o[k]) * inv[k], b = (hi[k] - o[k]) * inv[k];
    if (std::isnan(a) || std::isnan(b)) {
      if (o[k] < lo[k] || o[k] > hi[k]) return false;
      continue;
    }
    if (a > b) std::swap(a, b);
    t0 = std::max(t0, a);
    t1 = std::min(t1, b);
    if (t0 > t1) return false;
  }
  return true;
}

}  // namespace

RayHit CastRay(const GeometryModel& model, const GeometryWorkspace& ws,
               const Vector3<double>& origin, const Vector3<double>& dir,
               double max_distance, int ignore_body) {
  const double len = dir.norm();
  if (!origin.allFinite() || !dir.allFinite() || !(len > 0)) {
    throw std::invalid_argument(fmt::format(
        "CastRay: origin ({}, {}, {}) and direction ({}, {}, {}) must be "
        "finite and the direction nonzero",
        origin.x(), origin.y(), origin.z(), dir.x(), dir.y(), dir.z()));
  }
  const Vector3<double> u = dir / len;
  const Vector3<double> inv = u.cwiseInverse();
  RayHit best;
  double t_best = max_distance;
  auto try_geometry = [&](int g) {
    const Geometry& geo = model.geometry(g);
    if (geo.body == ignore_body) return;
    double t;
    Vector3<double> n;
    if (RayCastShape(geo.shape, ws.X_WG[g], origin, u, t_best, &t, &n) &&
        (!best.hit || t < best.distance)) {
      best.hit = true;
      best.distance = t;
      best.geometry = g;
      best.body = geo.body;
      best.normal = n;
      t_best = t;
    }
  };
  for (const int g : ws.bounded) {
    if (RayHitsBox(origin, inv, ws.aabb_lo[g], ws.aabb_hi[g], t_best)) {
      try_geometry(g);
    }
  }
  for (const int g : ws.unbounded) try_geometry(g);
  if (best.hit) best.point = origin + best.distance * u;
  return best;
}

void CastRays(const GeometryModel& model, const GeometryWorkspace& ws,
              const Matrix3X<double>& origins, const Matrix3X<double>& dirs,
              double max_distance, std::vector<RayHit>* hits, int ignore_body) {
  if (origins.cols() != 1 && origins.cols() != dirs.cols()) {
    throw std::invalid_argument(
        fmt::format("CastRays: {} origins for {} directions (give 1 or {})",
                    origins.cols(), dirs.cols(), dirs.cols()));
  }
  hits->resize(dirs.cols());
  for (Eigen::Index k = 0; k < dirs.cols(); ++k) {
    (*hits)[k] = CastRay(model, ws, origins.col(origins.cols() == 1 ? 0 : k),
                         dirs.col(k), max_distance, ignore_body);
  }
}

}  // namespace tern
