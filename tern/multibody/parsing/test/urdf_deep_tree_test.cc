// Issue 12, items 10 and 11 on the parser: a chain of 100,000 joints loads,
// even on a thread with a 512 KiB stack (the parser and the tree building
// do not recurse), in time linear in its length; the dynamics algorithms
// run on long chains on such a thread too. A model whose mass matrix is
// singular by construction, or whose link inertia no body can have, is
// rejected naming the joint or link.
#include <gtest/gtest.h>
#include <pthread.h>

#include <Eigen/Cholesky>
#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>

#include "tern/multibody/parsing/urdf_parser.h"
#include "tern/multibody/tree/dynamics.h"
#include "tern/multibody/tree/kinematics.h"

namespace tern {
namespace {

// Runs f on a new thread with a `stack_bytes` stack; rethrows what it throws.
void RunOnSmallStack(std::size_t stack_bytes, const std::function<void()>& f) {
  struct Job {
    const std::function<void()>* f;
    std::exception_ptr error;
  } job{&f, nullptr};
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, stack_bytes), 0);
  pthread_t thread;
  auto body = [](void* arg) -> void* {
    auto* j = static_cast<Job*>(arg);
    try {
      (*j->f)();
    } catch (...) {
      j->error = std::current_exception();
    }
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, body, &job), 0);
  ASSERT_EQ(pthread_join(thread, nullptr), 0);
  pthread_attr_destroy(&attr);
  if (job.error) std::rethrow_exception(job.error);
}

// A chain base -> l1 -> ... -> ln; joint k is `type(k)`.
std::string Chain(int n, const std::function<const char*(int)>& type) {
  std::string xml = "<robot name=\"chain\">\n";
  xml.reserve(400u * static_cast<std::size_t>(n));
  auto link = [&](const std::string& name) {
    xml += "<link name=\"" + name +
           "\"><inertial><origin xyz=\"0 0 -0.05\"/><mass value=\"0.1\"/>"
           "<inertia ixx=\"1e-4\" iyy=\"1e-4\" izz=\"1e-4\" ixy=\"0\" "
           "ixz=\"0\" iyz=\"0\"/></inertial></link>\n";
  };
  link("l0");
  for (int k = 1; k <= n; ++k) {
    const std::string name = "l" + std::to_string(k);
    link(name);
    xml += "<joint name=\"j" + std::to_string(k) + "\" type=\"" + type(k) +
           "\"><parent link=\"l" + std::to_string(k - 1) +
           "\"/><child link=\"" + name +
           "\"/><origin xyz=\"0 0 -0.1\"/><axis xyz=\"1 0 0\"/>"
           "<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>"
           "</joint>\n";
  }
  return xml + "</robot>\n";
}

double SecondsToParse(const std::string& xml, int* num_bodies,
                      UrdfModel* out = nullptr) {
  const auto t0 = std::chrono::steady_clock::now();
  UrdfModel model = ParseUrdfString(xml);
  const double t =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  *num_bodies = model.tree.num_bodies();
  if (out != nullptr) *out = std::move(model);
  return t;
}

constexpr std::size_t kSmallStack = 512 * 1024;

TEST(UrdfDeepTreeTest, ChainOf100000JointsLoadsOnA512KiBStack) {
  auto revolute = [](int) { return "revolute"; };
  const std::string big = Chain(100000, revolute);
  const std::string quarter = Chain(25000, revolute);
  double t_big = 0, t_quarter = 0;
  int nb_big = 0, nb_quarter = 0;
  RunOnSmallStack(kSmallStack, [&] {
    t_quarter = SecondsToParse(quarter, &nb_quarter);
    t_big = SecondsToParse(big, &nb_big);
  });
  EXPECT_EQ(nb_big, 100002);  // world, l0, l1 .. l100000
  EXPECT_EQ(nb_quarter, 25002);
  std::printf("revolute chain: 25,000 joints %.3f s, 100,000 joints %.3f s\n",
              t_quarter, t_big);
  // Linear: 4x the joints, about 4x the time (quadratic would be 16x).
  EXPECT_LT(t_big, 10 * t_quarter + 1.0);
}

TEST(UrdfDeepTreeTest, LongFixedChainsBuildInLinearTime) {
  // One revolute joint carrying a long chain of welded links: every welded
  // link finds its carrier, and every body the last dof above it, in O(1).
  auto fixed_after_first = [](int k) { return k == 1 ? "revolute" : "fixed"; };
  const std::string big = Chain(40000, fixed_after_first);
  const std::string quarter = Chain(10000, fixed_after_first);
  double t_big = 0, t_quarter = 0;
  int nb_big = 0, nb_quarter = 0;
  UrdfModel model{RigidBodyTree<double>(), {}};
  RunOnSmallStack(kSmallStack, [&] {
    t_quarter = SecondsToParse(quarter, &nb_quarter);
    t_big = SecondsToParse(big, &nb_big, &model);
  });
  EXPECT_EQ(nb_big, 40002);
  std::printf("fixed chain: 10,000 joints %.3f s, 40,000 joints %.3f s\n",
              t_quarter, t_big);
  EXPECT_LT(t_big, 10 * t_quarter + 1.0);
  // The carrier of every link below l1 is l1, with all their mass.
  EXPECT_NEAR(model.tree.body(2).inertia_with_welded.m, 0.1 * 40000, 1e-6);
  EXPECT_EQ(model.tree.num_velocities(), 1);
}

TEST(UrdfDeepTreeTest, AlgorithmsRunOnALongChainOnA512KiBStack) {
  const UrdfModel model = ParseUrdfString(
      Chain(1000, [](int k) { return k % 3 == 0 ? "prismatic" : "revolute"; }));
  const RigidBodyTree<double>& tree = model.tree;
  const int nv = tree.num_velocities();
  ASSERT_EQ(nv, 1000);
  RunOnSmallStack(kSmallStack, [&] {
    KinematicsCache<double> cache(tree);
    const VectorX<double> q = VectorX<double>::Constant(nv, 0.01);
    const VectorX<double> v = VectorX<double>::Constant(nv, 0.02);
    const VectorX<double> tau = VectorX<double>::Constant(nv, 0.001);
    ForwardKinematics(tree, &cache, q, v);
    const MatrixX<double> H = MassMatrix(tree, &cache, q);
    const VectorX<double> vdot = ForwardDynamics(tree, &cache, q, v, tau);
    ASSERT_TRUE(vdot.allFinite());
    // A 1000-link chain is ill-conditioned: residuals against the size of
    // the terms.
    const VectorX<double> C = BiasTerm(tree, &cache, q, v);
    const double scale = H.norm() * vdot.norm() + C.norm();
    const VectorX<double> tau2 = InverseDynamics(tree, &cache, q, v, vdot);
    EXPECT_LT((tau2 - tau).norm(), 1e-12 * scale);
    EXPECT_LT((H * vdot + C - tau).norm(), 1e-12 * scale);
    CheckMassMatrixNonsingular(tree);
  });
}

std::string ErrorOf(const std::string& xml, const UrdfParseOptions& options) {
  try {
    ParseUrdfString(xml, options, "test.urdf");
  } catch (const UrdfError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

TEST(UrdfDeepTreeTest, SingularMassMatrixIsRejectedNamingTheJoint) {
  // The shipped cart-pole with a floating base: its rail is massless, and
  // the cart slides freely along it, so the base's articulated inertia is
  // singular (ForwardDynamics returned NaN).
  UrdfParseOptions floating;
  floating.floating_base = true;
  try {
    ParseUrdfFile(std::string(TERN_MODELS_DIR) + "/cart_pole.urdf", floating);
    FAIL() << "cart_pole.urdf with a floating base loaded";
  } catch (const UrdfError& e) {
    EXPECT_CONTAINS(e.what(), "cart_pole.urdf:");
    EXPECT_CONTAINS(e.what(), "joint 'floating_base'");
    EXPECT_CONTAINS(e.what(), "body 'rail'");
  }
  // Welded to the world it is fine.
  EXPECT_NO_THROW(
      ParseUrdfFile(std::string(TERN_MODELS_DIR) + "/cart_pole.urdf"));
  // A massless leaf link on a revolute joint.
  const std::string leaf = R"(<robot name="r">
  <link name="base"/>
  <link name="arm"><inertial><mass value="1"/>
    <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="tool"/>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="wrist" type="continuous"><parent link="arm"/><child link="tool"/>
    <origin xyz="0 0 -1"/><axis xyz="1 0 0"/></joint>
</robot>)";
  const std::string msg = ErrorOf(leaf, {});
  EXPECT_CONTAINS(msg, "test.urdf:");
  EXPECT_CONTAINS(msg, "<joint name='wrist'>");
  EXPECT_CONTAINS(msg, "body 'tool'");
  // Allowed for a kinematics-only model.
  UrdfParseOptions kinematics_only;
  kinematics_only.check_mass_matrix = false;
  EXPECT_EQ(ErrorOf(leaf, kinematics_only), "");
  // A massless link on a fixed joint is fine.
  std::string welded = leaf;
  welded.replace(welded.find("type=\"continuous\""), 17, "type=\"fixed\"");
  EXPECT_EQ(ErrorOf(welded, {}), "");
}

TEST(UrdfDeepTreeTest, InertiaTriangleInequalityNamesTheLink) {
  const std::string xml = R"(<robot name="r">
  <link name="base"/>
  <link name="odd"><inertial><mass value="1"/>
    <inertia ixx="0.1" iyy="0.1" izz="0.3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j" type="continuous"><parent link="base"/><child link="odd"/>
    <axis xyz="0 0 1"/></joint>
</robot>)";
  const std::string msg = ErrorOf(xml, {});
  EXPECT_CONTAINS(msg, "test.urdf:4: <inertia>: link 'odd'");
  EXPECT_CONTAINS(msg, "A + B >= C");
}

}  // namespace
}  // namespace tern
