"""Scenarios from Python (tern/io): load, run, log as NumPy arrays equal to
the CLI's log.csv bit for bit, the report."""
import os
import pathlib
import subprocess

import numpy as np
import pytest

import tern
from conftest import SOURCE_DIR

SCENARIOS = SOURCE_DIR / "examples" / "scenarios"


def read_csv(path):
    lines = pathlib.Path(path).read_text().splitlines()
    header = lines[0].split(",")
    # float() of the shortest round-trip decimal gives back the same double.
    rows = [[float(x) for x in line.split(",")] for line in lines[1:]]
    return header, np.array(rows)


@pytest.mark.parametrize("name,plant", [("arm_reaching", None),
                                        ("boxes_falling", "time-stepping")])
def test_run_equals_cli_log_bit_for_bit(tmp_path, name, plant):
    exe = os.environ.get("TERN_EXECUTABLE")
    if not exe:
        pytest.skip("TERN_EXECUTABLE not set (the tern program is not built)")
    path = SCENARIOS / f"{name}.yaml"
    args = [exe, "simulate", str(path), "--duration", "0.2", "--quiet",
            "--output", str(tmp_path / "cli")]
    s = tern.load_scenario(str(path))
    s.duration = 0.2
    if plant:
        args += ["--plant", plant]
        s.plant = plant
    subprocess.run(args, check=True)
    header, csv = read_csv(tmp_path / "cli" / "log.csv")

    run = s.run()
    assert header == ["time"] + run.columns
    assert run.data.shape == (len(run.times), len(run.columns))
    assert run.times.shape == (csv.shape[0],)
    assert np.array_equal(run.times, csv[:, 0])
    assert np.array_equal(run.data, csv[:, 1:])
    assert run.to_csv() == (tmp_path / "cli" / "log.csv").read_text()
    # The run moved something (a log of constants would pass trivially).
    assert np.ptp(run.data, axis=0).max() > 1e-3
    col = run.columns[0]
    assert np.array_equal(run.column(col), run.data[:, 0])
    with pytest.raises(ValueError, match="no log column 'nope'"):
        run.column("nope")


def test_report_and_yaml_round_trip(tmp_path):
    s = tern.load_scenario(str(SCENARIOS / "pendulum_monte_carlo.yaml"))
    assert s.name == "pendulum_monte_carlo" and s.duration == 2.0
    s.duration = 0.05
    again = tern.load_scenario_string(s.to_yaml(), "again.yaml",
                                      str(SCENARIOS))
    assert again.to_yaml() == s.to_yaml()
    run = s.run()
    assert "q.pivot" in run.columns
    assert run.column("q.pivot")[0] == 0.5   # initial_state of the file
    report = tmp_path / "report.html"
    tern.write_report(str(report), run)
    text = report.read_text()
    assert "pendulum_monte_carlo" in text and len(text) > 100000


def test_bad_scenario_names_file_and_key(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nduration: -1\n")
    with pytest.raises(tern.ScenarioError, match="bad.yaml.*duration"):
        tern.load_scenario(str(bad))
    with pytest.raises(tern.ScenarioError, match="missing.yaml"):
        tern.load_scenario(str(tmp_path / "missing.yaml"))


def test_scenario_from_urdf(models_dir):
    s = tern.scenario_from_urdf(str(models_dir / "pendulum.urdf"))
    s.duration = 0.02
    run = s.run()
    assert run.times[0] == 0.0 and run.times[-1] == pytest.approx(0.02)


def test_bad_plant_kind_raises_naming_it():
    s = tern.load_scenario(str(SCENARIOS / "pendulum_monte_carlo.yaml"))
    s.plant = "time_stepping"
    with pytest.raises(RuntimeError, match="plant kind 'time_stepping'"):
        s.run()


HELD_MJCF = """<mujoco model="held">
  <worldbody>
    <body name="wheel" pos="0 0 1">
      <joint name="spin" axis="0 0 1" stiffness="2"
             springref="17.188733853924695"/>
      <inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.1"/></body>
    <body name="held" pos="1 0 2"><freejoint name="free"/>
      <geom size="0.05" contype="0" conaffinity="0"/></body>
  </worldbody>
  <equality><connect body1="held" anchor="0.2 0 0"/></equality>
  <actuator><motor name="drive" joint="spin"/></actuator>
  <sensor><jointpos name="angle" joint="spin"/></sensor>
</mujoco>"""


def test_mjcf_scenario_runs_its_springs_and_equalities(tmp_path):
    # Two prefixed copies of an MJCF model with a joint spring and a
    # connect, the second moved: the spring follows
    # q(t) = r (1 - cos(sqrt(k / I) t)), each held body stays 0.2 m from
    # its connect's world point; the <motor> is applied at ctrl 0 (no
    # torque, as in MuJoCo) and the <jointpos> is logged per copy.
    (tmp_path / "held.xml").write_text(HELD_MJCF)
    s = tern.load_scenario_string(
        "duration: 0.6\nground: false\nmodels:\n"
        "  - {file: held.xml, prefix: a/}\n"
        "  - {file: held.xml, prefix: b/, position: [0, 3, 0]}\n"
        "log: {rate: 50}\n", "held.yaml", str(tmp_path))
    run = s.run()
    t = run.times
    w, r = np.sqrt(2 / 0.1), 0.3
    for prefix, pivot in (("a/", [1.2, 0, 2]), ("b/", [1.2, 3, 2])):
        spin = run.column(f"q.{prefix}spin")
        assert np.max(np.abs(spin - r * (1 - np.cos(w * t)))) < 1e-8
        p = np.stack([run.column(f"q.{prefix}free_{a}") for a in "xyz"], 1)
        dist = np.linalg.norm(p - np.array(pivot), axis=1)
        assert np.max(np.abs(dist - 0.2)) < 1e-8
        assert np.min(p[:, 2]) < 2 - 0.1  # it swung down
        assert np.array_equal(run.column(f"{prefix}angle"), spin)
    assert not any("not applied" in x for x in run.warnings)


def test_time_stepping_solver_settings_from_a_scenario(models_dir):
    # plant.time_stepping reaches the plant: one Newton iteration to 1e-12
    # cannot land two boxes; with on_nonconvergence: warn the run counts
    # the islands it kept and says so in its notes; by default it raises.
    base = ("duration: 0.6\nboxes:\n"
            "  - {name: a, size: [0.2, 0.2, 0.2], position: [0, 0, 0.3]}\n"
            "  - {name: b, size: [0.1, 0.1, 0.1], position: [0.03, 0, 0.6],"
            " rpy: [0.3, 0.2, 0], mass: 0.5}\n"
            "plant: {kind: time-stepping, time_stepping: {max_iterations: 1,"
            " tolerance: 1e-12")
    lenient = tern.load_scenario_string(
        base + ", on_nonconvergence: warn}}\n", "w.yaml", str(models_dir))
    run = lenient.run()
    assert run.unconverged_islands > 0
    assert any("did not converge on" in n for n in run.notes)
    strict = tern.load_scenario_string(base + "}}\n", "e.yaml", str(models_dir))
    with pytest.raises(RuntimeError, match="did not converge"):
        strict.run()
    ok = tern.load_scenario_string(
        "duration: 0.6\nboxes: [{}]\nplant: {kind: time-stepping}\n",
        "ok.yaml", str(models_dir)).run()
    assert ok.unconverged_islands == 0 and ok.notes == []
