#include "tern/multibody/plant/contact_rows.h"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>

#include "tern/math/rotation.h"
#include "tern/multibody/geometry/geometry_queries.h"
#include "tern/multibody/plant/contact_common.h"
#include "tern/multibody/tree/kinematics.h"

namespace tern {
namespace {

// The contact stage both plants share: the query, the contact frame and
// the relative point Jacobian, checked against closed forms and against
// the velocities of the two material points.

ContactProperties Material(double mu, double e) {
  ContactProperties p;
  p.friction = mu;
  p.restitution = e;
  return p;
}

// A two-link arm hanging from the world at z = 1 (revolute about y, then
// about x) with a sphere of radius 0.1 at the end of link 2, a free box,
// and the ground half-space.
struct Scene {
  RigidBodyTree<double> tree{"arm_and_box"};
  GeometryModel model;
  Scene() {
    Joint<double> j1;
    j1.name = "shoulder";
    j1.type = JointType::kRevolute;
    j1.axis = Vector3<double>::UnitY();
    j1.X_PJ.p = Vector3<double>(0, 0, 1);
    const auto inertia = SpatialInertia<double>::FromCom(
        1.0, Vector3<double>(0, 0, -0.25), Matrix3<double>::Identity() * 0.01);
    tree.AddBody("link1", 0, j1, inertia);
    Joint<double> j2;
    j2.name = "elbow";
    j2.type = JointType::kRevolute;
    j2.axis = Vector3<double>::UnitX();
    j2.X_PJ.p = Vector3<double>(0, 0, -0.5);
    tree.AddBody("link2", 1, j2, inertia);
    Joint<double> jf;
    jf.name = "floating";
    jf.type = JointType::kFloating;
    tree.AddBody(
        "box", 0, jf,
        SpatialInertia<double>::FromCom(2.0, Vector3<double>::Zero(),
                                        Matrix3<double>::Identity() * 0.02));
    model = GeometryModel(tree.num_bodies());
    Geometry ground;
    ground.name = "ground";
    ground.body = 0;
    ground.shape = Shape::HalfSpace();
    ground.properties = Material(0.8, 0.1);
    model.AddGeometry(ground);
    Geometry hand;
    hand.name = "hand";
    hand.body = 2;
    hand.X_BG.p = Vector3<double>(0, 0, -0.5);
    hand.shape = Shape::Sphere(0.1);
    hand.properties = Material(0.4, 0.3);
    model.AddGeometry(hand);
    Geometry box;
    box.name = "box";
    box.body = 3;
    box.shape = Shape::Box(0.2, 0.2, 0.2);
    box.properties = Material(0.6, 0.0);
    model.AddGeometry(box);
  }
};

TEST(ContactQuery, ThrowsNamingTheOwnerForAModelOfAnotherTree) {
  Scene s;
  GeometryModel wrong(2);
  try {
    ContactQuery q(s.tree, wrong, "RigidContact 'floor'");
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("RigidContact 'floor'"), std::string::npos) << what;
    EXPECT_NE(what.find("arm_and_box"), std::string::npos) << what;
  }
}

// Contact frames: unit normal, right-handed orthonormal tangent basis, the
// combined friction and restitution, and phi of the closed form.
TEST(ContactQuery, FramesOfASphereAndABoxOnTheGround) {
  Scene s;
  ContactQuery query(s.tree, s.model, "test");
  KinematicsCache<double> cache(s.tree);
  VectorX<double> q = s.tree.GetZeroConfiguration();
  // The hand hangs at z = 1 - 0.5 - 0.5 = 0: 0.1 deep. The box's centre
  // at z = 0.098: its four bottom corners 2 mm deep.
  const int box_q = s.tree.body(3).position_start;
  q[box_q + 0] = 2.0;  // x: away from the arm ([x y z] then quaternion)
  q[box_q + 2] = 0.098;
  ForwardKinematics(s.tree, &cache, q);
  GeometryWorkspace ws(query.model());
  const std::vector<Contact>& contacts = query.FindContacts(cache, 0, &ws);
  int hand = 0, box = 0;
  for (int i = 0; i < static_cast<int>(contacts.size()); ++i) {
    const ContactFrame f = query.Frame(contacts, i);
    EXPECT_EQ(f.contact, i);
    EXPECT_NEAR(f.n.norm(), 1, 1e-14);
    EXPECT_NEAR(f.t1.norm(), 1, 1e-14);
    EXPECT_NEAR(f.n.dot(f.t1), 0, 1e-14);
    EXPECT_LT((f.n.cross(f.t1) - f.t2).norm(), 1e-14);
    EXPECT_EQ(f.geometry_a, 0);  // the ground comes first
    EXPECT_LT((f.n - Vector3<double>::UnitZ()).norm(), 1e-12);
    if (f.geometry_b == 1) {
      ++hand;
      EXPECT_EQ(f.body_b, 2);
      EXPECT_NEAR(f.phi, -0.1, 1e-12);
      EXPECT_DOUBLE_EQ(f.mu, 2 * 0.8 * 0.4 / 1.2);
      EXPECT_DOUBLE_EQ(f.e, 0.3);
    } else {
      ++box;
      EXPECT_EQ(f.body_b, 3);
      EXPECT_NEAR(f.phi, -0.002, 1e-12);
      EXPECT_DOUBLE_EQ(f.mu, 2 * 0.8 * 0.6 / 1.4);
      EXPECT_DOUBLE_EQ(f.e, 0.1);
    }
  }
  EXPECT_EQ(hand, 1);
  EXPECT_EQ(box, 4);
  EXPECT_NE(query.DescribePair(0, 1).find("geometry 'hand' (body 'link2')"),
            std::string::npos);
}

// J_B(p_WB) - J_A(p_WA) times v is the relative velocity of the two
// material points, at random configurations and velocities of the arm and
// the box, for every contact in the margin.
TEST(ContactQuery, RelativePointJacobianGivesTheRelativeVelocity) {
  Scene s;
  ContactQuery query(s.tree, s.model, "test");
  KinematicsCache<double> cache(s.tree);
  Matrix6X<double> J(6, s.tree.num_velocities());
  MatrixX<double> Jr(3, s.tree.num_velocities());
  GeometryWorkspace ws(query.model());
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  int checked = 0;
  for (int trial = 0; trial < 20; ++trial) {
    VectorX<double> q = s.tree.GetZeroConfiguration();
    q[0] = 0.3 * u(rng);
    q[1] = 0.3 * u(rng);
    const int box_q = s.tree.body(3).position_start;
    const Vector4<double> quat = AxisAngleToQuaternion(
        Vector3<double>(u(rng), u(rng), 1).normalized(), 0.5 * u(rng));
    q.segment<4>(box_q + 3) = quat;
    q[box_q + 0] = 2.0;
    q[box_q + 2] = 0.15 + 0.05 * u(rng);
    VectorX<double> v(s.tree.num_velocities());
    for (int i = 0; i < v.size(); ++i) v[i] = u(rng);
    ForwardKinematics(s.tree, &cache, q, v);
    const std::vector<Contact>& contacts = query.FindContacts(cache, 0.3, &ws);
    for (int i = 0; i < static_cast<int>(contacts.size()); ++i) {
      const ContactFrame f = query.Frame(contacts, i);
      RelativePointJacobian(s.tree, cache, query.body_frames(), f.body_a,
                            f.p_WA, f.body_b, f.p_WB, &J, Jr);
      const Vector3<double> v_r = ContactRelativeVelocity(cache, f);
      EXPECT_LT((Jr * v - v_r).norm(), 1e-12 * (1 + v_r.norm()));
      // One point for both bodies (the time-stepping plant's midpoint):
      // the body-fixed points' velocities at that point.
      const Vector3<double> mid = 0.5 * (f.p_WA + f.p_WB);
      RelativePointJacobian(s.tree, cache, query.body_frames(), f.body_a, mid,
                            f.body_b, mid, &J, Jr);
      const Vector3<double> v_mid = PointVelocityInWorld(cache, f.body_b, mid) -
                                    PointVelocityInWorld(cache, f.body_a, mid);
      EXPECT_LT((Jr * v - v_mid).norm(), 1e-12 * (1 + v_mid.norm()));
      ++checked;
    }
  }
  EXPECT_GT(checked, 20);
}

// The swept margin: a box 0.1 m above the ground falling at 20 m/s has no
// contact within a 5 mm margin, but one over a 10 ms step (it travels 0.2
// m); after FK(q) alone (zero velocities in the cache) nothing is swept.
TEST(ContactQuery, SweptMarginFindsAFastBodyBeforeItArrives) {
  Scene s;
  ContactQuery query(s.tree, s.model, "test");
  KinematicsCache<double> cache(s.tree);
  GeometryWorkspace ws(query.model());
  VectorX<double> q = s.tree.GetZeroConfiguration();
  q[0] = 1.0;  // the arm swung up, out of contact
  const int box_q = s.tree.body(3).position_start;
  q[box_q + 0] = 2.0;
  q[box_q + 2] = 0.2;
  VectorX<double> v = VectorX<double>::Zero(s.tree.num_velocities());
  v[s.tree.body(3).velocity_start + 5] = -20;  // body-frame z, upright
  auto box_contacts = [&](double swept_h) {
    int n = 0;
    for (const Contact& c : query.FindContacts(cache, 0.005, &ws, swept_h)) {
      n += c.body_b == 3;
    }
    return n;
  };
  ForwardKinematics(s.tree, &cache, q, v);
  EXPECT_EQ(box_contacts(0), 0);
  EXPECT_EQ(box_contacts(0.01), 4);
  EXPECT_EQ(box_contacts(0.001), 0);  // 2 cm per step: not yet
  KinematicsCache<double> no_velocities(s.tree);
  ForwardKinematics(s.tree, &no_velocities, q);
  int n = 0;
  for (const Contact& c : query.FindContacts(no_velocities, 0.005, &ws, 0.01)) {
    n += c.body_b == 3;
  }
  EXPECT_EQ(n, 0);
}

}  // namespace
}  // namespace tern
