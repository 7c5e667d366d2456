"""The fast paths of the calls a simulation makes per step from Python
(issue 25, item 6; python/fast_call.h): port objects cached per system,
port eval, the trampoline's reused arguments, Simulator.advance_to and
forward_dynamics. Each must behave as the pybind11 binding it bypasses:
same results, same errors, the other argument forms handed to pybind11,
and no array that dangles or changes behind its holder's back."""
import gc
import weakref

import numpy as np
import pytest

import tern

ARM_Q = [0.1, -0.4, 0.3, 1.2, -0.2, 0.5, 0.7]
ARM_V = [0.3, 0.2, -0.1, 0.05, 0.4, -0.3, 0.2]
ARM_TAU = [1.0, -2.0, 0.5, 0.3, -0.1, 0.2, 0.05]


class Leaf(tern.LeafSystem):
    """xdot = u, y = x, in Python."""

    def __init__(self):
        super().__init__()
        self.declare_continuous_state(0, 0, 1)
        self.u = self.declare_vector_input_port("u", 1)
        self.y = self.declare_vector_output_port("y", 1, self.calc_y,
                                                 tern.ticket.kXc)

    def calc_y(self, context, y):
        y[:] = context.get_continuous_state_vector()

    def do_calc_time_derivatives(self, context, xdot):
        xdot[0] = self.get_input_port(0).eval(context)[0]


def test_a_port_is_one_object_which_keeps_its_system_alive():
    leaf = Leaf()
    u = leaf.get_input_port(0)
    assert u is leaf.u
    assert u is leaf.get_input_port(0)
    assert u is leaf.get_input_port("u")
    assert u is leaf.get_input_port()
    assert u is leaf.get_input_port(index=0)  # keywords: pybind11's path
    assert leaf.get_output_port(0) is leaf.y is leaf.get_output_port("y")
    gain = tern.Gain(2.0, 1)
    assert gain.get_input_port(0) is gain.get_input_port(0)
    assert gain.get_output_port(0) is gain.get_output_port()
    del leaf, gain
    # The port keeps its system alive; both are freed together.
    for make in (Leaf, lambda: tern.Gain(2.0, 1)):
        system = make()
        ref = weakref.ref(system)
        port = system.get_input_port(0)
        del system
        gc.collect()
        assert ref() is not None
        assert port.get_system() is ref()
        assert isinstance(port.get_name(), str)
        del port
        gc.collect()
        assert ref() is None


def test_port_index_errors_name_the_system():
    leaf = Leaf()
    with pytest.raises(RuntimeError, match="input port 3 requested but it "
                                           "has 1 input ports"):
        leaf.get_input_port(3)
    with pytest.raises(RuntimeError, match="output port -1"):
        leaf.get_output_port(-1)
    # Beyond a C int: pybind11's conversion refuses it (never port 0).
    with pytest.raises(TypeError):
        leaf.get_input_port(2**32)
    with pytest.raises(TypeError):
        leaf.get_input_port(0.0)


def test_eval_returns_an_array_the_caller_owns():
    leaf = Leaf()
    context = leaf.create_default_context()
    leaf.u.fix_value(context, np.array([0.5]))
    a = leaf.u.eval(context)
    b = leaf.u.eval(context)
    assert a is not b
    assert a.dtype == np.float64 and a.shape == (1,) and a.flags.writeable
    a[0] = 7.0
    assert b[0] == 0.5
    leaf.u.fix_value(context, np.array([2.0]))
    c = leaf.u.eval(context)
    assert (a[0], b[0], c[0]) == (7.0, 0.5, 2.0)
    # An array that was dropped may be reused for the next result; one that
    # is still referenced in any way (a view of it, a changed shape) never.
    view = leaf.u.eval(context)[:]
    reshaped = leaf.u.eval(context)
    reshaped.shape = (1, 1)
    for _ in range(3):
        leaf.u.eval(context)
    assert view[0] == 2.0 and view.base is not None
    assert reshaped.shape == (1, 1)
    leaf.u.fix_value(context, np.array([3.0]))
    assert leaf.u.eval(context)[0] == 3.0
    assert view[0] == 2.0 and reshaped[0, 0] == 2.0
    # The output port's eval as well; a wrong argument is pybind11's error.
    assert leaf.y.eval(context)[0] == 0.0
    with pytest.raises(TypeError):
        leaf.u.eval(5)


def test_a_kept_xdot_becomes_a_read_only_copy():
    class Keeper(tern.LeafSystem):
        def __init__(self):
            super().__init__()
            self.declare_continuous_state_vector(np.array([1.0]))
            self.kept = []

        def do_calc_time_derivatives(self, context, xdot):
            xdot[0] = -context.get_continuous_state_vector()[0]
            if len(self.kept) < 2:
                self.kept.append((xdot, xdot[0]))

    leaf = Keeper()
    sim = tern.Simulator(leaf)
    settings = tern.IntegratorSettings()
    settings.fixed_step = 0.1
    sim.reset_integrator("rk4", settings)
    sim.advance_to(0.3)
    del sim
    gc.collect()
    for xdot, value in leaf.kept:
        # Detached from the simulator's buffer (freed by now): its values
        # at the end of the call, and writing to it raises.
        assert xdot[0] == value
        assert not xdot.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            xdot[0] = 1.0
    # The reuse and the detaching change no number.
    sim = tern.Simulator(Keeper())
    sim.reset_integrator("rk4", settings)
    sim.advance_to(0.4)
    step = 1 - 0.1 + 0.1**2 / 2 - 0.1**3 / 6 + 0.1**4 / 24
    x = sim.get_context().get_continuous_state_vector()[0]
    assert x == pytest.approx(step**4, rel=1e-14)


def test_advance_to_returns_a_status_per_call():
    sim = tern.Simulator(Leaf())
    sim.get_system().u.fix_value(sim.get_context(), np.array([1.0]))
    first = sim.advance_to(0.25)
    second = sim.advance_to(0.5)
    assert first is not second
    assert (first.return_time, second.return_time) == (0.25, 0.5)
    assert first.succeeded() and second.succeeded()
    for _ in range(3):
        sim.advance_to(sim.get_context().get_time() + 0.25)
    assert first.return_time == 0.25
    # Other argument forms go through pybind11.
    assert sim.advance_to(2).return_time == 2.0
    assert sim.advance_to(t=2.5).return_time == 2.5
    x = sim.get_context().get_continuous_state_vector()[0]
    assert x == pytest.approx(2.5, rel=1e-12)
    with pytest.raises(TypeError):
        sim.advance_to("3")


def test_forward_dynamics_takes_any_vector_form(models_dir):
    tree = tern.parse_urdf_file(str(models_dir / "arm7.urdf")).tree
    cache = tern.KinematicsCache(tree)
    q, v, tau = np.array(ARM_Q), np.array(ARM_V), np.array(ARM_TAU)
    ref = tern.forward_dynamics(tree, cache, q, v, tau)
    strided = np.zeros(14)
    strided[::2] = q
    forms = [
        (list(ARM_Q), ARM_V, ARM_TAU),
        (strided[::2], v, tau),
        (q.astype(">f8"), v, tau),
        (q.reshape(7, 1), v.reshape(1, 7), tau),
        (q, v, tau.astype(np.int64)),
    ]
    for i, (qi, vi, ti) in enumerate(forms):
        expected = ref if i < 4 else tern.forward_dynamics(
            tree, cache, q, v, np.trunc(tau))
        out = tern.forward_dynamics(tree, cache, qi, vi, ti)
        assert out.tobytes() == expected.tobytes(), i
    out = tern.forward_dynamics(tree, cache, q, v, tau, None)
    assert out.tobytes() == ref.tobytes()
    out = tern.forward_dynamics(tree=tree, cache=cache, q=q, v=v, tau=tau)
    assert out.tobytes() == ref.tobytes()
    # Each result is a new array.
    again = tern.forward_dynamics(tree, cache, q, v, tau)
    assert again is not ref and again.tobytes() == ref.tobytes()
    again[0] = 1e9
    assert ref[0] != 1e9
    with pytest.raises(ValueError, match=r"forward_dynamics: tau\[2\] is nan"):
        bad = tau.copy()
        bad[2] = np.nan
        tern.forward_dynamics(tree, cache, q, v, bad)
    with pytest.raises(ValueError, match="v has size 6 but needs 7"):
        tern.forward_dynamics(tree, cache, q, v[:6], tau)
    with pytest.raises(ValueError, match="q has 2 dimensions"):
        tern.forward_dynamics(tree, cache, np.zeros((7, 2)), v, tau)
    with pytest.raises(TypeError):
        tern.forward_dynamics(cache, tree, q, v, tau)


def test_context_time_and_state_view():
    class Decay(tern.LeafSystem):
        def __init__(self):
            super().__init__()
            self.declare_continuous_state_vector(np.array([1.0, 2.0]))
            self.seen = []

        def do_calc_time_derivatives(self, context, xdot):
            x = context.get_continuous_state_vector()
            self.seen.append(context.get_time())
            xdot[:] = -x

    leaf = Decay()
    context = leaf.create_default_context()
    context.set_time(0.25)
    assert context.get_time() == 0.25 and type(context.get_time()) is float
    x = context.get_continuous_state_vector()
    assert x.dtype == np.float64 and x.shape == (2,)
    assert not x.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        x[0] = 5.0
    # A live view that keeps its context alive.
    context.set_continuous_state(np.array([3.0, 4.0]))
    assert list(x) == [3.0, 4.0]
    del context
    gc.collect()
    assert list(x) == [3.0, 4.0]
    # In a simulation: the times of RK4's stages, and the exact solution.
    sim = tern.Simulator(leaf)
    settings = tern.IntegratorSettings()
    settings.fixed_step = 0.1
    sim.reset_integrator("rk4", settings)
    sim.advance_to(0.2)
    assert leaf.seen[-4:] == pytest.approx([0.1, 0.15, 0.15, 0.2])
    step = 1 - 0.1 + 0.1**2 / 2 - 0.1**3 / 6 + 0.1**4 / 24
    x = sim.get_context().get_continuous_state_vector()
    assert x == pytest.approx([step**2, 2 * step**2], rel=1e-14)
    # No continuous state: pybind11's path, an empty view.
    assert tern.Gain(1.0, 1).create_default_context() \
        .get_continuous_state_vector().shape == (0,)
