"""Systems from Python: LeafSystem subclasses (state, ports, events,
derivatives), diagrams mixing them with C++ blocks, the Simulator, logs as
NumPy, lifetimes and exceptions."""
import gc
import weakref

import numpy as np
import pytest

import tern


class Counter(tern.LeafSystem):
    """Seed 000: x[n+1] = x[n] + 1, y = 10 x, period 0.02, publishing y."""

    def __init__(self):
        super().__init__()
        self.published = []
        self.declare_discrete_state(1)
        self.declare_periodic_discrete_update_event(0.02, 0.0, self.update)
        self.declare_vector_output_port("y", 1, self.calc_y,
                                        tern.ticket.kXd)
        self.declare_periodic_publish_event(0.02, 0.0, self.publish_y)

    def update(self, context, xd):
        xd.get_mutable_vector(0)[0] = context.get_discrete_state_vector()[0] + 1

    def calc_y(self, context, y):
        y[0] = 10 * context.get_discrete_state_vector()[0]

    def publish_y(self, context):
        self.published.append(self.get_output_port(0).eval(context)[0])


def test_seed_000_counter_publishes_0_10_20_30():
    counter = Counter()
    sim = tern.Simulator(counter)
    sim.advance_to(0.06)
    assert counter.published == [0.0, 10.0, 20.0, 30.0]


class Decay(tern.LeafSystem):
    """xdot = -x + u in Python."""

    def __init__(self):
        super().__init__()
        self.declare_continuous_state_vector(np.array([1.0]))
        self.declare_vector_input_port("u", 1)
        self.declare_vector_output_port("y", 1, self.calc_y, tern.ticket.kXc)

    def do_calc_time_derivatives(self, context, xdot):
        x = context.get_continuous_state_vector()
        u = self.get_input_port(0).eval(context)
        xdot[0] = -x[0] + u[0]

    def calc_y(self, context, y):
        y[:] = context.get_continuous_state_vector()


def run_decay(make_plant, integrator):
    builder = tern.DiagramBuilder()
    source = builder.add_system(tern.ConstantVectorSource(np.array([0.5])))
    plant = builder.add_system(make_plant())
    gain = builder.add_system(tern.Gain(2.0, 1))
    sink = builder.add_system(tern.VectorLogSink(1, 0.1))
    builder.connect(source.get_output_port(0), plant.get_input_port(0))
    builder.connect(plant.get_output_port(0), gain.get_input_port(0))
    builder.connect(gain.get_output_port(0), sink.get_input_port(0))
    diagram = builder.build()
    sim = tern.Simulator(diagram)
    sim.reset_integrator(integrator)
    status = sim.advance_to(1.0)
    assert status.succeeded()
    log = sink.get_log(sim.get_context())
    return log.sample_times().copy(), log.data().copy()


@pytest.mark.parametrize("integrator", ["rk4", "dopri5", "radau5"])
def test_python_leaf_system_in_a_diagram_equals_the_cpp_block(integrator):
    t_py, y_py = run_decay(Decay, integrator)
    # The C++ reference: the same diagram with an Integrator and an Adder
    # computing -x + u in C++ (feedback through a gain of -1).
    builder = tern.DiagramBuilder()
    source = builder.add_system(tern.ConstantVectorSource(np.array([0.5])))
    adder = builder.add_system(tern.Adder(2, 1))
    integ = builder.add_system(tern.Integrator(np.array([1.0])))
    minus = builder.add_system(tern.Gain(-1.0, 1))
    gain = builder.add_system(tern.Gain(2.0, 1))
    sink = builder.add_system(tern.VectorLogSink(1, 0.1))
    builder.connect(minus.get_output_port(0), adder.get_input_port(0))
    builder.connect(source.get_output_port(0), adder.get_input_port(1))
    builder.connect(adder.get_output_port(0), integ.get_input_port(0))
    builder.connect(integ.get_output_port(0), minus.get_input_port(0))
    builder.connect(integ.get_output_port(0), gain.get_input_port(0))
    builder.connect(gain.get_output_port(0), sink.get_input_port(0))
    sim = tern.Simulator(builder.build())
    sim.reset_integrator(integrator)
    sim.advance_to(1.0)
    log = sink.get_log(sim.get_context())
    assert np.array_equal(t_py, log.sample_times())
    assert y_py.tobytes() == log.data().tobytes()
    assert y_py.shape == (1, 11)
    assert np.allclose(y_py[0, -1], 2 * (0.5 + 0.5 * np.exp(-1.0)), atol=1e-5)


def test_callback_arguments_are_reused_unless_a_handler_keeps_them():
    # Issue 25: the trampoline reuses the Context wrapper and the view of
    # each xdot buffer (RK4 has four) from one call to the next; a handler
    # that keeps one gets a fresh one next time, and what it kept stays
    # valid for what it is. Weak references see which objects live on
    # (ids alone could repeat by chance).
    seen = []

    class Keeper(tern.LeafSystem):
        def __init__(self):
            super().__init__()
            self.declare_continuous_state_vector(np.array([1.0]))
            self.kept = None

        def do_calc_time_derivatives(self, context, xdot):
            seen.append((weakref.ref(context), weakref.ref(xdot)))
            if len(seen) == 9:  # the first call of step 3
                self.kept = (context, xdot)
            xdot[0] = -context.get_continuous_state_vector()[0]

    leaf = Keeper()
    sim = tern.Simulator(leaf)
    settings = tern.IntegratorSettings()
    settings.fixed_step = 0.1
    sim.reset_integrator("rk4", settings)
    sim.advance_to(0.4)
    assert len(seen) == 16
    objects = [(c(), x()) for c, x in seen]
    # Every one still alive: held by the cache (or kept).
    assert all(c is not None and x is not None for c, x in objects)
    # Step 2 got the objects of step 1: one context, a view per buffer.
    assert all(objects[4 + i][0] is objects[0][0] for i in range(4))
    assert all(objects[4 + i][1] is objects[i][1] for i in range(4))
    assert len({id(x) for _, x in objects[0:4]}) == 4
    # Kept in step 3's first call: later calls got another context, and
    # step 4's first call (the same buffer) another view.
    assert all(c is not objects[8][0] for c, _ in objects[9:])
    assert all(c is objects[9][0] for c, _ in objects[9:])
    assert objects[12][1] is not objects[8][1]
    assert all(objects[13 + i][1] is objects[9 + i][1] for i in range(3))
    kept_context, _ = leaf.kept
    assert kept_context is objects[8][0]
    assert kept_context.get_time() == pytest.approx(0.4)
    del objects
    # RK4 on xdot = -x: the reuse changes no number.
    x = sim.get_context().get_continuous_state_vector()[0]
    step = 1 - 0.1 + 0.1**2 / 2 - 0.1**3 / 6 + 0.1**4 / 24
    assert x == pytest.approx(step**4, rel=1e-14)
    # The root context handed out elsewhere is still its own wrapper.
    root = leaf.get_my_context_from_root(sim.get_context())
    assert root.get_time() == pytest.approx(0.4)


def test_simulator_settings_monitor_and_statistics():
    names = tern.known_integrator_names()
    assert "rk4" in names and "dopri5" in names
    sim = tern.Simulator(Decay_with_input())
    settings = tern.IntegratorSettings()
    settings.fixed_step = 0.01
    sim.reset_integrator("rk4", settings)
    assert sim.get_integrator_name() == "rk4"
    assert sim.get_integrator_settings().fixed_step == 0.01
    sim.set_monitor(
        lambda c: tern.EventStatus.reached_termination("x is small")
        if c.get_continuous_state_vector()[0] < 0.5 else None)
    status = sim.advance_to(5.0)
    assert status.reason == \
        tern.SimulatorStatus.Reason.kReachedTerminationCondition
    assert "x is small" in status.message
    assert 0.6 < status.return_time < 0.8
    assert sim.get_statistics().steps > 0
    with pytest.raises(ValueError, match="nope"):
        sim.reset_integrator("nope")


def Decay_with_input():
    builder = tern.DiagramBuilder()
    plant = builder.add_system(Decay())
    zero = builder.add_system(tern.ConstantVectorSource(np.zeros(1)))
    builder.connect(zero.get_output_port(0), plant.get_input_port(0))
    return builder.build()


class Bouncer(tern.LeafSystem):
    """A falling ball: witness at height 0, unrestricted update, per-step
    publish."""

    def __init__(self):
        super().__init__()
        self.declare_continuous_state_vector(np.array([1.0, 0.0]), 1, 1)
        self.declare_discrete_state(1)
        self.crossings = []
        self.steps = 0
        self.declare_witness_function(
            "ground", tern.WitnessDirection.kPositiveToNegative,
            lambda c: c.get_continuous_state_vector()[0], self.on_ground)
        self.declare_per_step_publish_event(self.on_step)
        self.declare_periodic_unrestricted_update_event(0.1, 0.0, self.tick)

    def do_calc_time_derivatives(self, context, xdot):
        x = context.get_continuous_state_vector()
        return np.array([x[1], -9.81])

    def on_ground(self, context):
        self.crossings.append(context.get_time())
        return tern.EventStatus.reached_termination("landed")

    def on_step(self, context):
        self.steps += 1

    def tick(self, context, state):
        state.get_mutable_discrete_state().get_mutable_vector(0)[0] += 1


def test_witness_unrestricted_update_and_per_step_publish():
    ball = Bouncer()
    sim = tern.Simulator(ball)
    status = sim.advance_to(2.0)
    assert status.message.endswith("landed") or "landed" in status.message
    t_hit = np.sqrt(2 / 9.81)
    assert abs(ball.crossings[0] - t_hit) < 1e-6
    assert ball.steps > 0
    assert sim.get_context().get_discrete_state(0)[0] == 5


def test_context_keeps_its_system_alive():
    counter = Counter()
    context = counter.create_default_context()
    ref = weakref.ref(counter)
    del counter
    gc.collect()
    assert ref() is not None
    system = context.get_system()
    assert system.num_discrete_state_groups() == 1
    sim = tern.Simulator(system, context)
    del system, context
    gc.collect()
    sim.advance_to(0.06)
    assert ref().published[-1] == 30.0
    del sim
    gc.collect()
    assert ref() is None


def test_diagram_lifetimes_and_ownership():
    builder = tern.DiagramBuilder()
    plant = builder.add_system(Decay())
    zero = builder.add_system(tern.ConstantVectorSource(np.zeros(1)))
    builder.connect(zero.get_output_port(0), plant.get_input_port(0))
    with pytest.raises(ValueError, match="already owned"):
        tern.DiagramBuilder().add_system(plant)
    diagram = builder.build()
    d_ref = weakref.ref(diagram)
    context = diagram.create_default_context()
    del builder, diagram, zero
    gc.collect()
    # The context keeps the diagram, the diagram its Python systems.
    assert d_ref() is not None
    sim = tern.Simulator(context.get_system(), context)
    sim.advance_to(0.5)
    assert plant.get_name() == plant.get_name()
    sub = d_ref().get_subsystem(0)
    assert sub is plant
    # A system handle keeps its diagram alive.
    del sim, context, sub
    gc.collect()
    assert d_ref() is not None
    assert plant.num_continuous_states() == 1
    del plant
    gc.collect()
    assert d_ref() is None


def test_exceptions_keep_type_and_message():
    class Broken(tern.LeafSystem):
        def __init__(self):
            super().__init__()
            self.declare_vector_output_port("y", 1, self.calc)

        def calc(self, context, y):
            raise KeyError("boom in calc")

    b = Broken()
    c = b.create_default_context()
    with pytest.raises(KeyError, match="boom in calc"):
        b.get_output_port(0).eval(c)
    with pytest.raises(ValueError, match="Gain"):
        tern.Gain(1.0, 0)
    builder = tern.DiagramBuilder()
    g = builder.add_system(tern.Gain(1.0, 2))
    h = builder.add_system(tern.Gain(1.0, 3))
    with pytest.raises(ValueError):
        builder.connect(g.get_output_port(0), h.get_input_port(0))
    with pytest.raises(ValueError, match="Python subclasses"):
        tern.LeafSystem.declare_discrete_state(tern.Gain(1.0, 1), 1)


class Oscillator(tern.LeafSystem):
    """q'' = -q as [q; v] (second order), in Python."""

    def __init__(self):
        super().__init__()
        self.declare_continuous_state_vector(np.array([1.0, 0.0]), 1, 1)

    def do_calc_time_derivatives(self, context, xdot):
        x = context.get_continuous_state_vector()
        xdot[0] = x[1]
        xdot[1] = -x[0]


@pytest.mark.parametrize("name", tern.known_integrator_names())
def test_every_integrator_by_name_runs_a_python_system(name):
    sim = tern.Simulator(Oscillator())
    settings = tern.IntegratorSettings()
    settings.fixed_step = 1e-3
    settings.rtol = settings.atol = 1e-8
    sim.reset_integrator(name, settings)
    sim.advance_to(0.2)
    q = sim.get_context().get_continuous_state_vector()[0]
    assert abs(q - np.cos(0.2)) < 1e-3, name
