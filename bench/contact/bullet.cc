// Bullet 3.24 (double precision build) on the contact scene, with the
// settings a Bullet user gets by default for such a scene:
// btDiscreteDynamicsWorld over btDefaultCollisionConfiguration, a
// btCollisionDispatcher, a btDbvtBroadphase and btSequentialImpulseConstraint
// Solver with its default btContactSolverInfo (10 iterations, warm starting,
// split impulse, erp2 0.2, restitution 0), one stepSimulation(h, 0) per step
// (exactly one internal step of h, no interpolation). Bullet multiplies the
// two bodies' friction coefficients, so every body and the ground get
// sqrt(0.5): 0.5 for every pair. Bodies at rest fall asleep after 2 s
// (Bullet's default deactivation) unless `sleeping` is false, when every body
// gets DISABLE_DEACTIVATION. Contacts: the points of all persistent
// manifolds after the step (Bullet keeps points up to its contact-breaking
// threshold, 0.02 m, even when they are slightly apart; its solver takes
// them all).
#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "bench/contact/peers.h"

namespace tern::bench::contact {
namespace {

class BulletWorld {
 public:
  BulletWorld(const Scene& scene, bool sleeping)
      : dispatcher_(&config_),
        world_(&dispatcher_, &broadphase_, &solver_, &config_) {
    world_.setGravity(btVector3(0, 0, -kGravity));
    const double mu = std::sqrt(kFriction);
    ground_body_ = std::make_unique<btRigidBody>(0.0, nullptr, &ground_);
    ground_body_->setFriction(mu);
    world_.addRigidBody(ground_body_.get());
    if (scene.shape == BodyShape::kSphere) {
      shape_ = std::make_unique<btSphereShape>(kRadius);
    } else {
      shape_ = std::make_unique<btBoxShape>(
          btVector3(kHalfSide, kHalfSide, kHalfSide));
    }
    const double I = Inertia(scene.shape);
    for (const BodyPose& pose : scene.poses) {
      btTransform X;
      X.setOrigin(btVector3(pose.p[0], pose.p[1], pose.p[2]));
      X.setRotation(btQuaternion(btVector3(0, 0, 1), pose.yaw));
      btRigidBody::btRigidBodyConstructionInfo info(
          kMass, nullptr, shape_.get(), btVector3(I, I, I));
      info.m_startWorldTransform = X;
      info.m_friction = mu;
      bodies_.push_back(std::make_unique<btRigidBody>(info));
      if (!sleeping) bodies_.back()->setActivationState(DISABLE_DEACTIVATION);
      world_.addRigidBody(bodies_.back().get());
    }
  }
  ~BulletWorld() {
    for (auto& b : bodies_) world_.removeRigidBody(b.get());
    world_.removeRigidBody(ground_body_.get());
  }

  void Step() { world_.stepSimulation(kStep, 0); }

  int NumContacts() const {
    int points = 0;
    for (int m = 0; m < dispatcher_.getNumManifolds(); ++m) {
      points += dispatcher_.getManifoldByIndexInternal(m)->getNumContacts();
    }
    return points;
  }

  BodyState Body(int i) const {
    const btRigidBody& b = *bodies_[i];
    return {b.getCenterOfMassPosition().z(), b.getLinearVelocity().length(),
            b.getAngularVelocity().length()};
  }

 private:
  btDefaultCollisionConfiguration config_;
  btCollisionDispatcher dispatcher_;
  btDbvtBroadphase broadphase_;
  btSequentialImpulseConstraintSolver solver_;
  btDiscreteDynamicsWorld world_;
  btStaticPlaneShape ground_{btVector3(0, 0, 1), 0};
  std::unique_ptr<btRigidBody> ground_body_;
  std::unique_ptr<btCollisionShape> shape_;
  std::vector<std::unique_ptr<btRigidBody>> bodies_;
};

}  // namespace

void RunBullet(benchmark::State& state, const Scene* scene, bool sleeping) {
  if (sleeping) {
    RunScene<WorldWith<BulletWorld, true>>(state, scene);
  } else {
    RunScene<WorldWith<BulletWorld, false>>(state, scene);
  }
}

void TraceBullet(const Scene* scene) {
  TraceScene<WorldWith<BulletWorld, true>>(*scene, "bullet");
}

void PrintBulletSettings() {
  const btContactSolverInfo info;
  std::printf(
      "bullet: btDiscreteDynamicsWorld, btDbvtBroadphase, "
      "btSequentialImpulseConstraintSolver, %d iterations, erp2 %g, split "
      "impulse %d, warm starting %d, friction sqrt(%g) per body (product), "
      "deactivation after %g s (bullet_awake: none)\n",
      info.m_numIterations, static_cast<double>(info.m_erp2),
      info.m_splitImpulse, (info.m_solverMode & SOLVER_USE_WARMSTARTING) != 0,
      kFriction, static_cast<double>(gDeactivationTime));
}

}  // namespace tern::bench::contact
