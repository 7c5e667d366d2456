"""A robot of the corpus (issue 29) from Python, with the documented keys:
dart-doc's Barrett WAM loaded with a package map, self-collision off and
overridden effort limits, hung limp from its mount for 0.5 s on both plants.
The states stay finite and the joints within their limits (1e-2 rad, as the
CLI corpus tests); the same keys as a scenario's (docs/python.md)."""
import math
import pathlib

import numpy as np
import pytest

import tern

DART = pathlib.Path("/usr/share/doc/dart/data")
WAM = DART / "urdf/wam/wam.urdf"
JOINTS = [f"/j{i}" for i in range(1, 8)]


@pytest.fixture
def wam():
    if not WAM.exists():
        pytest.fail(f"{WAM} is missing: install dart-doc "
                    "(scripts/install-deps test)")
    return tern.parse_urdf_file(
        str(WAM), package_map={"herb_description": str(WAM.parent)},
        inertia=tern.InertiaPolicy.kAccept).tree


def test_missing_package_is_named():
    if not WAM.exists():
        pytest.fail(f"{WAM} is missing: install dart-doc")
    with pytest.raises(RuntimeError, match="herb_description"):
        tern.parse_urdf_file(str(WAM), package_map={"other": "/tmp"})


def self_collision_off(tree):
    geometry = tern.GeometryModel.from_tree(tree)
    geometry.exclude_within(list(range(1, tree.num_bodies())))
    assert geometry.is_excluded(geometry.find_body("/wam1"),
                                geometry.find_body("/wam3"))
    return geometry


def limit_violation(tree, q):
    worst = 0.0
    for b in range(1, tree.num_bodies()):
        body = tree.body(b)
        if body.num_positions != 1:
            continue
        x = q[body.position_start]
        j = body.joint
        worst = max(worst, j.position_lower - x, x - j.position_upper)
    return worst


def limp(tree, plant_kind):
    """The WAM limp for 0.5 s: a zero command on every joint through a
    TorqueSource whose URDF limits (1.8 N m) are replaced by 5 N m."""
    torque = tern.TorqueSource(tree, JOINTS, name="arm",
                               effort_limits=[5.0] * len(JOINTS))
    assert torque.effort_limits() == [5.0] * len(JOINTS)
    limited, clamped = torque.limit_command(np.full(7, 7.0))
    assert np.all(limited == 5.0) and np.all(clamped == 1.0)
    geometry = self_collision_off(tree)
    if plant_kind == "continuous":
        contact = tern.CompliantContact(tree, geometry)
        plant = tern.RigidBodySystem(tree, [contact, torque])
    else:
        plant = tern.TimeSteppingRigidBodySystem(tree, geometry, 1e-3,
                                                 [torque])
    sim = tern.Simulator(plant)
    context = sim.get_context()
    plant.get_actuator_input_port("arm").fix_value(context, np.zeros(7))
    if plant_kind == "continuous":
        settings = tern.IntegratorSettings()
        settings.fixed_step = 5e-4
        sim.reset_integrator("rk4", settings)
    worst, t = 0.0, 0.0
    while t < 0.5 - 1e-12:
        t += 0.05
        sim.advance_to(t)
        x = (context.get_continuous_state_vector() if plant_kind ==
             "continuous" else context.get_discrete_state_vector()).copy()
        assert np.all(np.isfinite(x)), f"t = {t}: {x}"
        worst = max(worst, limit_violation(tree, x[:tree.num_positions()]))
    return x, worst


@pytest.mark.parametrize("plant_kind", ["continuous", "time-stepping"])
def test_wam_hangs_limp_with_limits_held(wam, plant_kind):
    assert wam.num_positions() == 7
    x, worst = limp(wam, plant_kind)
    print(f"WAM limp 0.5 s on {plant_kind}: {worst:.3g} rad past a limit")
    assert worst <= 1e-2, f"{plant_kind}: {worst} rad past a limit"
    # It moved: gravity swung the arm from q = 0.
    assert np.linalg.norm(x[:7]) > 1e-3
