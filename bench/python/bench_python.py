"""Python against C++ (issue 17): the cost of one forward_dynamics call on
the 7-DoF arm from Python against the same call in C++, and of one Simulator
step of a Python LeafSystem against the same step of a C++ block. Prints the
times and their ratios, and the floor of a Python leaf's step: the cost
of one trampoline call into an empty do_calc_time_derivatives and of each
piece of the leaf's body (variants of the leaf that add one piece at a
time). Timing: best of 5 repetitions of a loop (timeit), in process CPU
time on both sides. The ratios' denominators are the C++ leaf stepped in
C++ and forward_dynamics called in C++ (reference.cc).

  PYTHONPATH=build/release/python python3 bench/python/bench_python.py \\
      build/release/bench/python/python_bench_reference
"""
import pathlib
import subprocess
import sys
import time
import timeit

import numpy as np

import tern

ROOT = pathlib.Path(__file__).resolve().parents[2]
ARM = str(ROOT / "models" / "arm7.urdf")


def best_ns(stmt, number):
    # CPU time of this process, as reference.cc: the wall clock on a shared
    # machine also counts the time spent waiting for a core.
    return min(timeit.repeat(stmt, number=number, repeat=5,
                             timer=time.process_time)) / number * 1e9


class PyIntegrator(tern.LeafSystem):
    """xdot = u in Python (the C++ side uses tern.Integrator)."""

    def __init__(self):
        super().__init__()
        self.declare_continuous_state(0, 0, 1)
        self.declare_vector_input_port("u", 1)

    def do_calc_time_derivatives(self, context, xdot):
        xdot[0] = self.get_input_port(0).eval(context)[0]


# The floor: PyIntegrator's body built up one piece at a time. Each variant
# adds one operation to the previous one, so the differences of their step
# times (over the 4 derivative calls of an RK4 step) are the cost of one
# trampoline call and of each piece of the body.
class EmptyLeaf(PyIntegrator):
    def do_calc_time_derivatives(self, context, xdot):
        pass


class PortLeaf(PyIntegrator):
    def do_calc_time_derivatives(self, context, xdot):
        self.get_input_port(0)


class EvalLeaf(PyIntegrator):
    def do_calc_time_derivatives(self, context, xdot):
        self.get_input_port(0).eval(context)


class IndexLeaf(PyIntegrator):
    def do_calc_time_derivatives(self, context, xdot):
        self.get_input_port(0).eval(context)[0]


FLOOR = [("the trampoline (empty do_calc_time_derivatives)", EmptyLeaf),
         ("self.get_input_port(0)", PortLeaf),
         (".eval(context)", EvalLeaf),
         ("[0] (NumPy indexing)", IndexLeaf),
         ("xdot[0] = ... (NumPy assignment)", PyIntegrator)]


def simulator_step_ns(make_leaf):
    builder = tern.DiagramBuilder()
    source = builder.add_system(tern.ConstantVectorSource(np.array([0.5])))
    leaf = builder.add_system(make_leaf())
    builder.connect(source.get_output_port(0), leaf.get_input_port(0))
    sim = tern.Simulator(builder.build())
    settings = tern.IntegratorSettings()
    settings.fixed_step = 1e-3
    sim.reset_integrator("rk4", settings)
    sim.initialize()
    t = [0.0]

    def step():
        t[0] += 1e-3
        sim.advance_to(t[0])
    return best_ns(step, 2000)


def main():
    exe = sys.argv[1] if len(sys.argv) > 1 else str(
        ROOT / "build/release/bench/python/python_bench_reference")
    out = subprocess.run([exe, ARM], check=True, capture_output=True,
                         text=True).stdout
    cpp = {k: float(v) for k, v in (line.split() for line in out.splitlines())}

    tree = tern.parse_urdf_file(ARM).tree
    cache = tern.KinematicsCache(tree)
    q, v, tau = np.full(7, 0.3), np.full(7, 0.1), np.full(7, 0.5)
    fd = best_ns(lambda: tern.forward_dynamics(tree, cache, q, v, tau), 20000)
    step_cpp_leaf = simulator_step_ns(lambda: tern.Integrator(1))
    floor = [(name, simulator_step_ns(leaf)) for name, leaf in FLOOR]
    step_py_leaf = floor[-1][1]
    cpp_step = cpp['simulator_step_cpp_leaf']

    print(f"forward_dynamics arm7: C++ {cpp['forward_dynamics_arm7']:.0f} ns, "
          f"Python {fd:.0f} ns, ratio {fd / cpp['forward_dynamics_arm7']:.1f}")
    print(f"Simulator step, C++ leaf driven from C++: "
          f"{cpp['simulator_step_cpp_leaf']:.0f} ns; from Python: "
          f"{step_cpp_leaf:.0f} ns, ratio "
          f"{step_cpp_leaf / cpp['simulator_step_cpp_leaf']:.1f}")
    print(f"Simulator step, Python LeafSystem: {step_py_leaf:.0f} ns, ratio "
          f"{step_py_leaf / cpp['simulator_step_cpp_leaf']:.1f} to the C++ "
          f"leaf in C++")
    # Where a Python leaf's step goes (RK4: 4 derivative calls per step).
    print("Python leaf step, piece by piece (ns per derivative call; "
          "RK4 makes 4 per step):")
    previous = step_cpp_leaf
    for name, ns in floor:
        print(f"  {name}: {(ns - previous) / 4:.0f}")
        previous = ns
    print(f"Floor: the C++ leaf driven from Python plus 4 empty Python "
          f"calls = {floor[0][1]:.0f} ns, "
          f"{floor[0][1] / cpp_step:.1f}x the C++ leaf in C++")
    # The two figures issue 25 sets goals for (<= 20 and <= 2).
    print(f"python leaf step: python/c++ = {step_py_leaf / cpp_step:.1f}")
    print(f"python forward_dynamics: python/c++ = "
          f"{fd / cpp['forward_dynamics_arm7']:.1f}")


if __name__ == "__main__":
    main()
