#include "tern/multibody/tree/joint.h"

#include <gtest/gtest.h>

namespace tern {
namespace {

TEST(JointTest, SizesAndNames) {
  EXPECT_EQ(JointNumPositions(JointType::kFloating), 7);
  EXPECT_EQ(JointNumVelocities(JointType::kFloating), 6);
  EXPECT_EQ(JointNumPositions(JointType::kBall), 4);
  EXPECT_EQ(JointNumVelocities(JointType::kBall), 3);
  EXPECT_EQ(JointNumPositions(JointType::kPlanar), 3);
  EXPECT_EQ(JointNumVelocities(JointType::kFixed), 0);
  EXPECT_STREQ(JointTypeName(JointType::kPrismatic), "prismatic");
}

TEST(JointTest, PlanarBasisIsRightHanded) {
  Vector3<double> t1, t2;
  PlanarBasis(Vector3<double>::UnitZ(), &t1, &t2);
  EXPECT_TRUE(t1.isApprox(Vector3<double>::UnitX()));
  EXPECT_TRUE(t2.isApprox(Vector3<double>::UnitY()));
  for (const Vector3<double>& a :
       {Vector3<double>(1, 0, 0),
        Vector3<double>(0.3, -0.8, 0.2).normalized()}) {
    PlanarBasis(a, &t1, &t2);
    EXPECT_NEAR(t1.dot(a), 0, 1e-15);
    EXPECT_TRUE(t1.cross(t2).isApprox(a, 1e-14));
  }
}

}  // namespace
}  // namespace tern
