"""tern/lcm from Python: translators, and a controller written as a Python
process (lcm_controller.py, started here and killed if the test fails) in
lockstep with a plant simulated here, bit-identical to the one-process
diagram."""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import tern

pytestmark = pytest.mark.skipif(
    not hasattr(tern, "LcmInterface"),
    reason="tern built without tern_lcm (LCM not found)")

HERE = pathlib.Path(__file__).resolve().parent
PERIOD = 0.01


def test_translator_round_trip_and_errors():
    t = tern.LcmRobotStateTranslator(2, 1)
    data = t.encode(1234, np.array([0.1, -0.0, 1e300]))
    utime, value = t.decode(data, "CHAN")
    assert utime == 1234
    assert value.tobytes() == np.array([0.1, -0.0, 1e300]).tobytes()
    assert "robot_state_t q [0.1, -0] v [1e+300]" in tern.describe_lcm_message(
        data)
    with pytest.raises(RuntimeError, match="'CHAN'.*expected 'imu'"):
        tern.LcmVectorTranslator("imu", 1).decode(
            tern.LcmVectorTranslator("encoder", 1).encode(0, [1.0]), "CHAN")
    with pytest.raises(RuntimeError, match="'CHAN'"):
        t.decode(data[:-1], "CHAN")


def plant():
    # A lightly damped oscillator pushed by a constant force, so that it
    # moves from x = 0: xdot = A x + B u + f0, y = x.
    return tern.AffineSystem(A=[[0.0, 1.0], [-4.0, -0.1]], B=[[0.0], [1.0]],
                             f0=[0.0, 1.0], C=np.eye(2), D=np.zeros((2, 1)),
                             y0=np.zeros(2))


def test_python_controller_process_is_bit_identical():
    sys.path.insert(0, str(HERE))
    from lcm_controller import Pd  # noqa: E402
    final_time = 1.0
    steps = round(final_time / PERIOD)
    # One process: the PD's output held over each period.
    builder = tern.DiagramBuilder()
    p1 = builder.add_system(plant())
    pd = builder.add_system(Pd(20.0, 3.0))
    zoh = builder.add_system(tern.ZeroOrderHold(PERIOD, 1, 0.0))
    builder.connect(p1.get_output_port(0), pd.get_input_port(0))
    builder.connect(pd.get_output_port(0), zoh.get_input_port(0))
    builder.connect(zoh.get_output_port(0), p1.get_input_port(0))
    sim1 = tern.Simulator(builder.build())
    # Two processes.
    url = tern.loopback_url_for_this_process()
    state = tern.unique_channel_name("PY_STATE")
    command = tern.unique_channel_name("PY_COMMAND")
    peer = subprocess.Popen(
        [sys.executable, str(HERE / "lcm_controller.py"), url, state, command,
         str(steps + 1)], env=os.environ.copy())
    try:
        lcm = tern.LcmInterface(url)
        tern.wait_for_lcm_peer(lcm, command, 60.0)
        builder = tern.DiagramBuilder()
        p2 = builder.add_system(plant())
        link = builder.add_system(tern.LcmLockstepSystem(
            state, tern.LcmVectorTranslator("sensor", 2), command,
            tern.LcmVectorTranslator("joint_command", 1), lcm, PERIOD,
            np.zeros(1)))
        builder.connect(p2.get_output_port(0), link.get_input_port(0))
        builder.connect(link.get_output_port(0), p2.get_input_port(0))
        sim2 = tern.Simulator(builder.build())
        sim1.advance_to(final_time)
        sim2.advance_to(final_time)
        x1 = sim1.get_context().get_continuous_state_vector().copy()
        x2 = sim2.get_context().get_continuous_state_vector().copy()
        assert np.linalg.norm(x1) > 1e-3  # it moved
        assert x1.tobytes() == x2.tobytes(), (x1, x2)
        assert peer.wait(timeout=30) == 0
    finally:
        if peer.poll() is None:
            peer.kill()
            peer.wait()


def test_publisher_and_subscriber_systems_from_python():
    """LcmPublisherSystem and LcmSubscriberSystem built from Python, on this
    process's loopback URL: the publisher sends its input each period
    (Initialize publishes at t = 0) and the subscriber's update takes the
    newest message that has arrived (it handles pending traffic without
    waiting, so the test waits, bounded, for delivery between steps); before
    any message it outputs `initial`."""
    lcm = tern.LcmInterface(tern.loopback_url_for_this_process())
    channel = tern.unique_channel_name("PY_ENCODER")
    translator = tern.LcmVectorTranslator("encoder", 2)
    builder = tern.DiagramBuilder()
    source = builder.add_system(tern.ConstantVectorSource([1.5, -0.25]))
    pub = builder.add_system(
        tern.LcmPublisherSystem(channel, translator, lcm, PERIOD))
    sub = builder.add_system(
        tern.LcmSubscriberSystem(channel, translator, lcm, PERIOD,
                                 np.array([7.0, 7.0])))
    builder.connect(source.get_output_port(0), pub.get_input_port(0))
    diagram = builder.build()
    sim = tern.Simulator(diagram)
    ctx = sim.get_context().get_subcontext(2)  # sub, the third added
    assert list(sub.get_output_port(0).eval(ctx)) == [7.0, 7.0]
    assert sub.get_received(ctx).count == 0
    sim.advance_to(0.5 * PERIOD)
    for _ in range(20):  # until t = 0's message has been handled
        ctx = sim.get_context().get_subcontext(2)
        if sub.get_received(ctx).count > 0 or lcm.handle_subscriptions(
                0.05) > 0:
            break
    sim.advance_to(1.5 * PERIOD)  # the update at t = PERIOD takes it
    ctx = sim.get_context().get_subcontext(2)
    received = sub.get_received(ctx)
    assert received.count >= 1
    assert received.utime in (0, round(PERIOD * 1e6)), received.utime
    assert list(received.value) == [1.5, -0.25]
    assert list(sub.get_output_port(0).eval(ctx)) == [1.5, -0.25]
    with pytest.raises(ValueError, match="period"):
        tern.LcmPublisherSystem(channel + "_2", translator, lcm, -1.0)
