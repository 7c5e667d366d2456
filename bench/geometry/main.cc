// Collision queries: Tern, FCL 0.7 and Bullet 3.24 (collision library, double
// precision) on the same shapes and poses, in one process.
//
// Narrow phase (ns per query, 256 random pose pairs cycled, about half of
// them overlapping): each library computes the contact points of one pair.
//   tern    CollideShapes (margin 0)
//   fcl     fcl::collide with contacts (up to 4)
//   bullet  the dispatcher's collision algorithm for the pair, processCollision
//           into a manifold, cleared after each query
// Broad plus narrow phase (ns per step): every library re-poses all objects
// (two pose sets 1 mm apart, alternating) and finds all contacts.
//   scatter1000  500 spheres and 500 boxes scattered in a 10 m cube
//   pile100      100 boxes in 20 stacks of 5, resting on a plane
// After the Google Benchmark output, one line per case: Tern / fastest peer,
// in CPU time per iteration (the machine is shared; CPU time is what a loaded
// machine measures most steadily). points/query and points/step count the
// contact points each library reports: Bullet also keeps points within its
// contact-breaking threshold (positive distance), FCL's box-box (ODE) gives
// up to 8 and no points for the half-space pairs are merged, so the counts
// differ while the contacts found agree.
#include <benchmark/benchmark.h>
#include <btBulletCollisionCommon.h>
#include <fcl/fcl.h>

#include <Eigen/Geometry>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/common/timing_reporter.h"
#include "tern/multibody/geometry/geometry_queries.h"

namespace tern {
namespace {

using V3 = Vector3<double>;
using X3 = RigidTransform<double>;

X3 RandomPose(std::mt19937* gen, double box) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::Quaterniond q(u(*gen), u(*gen), u(*gen), u(*gen));
  q.normalize();
  return X3(q.toRotationMatrix(),
            V3(box * u(*gen), box * u(*gen), box * u(*gen)));
}

fcl::Transform3d ToFcl(const X3& X) {
  fcl::Transform3d T = fcl::Transform3d::Identity();
  T.linear() = X.R;
  T.translation() = X.p;
  return T;
}

btTransform ToBullet(const X3& X) {
  btMatrix3x3 R(X.R(0, 0), X.R(0, 1), X.R(0, 2), X.R(1, 0), X.R(1, 1),
                X.R(1, 2), X.R(2, 0), X.R(2, 1), X.R(2, 2));
  return btTransform(R, btVector3(X.p.x(), X.p.y(), X.p.z()));
}

std::shared_ptr<fcl::CollisionGeometryd> FclShape(const Shape& s) {
  switch (s.kind) {
    case ShapeKind::kSphere:
      return std::make_shared<fcl::Sphered>(s.dims[0]);
    case ShapeKind::kBox:
      return std::make_shared<fcl::Boxd>(2 * s.dims[0], 2 * s.dims[1],
                                         2 * s.dims[2]);
    case ShapeKind::kCapsule:
      return std::make_shared<fcl::Capsuled>(s.dims[0], 2 * s.dims[1]);
    case ShapeKind::kCylinder:
      return std::make_shared<fcl::Cylinderd>(s.dims[0], 2 * s.dims[1]);
    case ShapeKind::kHalfSpace:
      return std::make_shared<fcl::Halfspaced>(V3::UnitZ(), 0.0);
    case ShapeKind::kConvex: {
      auto verts = std::make_shared<std::vector<V3>>(s.convex->vertices);
      auto faces = std::make_shared<std::vector<int>>();
      for (const auto& t : s.convex->triangles)
        faces->insert(faces->end(), {3, t[0], t[1], t[2]});
      return std::make_shared<fcl::Convexd>(
          verts, static_cast<int>(s.convex->triangles.size()), faces);
    }
    default:
      return nullptr;
  }
}

std::unique_ptr<btCollisionShape> BulletShape(const Shape& s) {
  std::unique_ptr<btCollisionShape> out;
  switch (s.kind) {
    case ShapeKind::kSphere:
      out = std::make_unique<btSphereShape>(s.dims[0]);
      break;
    case ShapeKind::kBox:
      out = std::make_unique<btBoxShape>(
          btVector3(s.dims[0], s.dims[1], s.dims[2]));
      out->setMargin(0);
      break;
    case ShapeKind::kCapsule:
      out = std::make_unique<btCapsuleShapeZ>(s.dims[0], 2 * s.dims[1]);
      break;
    case ShapeKind::kCylinder:
      out = std::make_unique<btCylinderShapeZ>(
          btVector3(s.dims[0], s.dims[0], s.dims[1]));
      out->setMargin(0);
      break;
    case ShapeKind::kHalfSpace:
      out = std::make_unique<btStaticPlaneShape>(btVector3(0, 0, 1), 0);
      break;
    case ShapeKind::kConvex: {
      auto hull = std::make_unique<btConvexHullShape>();
      for (const V3& v : s.convex->vertices)
        hull->addPoint(btVector3(v.x(), v.y(), v.z()), false);
      hull->recalcLocalAabb();
      hull->setMargin(0);
      out = std::move(hull);
      break;
    }
    default:
      break;
  }
  return out;
}

struct PairCase {
  std::string name;
  Shape a, b;
  std::vector<X3> Xa, Xb;  // 256 pose pairs
};

std::vector<PairCase>* Cases() {
  static auto* cases = [] {
    auto* v = new std::vector<PairCase>;
    std::vector<V3> pts;
    std::mt19937 g(11);
    std::normal_distribution<double> nd;
    for (int i = 0; i < 30; ++i)
      pts.emplace_back(0.3 * nd(g), 0.2 * nd(g), 0.25 * nd(g));
    const Shape hull = Shape::ConvexHull(pts);
    v->push_back(
        {"sphere_sphere", Shape::Sphere(0.3), Shape::Sphere(0.2), {}, {}});
    v->push_back(
        {"sphere_box", Shape::Sphere(0.3), Shape::Box(0.5, 0.7, 0.3), {}, {}});
    v->push_back({"capsule_capsule",
                  Shape::Capsule(0.1, 0.6),
                  Shape::Capsule(0.2, 0.8),
                  {},
                  {}});
    v->push_back({"box_box",
                  Shape::Box(0.4, 0.5, 0.6),
                  Shape::Box(0.5, 0.7, 0.3),
                  {},
                  {}});
    v->push_back(
        {"sphere_plane", Shape::Sphere(0.3), Shape::HalfSpace(), {}, {}});
    v->push_back(
        {"box_plane", Shape::Box(0.4, 0.5, 0.6), Shape::HalfSpace(), {}, {}});
    v->push_back({"capsule_plane",
                  Shape::Capsule(0.1, 0.6),
                  Shape::HalfSpace(),
                  {},
                  {}});
    v->push_back({"capsule_box",
                  Shape::Capsule(0.1, 0.6),
                  Shape::Box(0.5, 0.7, 0.3),
                  {},
                  {}});
    v->push_back({"convex_convex", hull, hull, {}, {}});
    std::mt19937 gen(1);
    for (auto& c : *v) {
      for (int k = 0; k < 256; ++k) {
        c.Xa.push_back(RandomPose(&gen, 0.4));
        X3 Xb = RandomPose(&gen, 0.4);
        if (c.b.kind == ShapeKind::kHalfSpace) Xb = X3();
        c.Xb.push_back(Xb);
      }
    }
    return v;
  }();
  return cases;
}

void NarrowTern(benchmark::State& state, const PairCase* c) {
  Contact out[kMaxContactPoints];
  size_t k = 0, points = 0;
  for (auto _ : state) {
    points += CollideShapes(c->a, c->Xa[k], c->b, c->Xb[k], 0.0, out);
    benchmark::DoNotOptimize(out);
    k = (k + 1) & 255;
  }
  state.counters["points/query"] = benchmark::Counter(
      static_cast<double>(points), benchmark::Counter::kAvgIterations);
}

void NarrowFcl(benchmark::State& state, const PairCase* c) {
  fcl::CollisionObjectd oa(FclShape(c->a)), ob(FclShape(c->b));
  std::vector<fcl::Transform3d> Ta, Tb;
  for (int k = 0; k < 256; ++k) {
    Ta.push_back(ToFcl(c->Xa[k]));
    Tb.push_back(ToFcl(c->Xb[k]));
  }
  fcl::CollisionRequestd req(kMaxContactPoints, true);
  size_t k = 0, points = 0;
  for (auto _ : state) {
    oa.setTransform(Ta[k]);
    ob.setTransform(Tb[k]);
    fcl::CollisionResultd res;
    fcl::collide(&oa, &ob, req, res);
    points += res.numContacts();
    k = (k + 1) & 255;
  }
  state.counters["points/query"] = benchmark::Counter(
      static_cast<double>(points), benchmark::Counter::kAvgIterations);
}

void NarrowBullet(benchmark::State& state, const PairCase* c) {
  btDefaultCollisionConfiguration config;
  btCollisionDispatcher dispatcher(&config);
  auto sa = BulletShape(c->a), sb = BulletShape(c->b);
  btCollisionObject oa, ob;
  oa.setCollisionShape(sa.get());
  ob.setCollisionShape(sb.get());
  std::vector<btTransform> Ta, Tb;
  for (int k = 0; k < 256; ++k) {
    Ta.push_back(ToBullet(c->Xa[k]));
    Tb.push_back(ToBullet(c->Xb[k]));
  }
  btCollisionObjectWrapper wa(nullptr, sa.get(), &oa, oa.getWorldTransform(),
                              -1, -1);
  btCollisionObjectWrapper wb(nullptr, sb.get(), &ob, ob.getWorldTransform(),
                              -1, -1);
  btCollisionAlgorithm* algo =
      dispatcher.findAlgorithm(&wa, &wb, nullptr, BT_CONTACT_POINT_ALGORITHMS);
  btDispatcherInfo info;
  btManifoldResult result(&wa, &wb);
  size_t k = 0, points = 0;
  for (auto _ : state) {
    oa.setWorldTransform(Ta[k]);
    ob.setWorldTransform(Tb[k]);
    algo->processCollision(&wa, &wb, info, &result);
    if (btPersistentManifold* m = result.getPersistentManifold()) {
      points += m->getNumContacts();
      m->clearManifold();
    }
    k = (k + 1) & 255;
  }
  state.counters["points/query"] = benchmark::Counter(
      static_cast<double>(points), benchmark::Counter::kAvgIterations);
  algo->~btCollisionAlgorithm();
  dispatcher.freeCollisionAlgorithm(algo);
}

// --- Scenes for broad plus narrow phase.

struct Scene {
  std::vector<Shape> shapes;  // one per body (body i + 1)
  std::vector<X3> poses[2];   // alternating pose sets
  bool ground{false};
};

Scene* Scatter() {
  static Scene* s = [] {
    auto* sc = new Scene;
    std::mt19937 gen(2);
    std::uniform_real_distribution<double> size(0.1, 0.4), pos(-5, 5);
    for (int i = 0; i < 1000; ++i) {
      sc->shapes.push_back(i % 2 ? Shape::Box(size(gen), size(gen), size(gen))
                                 : Shape::Sphere(0.5 * size(gen)));
      X3 X = RandomPose(&gen, 1.0);
      X.p = V3(pos(gen), pos(gen), pos(gen));
      sc->poses[0].push_back(X);
      X.p.x() += 1e-3;
      sc->poses[1].push_back(X);
    }
    return sc;
  }();
  return s;
}

Scene* Pile() {
  static Scene* s = [] {
    auto* sc = new Scene;
    sc->ground = true;
    std::mt19937 gen(3);
    std::uniform_real_distribution<double> yaw(-0.2, 0.2);
    for (int col = 0; col < 20; ++col) {
      for (int level = 0; level < 5; ++level) {
        sc->shapes.push_back(Shape::Box(0.2, 0.2, 0.2));
        const X3 X(Eigen::AngleAxisd(yaw(gen), V3::UnitZ()).toRotationMatrix(),
                   V3(0.5 * (col % 5), 0.5 * (col / 5), 0.1 + 0.199 * level));
        sc->poses[0].push_back(X);
        X3 X1 = X;
        X1.p.z() -= 1e-4;
        sc->poses[1].push_back(X1);
      }
    }
    return sc;
  }();
  return s;
}

void SceneTern(benchmark::State& state, Scene* sc) {
  const int n = static_cast<int>(sc->shapes.size());
  GeometryModel model(n + 1);
  for (int i = 0; i < n; ++i) {
    Geometry g;
    g.body = i + 1;
    g.shape = sc->shapes[i];
    model.AddGeometry(g);
  }
  if (sc->ground) {
    Geometry g;
    g.shape = Shape::HalfSpace();
    model.AddGeometry(g);
  }
  GeometryWorkspace ws(model);
  std::vector<X3> X[2];
  for (int s = 0; s < 2; ++s) {
    X[s].push_back(X3());
    X[s].insert(X[s].end(), sc->poses[s].begin(), sc->poses[s].end());
  }
  int flip = 0;
  size_t points = 0;
  for (auto _ : state) {
    UpdateGeometryPoses(model, X[flip], &ws);
    points += ComputeContacts(model, &ws, 0.0).size();
    flip ^= 1;
  }
  state.counters["points/step"] = benchmark::Counter(
      static_cast<double>(points), benchmark::Counter::kAvgIterations);
}

void SceneFcl(benchmark::State& state, Scene* sc) {
  std::vector<std::unique_ptr<fcl::CollisionObjectd>> objects;
  fcl::DynamicAABBTreeCollisionManagerd manager;
  for (const Shape& s : sc->shapes) {
    objects.push_back(std::make_unique<fcl::CollisionObjectd>(FclShape(s)));
  }
  if (sc->ground) {
    // FCL 0.7's dynamic AABB tree crashes on a half-space's infinite box
    // (HierarchyTree::bottomup in setup()), so FCL's ground is a 100 m x
    // 100 m x 1 m box whose top face is the plane z = 0.
    objects.push_back(std::make_unique<fcl::CollisionObjectd>(
        std::make_shared<fcl::Boxd>(100, 100, 1)));
    objects.back()->setTransform(
        ToFcl(X3(Matrix3<double>::Identity(), V3(0, 0, -0.5))));
  }
  std::vector<fcl::Transform3d> T[2];
  for (int s = 0; s < 2; ++s) {
    for (const X3& X : sc->poses[s]) T[s].push_back(ToFcl(X));
  }
  const int n = static_cast<int>(sc->shapes.size());
  for (int i = 0; i < n; ++i) objects[i]->setTransform(T[0][i]);
  for (auto& o : objects) {
    o->computeAABB();
    manager.registerObject(o.get());
  }
  manager.setup();
  int flip = 0;
  size_t points = 0;
  for (auto _ : state) {
    for (int i = 0; i < n; ++i) {
      objects[i]->setTransform(T[flip][i]);
      objects[i]->computeAABB();
    }
    manager.update();
    fcl::DefaultCollisionData<double> data;
    data.request.num_max_contacts = 1000000;
    data.request.enable_contact = true;
    manager.collide(&data, fcl::DefaultCollisionFunction<double>);
    points += data.result.numContacts();
    flip ^= 1;
  }
  state.counters["points/step"] = benchmark::Counter(
      static_cast<double>(points), benchmark::Counter::kAvgIterations);
}

void SceneBullet(benchmark::State& state, Scene* sc) {
  btDefaultCollisionConfiguration config;
  btCollisionDispatcher dispatcher(&config);
  btDbvtBroadphase broadphase;
  btCollisionWorld world(&dispatcher, &broadphase, &config);
  std::vector<std::unique_ptr<btCollisionShape>> shapes;
  std::vector<std::unique_ptr<btCollisionObject>> objects;
  for (const Shape& s : sc->shapes) {
    shapes.push_back(BulletShape(s));
    objects.push_back(std::make_unique<btCollisionObject>());
    objects.back()->setCollisionShape(shapes.back().get());
  }
  if (sc->ground) {
    shapes.push_back(BulletShape(Shape::HalfSpace()));
    objects.push_back(std::make_unique<btCollisionObject>());
    objects.back()->setCollisionShape(shapes.back().get());
  }
  std::vector<btTransform> T[2];
  for (int s = 0; s < 2; ++s) {
    for (const X3& X : sc->poses[s]) T[s].push_back(ToBullet(X));
  }
  const int n = static_cast<int>(sc->shapes.size());
  for (int i = 0; i < n; ++i) objects[i]->setWorldTransform(T[0][i]);
  for (auto& o : objects) world.addCollisionObject(o.get());
  int flip = 0;
  size_t points = 0;
  for (auto _ : state) {
    for (int i = 0; i < n; ++i) objects[i]->setWorldTransform(T[flip][i]);
    world.performDiscreteCollisionDetection();
    for (int m = 0; m < dispatcher.getNumManifolds(); ++m) {
      btPersistentManifold* man = dispatcher.getManifoldByIndexInternal(m);
      points += man->getNumContacts();
      man->clearManifold();  // no reuse of last step's points
    }
    flip ^= 1;
  }
  state.counters["points/step"] = benchmark::Counter(
      static_cast<double>(points), benchmark::Counter::kAvgIterations);
  for (auto& o : objects) world.removeCollisionObject(o.get());
}

class RatioReporter : public tern::bench::TimingReporter {
 public:
  void PrintRatios(const std::vector<std::string>& cases) {
    MergeMedians();
    std::printf("\n%-16s %10s %10s %10s %8s  %s\n", "case", "tern ns", "fcl ns",
                "bullet ns", "ratio", "(tern / fastest peer)");
    for (const auto& c : cases) {
      auto t = ns_.find(c + "/tern"), f = ns_.find(c + "/fcl"),
           b = ns_.find(c + "/bullet");
      if (t == ns_.end() || f == ns_.end() || b == ns_.end()) continue;
      const bool fcl_fastest = f->second <= b->second;
      const double best = fcl_fastest ? f->second : b->second;
      std::printf("%-16s %10.1f %10.1f %10.1f %8.2f  vs %s\n", c.c_str(),
                  t->second, f->second, b->second, t->second / best,
                  fcl_fastest ? "fcl" : "bullet");
    }
  }
};

}  // namespace
}  // namespace tern

int main(int argc, char** argv) {
  using namespace tern;
  std::vector<std::string> names;
  for (const PairCase& c : *Cases()) {
    names.push_back(c.name);
    benchmark::RegisterBenchmark((c.name + "/tern").c_str(), NarrowTern, &c);
    benchmark::RegisterBenchmark((c.name + "/fcl").c_str(), NarrowFcl, &c);
    benchmark::RegisterBenchmark((c.name + "/bullet").c_str(), NarrowBullet,
                                 &c);
  }
  for (auto [name, scene] :
       {std::pair{"scatter1000", Scatter()}, std::pair{"pile100", Pile()}}) {
    names.push_back(name);
    benchmark::RegisterBenchmark((std::string(name) + "/tern").c_str(),
                                 SceneTern, scene)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((std::string(name) + "/fcl").c_str(), SceneFcl,
                                 scene)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((std::string(name) + "/bullet").c_str(),
                                 SceneBullet, scene)
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintRatios(names);
  benchmark::Shutdown();
  return 0;
}
