#pragma once
// The engines of the contact benchmark, one file each; each runs the scene
// through RunScene (scene.h) and prints the settings it uses.
#include <benchmark/benchmark.h>

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

}  // namespace tern::bench::contact
