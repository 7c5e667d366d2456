"""A URDF forward-dynamics loop from Python: the 7-DoF arm under gravity,
integrated with semi-implicit Euler on forward_dynamics (the articulated-body
algorithm), printing the energy it loses to joint damping."""
import pathlib
import sys

import numpy as np

import tern

models = pathlib.Path(__file__).resolve().parents[2] / "models"
urdf = sys.argv[1] if len(sys.argv) > 1 else str(models / "arm7.urdf")
tree = tern.parse_urdf_file(urdf).tree
cache = tern.KinematicsCache(tree)
print(f"{tree.name}: {tree.num_bodies() - 1} bodies, nq = "
      f"{tree.num_positions()}, total mass {tree.total_mass():.3f} kg")

h = 1e-3
q = np.full(tree.num_positions(), 0.3)
v = np.zeros(tree.num_velocities())
tau = np.zeros(tree.num_velocities())


def energy():
    tern.forward_kinematics(tree, cache, q, v)
    return tern.kinetic_energy(tree, cache) + tern.potential_energy(tree, cache)


e0 = energy()
for k in range(1001):
    if k % 250 == 0:
        print(f"t = {k * h:5.3f}  q[0] = {q[0]:+.5f}  energy {energy() - e0:+.6f} J")
    # forward_dynamics returns a new (nv,) array.
    v = v + h * tern.forward_dynamics(tree, cache, q, v, tau)
    q = q + h * tern.map_velocity_to_qdot(tree, q, v)
