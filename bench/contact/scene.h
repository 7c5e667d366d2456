#pragma once
// The contact benchmark's scene, shared by every engine so that all start
// from the same poses, and the loop that runs and measures one engine.
//
// N free bodies, all spheres (radius 0.05 m) or all cubes (side 0.1 m) of
// 1 kg, placed in a 5 x 5 grid of columns 0.12 m apart (centred on the
// origin), layer after layer 0.15 m apart from z = 0.06 m, each with a small
// deterministic jitter (x, y within +-2 mm, yaw within +-0.1 rad), at rest,
// falling onto the plane z = 0: friction 0.5 for every pair, gravity 9.81
// m/s^2 along -z, h = 1 ms, 3000 steps.
//
// Plain C++ only (no Tern header): the peers' files include it too.
#include <benchmark/benchmark.h>
#include <time.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace tern::bench::contact {

enum class BodyShape { kSphere, kCube };

inline constexpr double kRadius = 0.05;      // m, sphere radius
inline constexpr double kHalfSide = 0.05;    // m, half the cube's side
inline constexpr double kMass = 1.0;         // kg
inline constexpr double kFriction = 0.5;     // Coulomb coefficient, every pair
inline constexpr double kGravity = 9.81;     // m/s^2, along -z
inline constexpr double kStep = 1e-3;        // s
inline constexpr int kSteps = 3000;          // steps per run
inline constexpr int kRestFrom = 2000;       // the last third: bodies at rest
inline constexpr double kColumnGap = 0.12;   // m, between grid columns
inline constexpr double kLayerGap = 0.15;    // m, between layers
inline constexpr double kFirstLayer = 0.06;  // m, z of the lowest layer

// Inertia about the centre (kg m^2), the same about every axis.
inline double Inertia(BodyShape shape) {
  return shape == BodyShape::kSphere
             ? 0.4 * kMass * kRadius * kRadius
             : kMass * (2 * kHalfSide) * (2 * kHalfSide) / 6.0;
}

struct BodyPose {
  std::array<double, 3> p;  // m, position of the centre in the world
  double yaw;               // rad, rotation about +z
};

struct Scene {
  std::string name;  // "spheres100", ...
  BodyShape shape;
  std::vector<BodyPose> poses;  // (N) initial poses, body i in every engine
};

// Body i sits in layer i / 25, column i % 25. The jitter comes from
// std::mt19937 (its sequence is fixed by the standard) mapped to [-1, 1] by
// hand, so every platform gets the same scene.
inline Scene MakeScene(BodyShape shape, int n) {
  Scene s{std::string(shape == BodyShape::kSphere ? "spheres" : "cubes") +
              std::to_string(n),
          shape,
          {}};
  std::mt19937 gen(15);
  auto jitter = [&gen] { return 2.0 * (gen() / 4294967295.0) - 1.0; };
  for (int i = 0; i < n; ++i) {
    const int layer = i / 25, column = i % 25;
    BodyPose b{};
    b.p[0] = (column % 5 - 2) * kColumnGap + 0.002 * jitter();
    b.p[1] = (column / 5 - 2) * kColumnGap + 0.002 * jitter();
    b.p[2] = kFirstLayer + layer * kLayerGap;
    b.yaw = 0.1 * jitter();
    s.poses.push_back(b);
  }
  return s;
}

// What every engine reports after a step: the contact points it found (as it
// counts them) and each body's height and speed.
struct BodyState {
  double z;              // m, height of the centre
  double speed;          // m/s, speed of the centre
  double angular_speed;  // rad/s
};

// Kinetic plus potential energy (J, zero at z = 0) of a body of the scene;
// the inertia is the same about every axis, so the rotational part is
// I |w|^2 / 2 whatever frame w is expressed in.
inline double Energy(BodyShape shape, const BodyState& b) {
  return 0.5 * kMass * b.speed * b.speed +
         0.5 * Inertia(shape) * b.angular_speed * b.angular_speed +
         kMass * kGravity * b.z;
}

// A World whose constructor takes an on/off setting, with the setting
// fixed, as RunScene and TraceScene build worlds from the scene alone.
template <class World, bool kOn>
struct WorldWith : World {
  explicit WorldWith(const Scene& s) : World(s, kOn) {}
};

inline double ThreadSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         1e-9 * static_cast<double>(ts.tv_nsec);
}

// Runs the scene kSteps times per benchmark iteration on a World built anew
// (outside the timing), which provides
//   explicit World(const Scene&);
//   void Step();                    // one step of kStep
//   int NumContacts() const;        // contact points after the last step
//   BodyState Body(int i) const;
// and sets the counters printed by the benchmark (and its summary table):
//   steps/s       over the whole run (CPU time of the steps only)
//   rest_steps/s  over the last third
//   contacts      mean contact points per step
//   z_mean        mean final height of the centres, m
//   v_max         largest final speed, m/s (a pile at rest has ~0)
// and, if World has `std::array<double, 5> SolverWork() const` (the last
// step's PGS sweeps, Lemke pivots, Newton iterations of the convex solver,
// pile islands PGS handed to it and the contact steps of the PGS sweeps:
// Tern), their means per step as pgs_sweeps, lemke_pivots, newton_iter,
// pgs_fallbacks and pgs_steps.
template <class World>
void RunScene(benchmark::State& state, const Scene* scene) {
  const int n = static_cast<int>(scene->poses.size());
  double seconds = 0, rest_seconds = 0, contacts = 0, z_mean = 0, v_max = 0;
  double sweeps = 0, pivots = 0, newton = 0, fallbacks = 0, group_steps = 0;
  constexpr bool kWork = requires(const World& w) { w.SolverWork(); };
  int runs = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto world = std::make_unique<World>(*scene);
    state.ResumeTiming();
    const double t0 = ThreadSeconds();
    double t_rest = t0;
    try {
      for (int k = 0; k < kSteps; ++k) {
        if (k == kRestFrom) t_rest = ThreadSeconds();
        world->Step();
        contacts += world->NumContacts();
        if constexpr (kWork) {
          const std::array<double, 5> work = world->SolverWork();
          sweeps += work[0];
          pivots += work[1];
          newton += work[2];
          fallbacks += work[3];
          group_steps += work[4];
        }
      }
    } catch (const std::exception& e) {
      // A failed step is reported, not timed (the ratio then says missing).
      state.SkipWithError(e.what());
      std::fprintf(stderr, "%s: %s\n", scene->name.c_str(), e.what());
      break;
    }
    const double t1 = ThreadSeconds();
    state.PauseTiming();
    seconds += t1 - t0;
    rest_seconds += t1 - t_rest;
    double z = 0, v = 0;
    for (int i = 0; i < n; ++i) {
      const BodyState b = world->Body(i);
      z += b.z;
      v = std::fmax(v, b.speed);
    }
    z_mean += z / n;
    v_max = std::fmax(v_max, v);
    ++runs;
    world.reset();
    state.ResumeTiming();
  }
  if (runs == 0) return;
  state.counters["steps/s"] = runs * kSteps / seconds;
  state.counters["rest_steps/s"] = runs * (kSteps - kRestFrom) / rest_seconds;
  state.counters["contacts"] = contacts / (static_cast<double>(runs) * kSteps);
  state.counters["z_mean"] = z_mean / runs;
  state.counters["v_max"] = v_max;
  if constexpr (kWork) {
    state.counters["pgs_sweeps"] =
        sweeps / (static_cast<double>(runs) * kSteps);
    state.counters["lemke_pivots"] =
        pivots / (static_cast<double>(runs) * kSteps);
    state.counters["newton_iter"] =
        newton / (static_cast<double>(runs) * kSteps);
    state.counters["pgs_fallbacks"] =
        fallbacks / (static_cast<double>(runs) * kSteps);
    state.counters["pgs_steps"] =
        group_steps / (static_cast<double>(runs) * kSteps);
  }
}

// The untimed check behind --trace: runs the scene once and prints, every
// 250 steps, the contact points, the mean height, the largest speed and the
// total energy. The energy must not rise (contacts are inelastic), except
// by the little that pushing bodies out of penetration adds.
template <class World>
void TraceScene(const Scene& scene, const char* engine) {
  const int n = static_cast<int>(scene.poses.size());
  World world(scene);
  double e_prev = 0;
  for (int i = 0; i < n; ++i) e_prev += Energy(scene.shape, world.Body(i));
  double e_rise = 0;  // largest rise of the energy over 250 steps, J
  std::printf("trace %s %s: start energy %.4f J\n", scene.name.c_str(), engine,
              e_prev);
  for (int k = 1; k <= kSteps; ++k) {
    try {
      world.Step();
    } catch (const std::exception& e) {
      std::printf("trace %s %s: step %d failed: %s\n", scene.name.c_str(),
                  engine, k, e.what());
      return;
    }
    if (k % 250 != 0) continue;
    double z = 0, v = 0, e = 0;
    for (int i = 0; i < n; ++i) {
      const BodyState b = world.Body(i);
      z += b.z;
      v = std::fmax(v, b.speed);
      e += Energy(scene.shape, b);
    }
    e_rise = std::fmax(e_rise, e - e_prev);
    e_prev = e;
    std::printf(
        "trace %s %s: step %4d contacts %4d z_mean %.4f v_max %.3f energy "
        "%.4f\n",
        scene.name.c_str(), engine, k, world.NumContacts(), z / n, v, e);
  }
  std::printf("trace %s %s: largest energy rise over 250 steps %.4f J\n",
              scene.name.c_str(), engine, e_rise);
}

}  // namespace tern::bench::contact
