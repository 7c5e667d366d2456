#include "tern/multibody/tree/kinematics_cache.h"

namespace tern {

template <typename T>
KinematicsCache<T>::KinematicsCache(const RigidBodyTree<T>& tree,
                                    bool with_mass_matrix)
    : num_bodies(tree.num_bodies()),
      num_positions(tree.num_positions()),
      num_velocities(tree.num_velocities()) {
  const std::size_t nb = tree.num_bodies();
  X_PB.assign(nb, RigidTransform<T>());
  X_WB.assign(nb, RigidTransform<T>());
  S.assign(nb, Matrix6<T>::Zero());
  V.assign(nb, SpatialMotion<T>::Zero());
  vJ.assign(nb, SpatialMotion<T>::Zero());
  A_bias.assign(nb, SpatialMotion<T>::Zero());
  A.assign(nb, SpatialMotion<T>::Zero());
  a.assign(nb, SpatialMotion<T>::Zero());
  f.assign(nb, SpatialForce<T>::Zero());
  p_PB_W.assign(nb, Vector3<T>::Zero());
  Ic.assign(nb, SpatialInertia<T>());
  S_W.assign(tree.num_velocities(), SpatialMotion<T>::Zero());
  IA.assign(nb, Matrix6<T>::Zero());
  V_W.assign(nb, SpatialMotion<T>::Zero());
  c_W.assign(nb, SpatialMotion<T>::Zero());
  U.assign(nb, Matrix6<T>::Zero());
  Dinv.assign(nb, Matrix6<T>::Zero());
  u.assign(nb, Vector6<T>::Zero());
  com_sub_W.assign(nb, Vector3<T>::Zero());
  mass_sub.assign(nb, T(0));
  const int nv = tree.num_velocities();
  if (with_mass_matrix) H = MatrixX<T>::Zero(nv, nv);
  tau = VectorX<T>::Zero(nv);
  vdot = VectorX<T>::Zero(nv);
}

TERN_INSTANTIATE_STRUCT_ON_DEFAULT_SCALARS(KinematicsCache)

}  // namespace tern
