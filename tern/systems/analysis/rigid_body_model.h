#pragma once
// RigidBodyDynamicsModel: a RigidBodyTree as a model in the sense of model.h,
// so that DiscreteDynamics and DiscreteJacobian (every rule and method) apply
// to a robot. State x = [q; v] (nq + nv), input u = tau (nv, N m or N),
//   xdot = [N(qhat) v; ForwardDynamics(qhat, v, tau)],
// where qhat is q with every quaternion normalized: the model depends on a
// quaternion's direction only, so the unit-quaternion manifold is where it
// is evaluated whatever drift an integration step leaves, and the radial
// direction of each quaternion has no effect on vdot.
//
// Jacobian (JacobianMethod::kAnalytic) gives [df/dx df/du] in x's own
// coordinates from the analytic derivatives (ForwardDynamicsDerivatives:
// tangent-space dvdot/dq mapped to each quaternion's four coordinates by the
// derivative of qhat), so DiscreteJacobian chains it through any explicit
// rule with no autodiff. kAutoDiff runs AutoDiffXd through a copy of the
// tree.
//
// The tree must outlive the model. The model owns scratch written by its
// const methods (caches for both scalars): use one model per thread.
#include <memory>
#include <string>
#include <type_traits>

#include "tern/common/autodiff.h"
#include "tern/common/eigen_types.h"
#include "tern/multibody/tree/rigid_body_tree.h"

namespace tern {

class RigidBodyDynamicsModel {
 public:
  explicit RigidBodyDynamicsModel(const RigidBodyTree<double>& tree);
  ~RigidBodyDynamicsModel();
  RigidBodyDynamicsModel(const RigidBodyDynamicsModel&) = delete;
  RigidBodyDynamicsModel& operator=(const RigidBodyDynamicsModel&) = delete;

  Eigen::Index num_states() const { return nq_ + nv_; }
  Eigen::Index num_inputs() const { return nv_; }
  std::string name() const;
  const RigidBodyTree<double>& tree() const { return *tree_; }

  // xdot (nq + nv) = f(x, u, t).
  template <class T>
  requires(std::is_same_v<T, double> ||
           std::is_same_v<T, AutoDiffXd>) void Dynamics(const VectorX<T>& x,
                                                        const VectorX<T>& u,
                                                        const T& t,
                                                        VectorX<T>* xdot) const;

  // jac = [df/dx df/du], (nq + nv) x (nq + 2 nv), analytic.
  void Jacobian(const VectorX<double>& x, const VectorX<double>& u, double t,
                Eigen::MatrixXd* jac) const;

 private:
  struct Scratch;
  const RigidBodyTree<double>* tree_;
  int nq_{0};
  int nv_{0};
  std::unique_ptr<Scratch> scratch_;
};

}  // namespace tern
