// ODE 0.16 (double precision) on the contact scene, with the settings of
// ODE's own demos for such a scene: a hash space, one dWorldQuickStep(h) per
// step with its defaults (20 iterations, SOR over-relaxation 1.3, world ERP
// 0.2 and CFM 1e-10, no auto-disable), contact joints made anew every step
// from dCollide (up to 4 points per pair) with dContactApprox1 (friction
// pyramid scaled by the normal force, so mu is a Coulomb coefficient) and
// mu = 0.5, no bounce, no softness. Contacts: the contact joints of the step.
#include <ode/ode.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

#include "bench/contact/peers.h"

namespace tern::bench::contact {
namespace {

constexpr int kMaxPointsPerPair = 4;

class OdeWorld {
 public:
  explicit OdeWorld(const Scene& scene) {
    static const bool initialized = [] { return dInitODE2(0) != 0; }();
    (void)initialized;
    world_ = dWorldCreate();
    dWorldSetGravity(world_, 0, 0, -kGravity);
    space_ = dHashSpaceCreate(nullptr);
    contacts_ = dJointGroupCreate(0);
    dCreatePlane(space_, 0, 0, 1, 0);
    dMass mass;
    if (scene.shape == BodyShape::kSphere) {
      dMassSetSphereTotal(&mass, kMass, kRadius);
    } else {
      dMassSetBoxTotal(&mass, kMass, 2 * kHalfSide, 2 * kHalfSide,
                       2 * kHalfSide);
    }
    for (const BodyPose& pose : scene.poses) {
      const dBodyID body = dBodyCreate(world_);
      dBodySetMass(body, &mass);
      dBodySetPosition(body, pose.p[0], pose.p[1], pose.p[2]);
      dQuaternion q;
      dQFromAxisAndAngle(q, 0, 0, 1, pose.yaw);
      dBodySetQuaternion(body, q);
      const dGeomID geom =
          scene.shape == BodyShape::kSphere
              ? dCreateSphere(space_, kRadius)
              : dCreateBox(space_, 2 * kHalfSide, 2 * kHalfSide, 2 * kHalfSide);
      dGeomSetBody(geom, body);
      bodies_.push_back(body);
    }
  }
  ~OdeWorld() {
    dJointGroupDestroy(contacts_);
    dSpaceDestroy(space_);  // destroys its geoms
    dWorldDestroy(world_);  // destroys its bodies
  }

  void Step() {
    num_contacts_ = 0;
    dSpaceCollide(space_, this, &OdeWorld::NearCallback);
    dWorldQuickStep(world_, kStep);
    dJointGroupEmpty(contacts_);
  }

  int NumContacts() const { return num_contacts_; }

  BodyState Body(int i) const {
    const dReal* p = dBodyGetPosition(bodies_[i]);
    const dReal* v = dBodyGetLinearVel(bodies_[i]);
    const dReal* w = dBodyGetAngularVel(bodies_[i]);
    return {p[2], std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]),
            std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])};
  }

 private:
  static void NearCallback(void* data, dGeomID a, dGeomID b) {
    auto* self = static_cast<OdeWorld*>(data);
    std::array<dContact, kMaxPointsPerPair> c{};
    const int n =
        dCollide(a, b, kMaxPointsPerPair, &c[0].geom, sizeof(dContact));
    for (int k = 0; k < n; ++k) {
      c[k].surface.mode = dContactApprox1;
      c[k].surface.mu = kFriction;
      const dJointID joint =
          dJointCreateContact(self->world_, self->contacts_, &c[k]);
      dJointAttach(joint, dGeomGetBody(a), dGeomGetBody(b));
    }
    self->num_contacts_ += n;
  }

  dWorldID world_;
  dSpaceID space_;
  dJointGroupID contacts_;
  std::vector<dBodyID> bodies_;
  int num_contacts_ = 0;
};

}  // namespace

void RunOde(benchmark::State& state, const Scene* scene) {
  RunScene<OdeWorld>(state, scene);
}

void TraceOde(const Scene* scene) { TraceScene<OdeWorld>(*scene, "ode"); }

void PrintOdeSettings() {
  dInitODE2(0);
  const dWorldID w = dWorldCreate();
  std::printf(
      "ode: dWorldQuickStep, %d iterations, SOR w %g, ERP %g, CFM %g, hash "
      "space, contact joints with dContactApprox1, mu %g, up to %d points "
      "per pair, auto-disable %d\n",
      dWorldGetQuickStepNumIterations(w), dWorldGetQuickStepW(w),
      dWorldGetERP(w), dWorldGetCFM(w), kFriction, kMaxPointsPerPair,
      dWorldGetAutoDisableFlag(w));
  dWorldDestroy(w);
}

}  // namespace tern::bench::contact
