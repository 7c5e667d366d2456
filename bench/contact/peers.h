#pragma once
// The engines of the contact benchmark, one file each; each runs the scene
// through RunScene (scene.h) and prints the settings it uses.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench/contact/scene.h"

namespace tern::bench::contact {

// sleeping: Bullet's default deactivation of bodies at rest (on), or every
// body kept awake (off).
void RunBullet(benchmark::State& state, const Scene* scene, bool sleeping);
void RunOde(benchmark::State& state, const Scene* scene);
void RunMujoco(benchmark::State& state, const Scene* scene);
// sleeping: TimeSteppingOptions::sleeping (off by default; the ratio uses
// Tern with it off).
void RunTern(benchmark::State& state, const Scene* scene, bool sleeping);

// The untimed energy and height trace of one run (TraceScene, scene.h).
void TraceBullet(const Scene* scene);
void TraceOde(const Scene* scene);
void TraceMujoco(const Scene* scene);
void TraceTern(const Scene* scene);

// One line each: the library's settings as it reports them.
void PrintBulletSettings();
void PrintOdeSettings();
void PrintMujocoSettings();
void PrintTernSettings();

// Robot scenes against MuJoCo (robots.cc): registers robots_<scene>/<engine>
// for engines tern, tern_lemke and mujoco; returns the scene prefixes.
std::vector<std::string> RegisterRobotBenchmarks();
// Prints max |H_tern - H_mujoco| at a random state for each robot.
void CheckRobotMassMatrices();
// --trace=robots_<scene>: robot 0's base every 250 steps in each engine;
// false if there is no such scene.
bool TraceRobotScene(const std::string& name);

}  // namespace tern::bench::contact
