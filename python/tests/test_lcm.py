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
