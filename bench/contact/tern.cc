// Tern's TimeSteppingRigidBodySystem on the contact scene, through its public
// API only: a RigidBodyTree of N bodies on floating joints, a GeometryModel
// with one sphere or box per body and the half-space z <= 0 on the world
// (friction 0.5 on each; the plant combines two geometries' coefficients by
// their harmonic mean, 0.5 here), the plant with its default
// TimeSteppingOptions (printed at start-up: solver, friction directions,
// margin, erp, PGS sweeps; sleeping off, and on for tern_sleeping, which is
// for reference, not the ratio), advanced one step at a time by a
// Simulator, as a user runs it. Contacts: GetStepStats(context).num_contacts
// of the last step.
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench/contact/peers.h"
#include "tern/multibody/plant/time_stepping_rigid_body_system.h"
#include "tern/systems/analysis/simulator.h"

namespace tern::bench::contact {
namespace {

class TernWorld {
 public:
  TernWorld(const Scene& scene, bool sleeping) {
    RigidBodyTree<double> tree(scene.name);
    tree.set_gravity(Vector3<double>(0, 0, -kGravity));
    const int n = static_cast<int>(scene.poses.size());
    const auto inertia = SpatialInertia<double>::FromCom(
        kMass, Vector3<double>::Zero(),
        Matrix3<double>::Identity() * Inertia(scene.shape));
    for (int i = 0; i < n; ++i) {
      Joint<double> free;
      free.type = JointType::kFloating;
      free.name = "free" + std::to_string(i);
      tree.AddBody("body" + std::to_string(i), 0, free, inertia);
    }
    GeometryModel geometry(tree.num_bodies());
    for (int i = 0; i < n; ++i) {
      Geometry g;
      g.name = "shape" + std::to_string(i);
      g.body = i + 1;
      g.shape = scene.shape == BodyShape::kSphere
                    ? Shape::Sphere(kRadius)
                    : Shape::Box(2 * kHalfSide, 2 * kHalfSide, 2 * kHalfSide);
      g.properties.friction = kFriction;
      geometry.AddGeometry(g);
    }
    Geometry ground;
    ground.name = "ground";
    ground.shape = Shape::HalfSpace();
    ground.properties.friction = kFriction;
    geometry.AddGeometry(ground);
    // The bodies' coordinates, in the order AddBody made them.
    VectorX<double> q = tree.GetZeroConfiguration();
    for (int i = 0; i < n; ++i) {
      const BodyPose& b = scene.poses[i];
      q.segment<7>(7 * i) << b.p[0], b.p[1], b.p[2], std::cos(b.yaw / 2), 0, 0,
          std::sin(b.yaw / 2);
    }
    TimeSteppingOptions options;
    options.sleeping = sleeping;
    plant_ = std::make_unique<TimeSteppingRigidBodySystem>(
        std::move(tree), std::move(geometry), kStep,
        std::vector<TimeSteppingRigidBodySystem::ActuatorPtr>{},
        std::vector<TimeSteppingRigidBodySystem::SensorPtr>{},
        std::vector<TimeSteppingRigidBodySystem::BilateralPtr>{}, options);
    sim_ = std::make_unique<Simulator<double>>(*plant_);
    plant_->SetPositionsAndVelocities(&sim_->get_mutable_context(), q,
                                      VectorX<double>::Zero(6 * n));
  }

  void Step() { sim_->AdvanceTo(++steps_ * kStep); }

  int NumContacts() const {
    return plant_->GetStepStats(sim_->get_context()).num_contacts;
  }

  std::array<double, 5> SolverWork() const {
    const TimeSteppingStepStats& s = plant_->GetStepStats(sim_->get_context());
    return {static_cast<double>(s.pgs_sweeps),
            static_cast<double>(s.lemke_pivots),
            static_cast<double>(s.convex_iterations),
            static_cast<double>(s.pgs_fallbacks),
            static_cast<double>(s.pgs_group_steps)};
  }

  // v of a floating body is [w_B; v_B] in the body's frame: the norm of v_B
  // is the speed of its origin, the centre.
  BodyState Body(int i) const {
    const VectorX<double>& x = plant_->GetState(sim_->get_context());
    const int nq = 7 * static_cast<int>(x.size() / 13);
    return {x[7 * i + 2], x.segment<3>(nq + 6 * i + 3).norm(),
            x.segment<3>(nq + 6 * i).norm()};
  }

 private:
  std::unique_ptr<TimeSteppingRigidBodySystem> plant_;
  std::unique_ptr<Simulator<double>> sim_;
  int steps_ = 0;
};

}  // namespace

void RunTern(benchmark::State& state, const Scene* scene, bool sleeping) {
  if (sleeping) {
    RunScene<WorldWith<TernWorld, true>>(state, scene);
  } else {
    RunScene<WorldWith<TernWorld, false>>(state, scene);
  }
}

void TraceTern(const Scene* scene) {
  TraceScene<WorldWith<TernWorld, false>>(*scene, "tern");
}

void PrintTernSettings() {
  const TimeSteppingOptions o;
  static const char* const kSolvers[] = {"auto", "lemke", "pgs", "convex"};
  std::printf(
      "tern: TimeSteppingRigidBodySystem, default options: solver %s "
      "(Newton on the convex formulation, round Coulomb cone, to relative "
      "tolerance %g, up to %d iterations; islands of more than %d free-body "
      "dofs by over-relaxed PGS on the round cone, up to max(%d, 1000) sweeps "
      "to %g m/s, then the convex solver), margin %g m, speculative "
      "contacts %d, warm start %d, sleeping %d "
      "(tern_sleeping: on, after %g s below %g m/s)\n",
      kSolvers[static_cast<int>(o.solver)], o.convex_tolerance,
      o.convex_max_iterations, o.convex_max_free_body_dofs,
      o.pgs_max_iterations, o.pgs_tolerance, o.contact_margin,
      o.speculative_contacts, o.warm_start, o.sleeping, o.sleep_time,
      o.sleep_velocity);
}

}  // namespace tern::bench::contact
