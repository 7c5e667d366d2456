"""Cart-pole LQR from Python: discretize the C++ cart-pole model with RK4
about the upright equilibrium, design a discrete LQR, and roll the nonlinear
discrete dynamics out from a tilted start."""
import numpy as np

import tern

dt = 0.01
cartpole = tern.Cartpole()
x_up = np.array([0.0, np.pi, 0.0, 0.0])
u_up = np.zeros(1)

# x' ~ x_up + Ad dx + Bd du (exact Jacobians of the RK4 step, by autodiff).
Ad, Bd = tern.discrete_time_linearize(cartpole, x_up, u_up, 0.0, dt, "rk4")
lqr = tern.discrete_time_linear_quadratic_regulator(
    Ad, Bd, np.diag([10.0, 10.0, 1.0, 1.0]), np.eye(1))
print("K =", np.array2string(lqr.K, precision=3))

x = np.array([0.0, np.pi - 0.3, 0.0, 0.0])  # 0.3 rad from upright
for k in range(801):
    u = -lqr.K @ (x - x_up)
    if k % 100 == 0:
        print(f"t = {k * dt:4.2f}  cart {x[0]:+.4f} m  "
              f"pole {x[1] - np.pi:+.5f} rad  force {u[0]:+.3f} N")
    x = tern.discrete_dynamics(cartpole, x, u, k * dt, dt, "rk4")
assert abs(x[1] - np.pi) < 5e-3, "the LQR should balance the pole"
