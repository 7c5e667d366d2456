"""Rigid bodies from Python: every algorithm, results equal to the C++ API's
bit for bit (tern_python_reference prints them as hexadecimal floats), owned
results, argument checks, analytic derivatives and linearization of a URDF
plant against finite differences."""
import os
import subprocess

import numpy as np
import pytest

import tern

ARM_Q = [0.1, -0.4, 0.3, 1.2, -0.7, 0.5, 0.2]
ARM_V = [0.3, 0.2, -0.1, 0.5, 0.4, -0.6, 0.7]
ARM_TAU = [1.0, -2.0, 0.5, 0.25, -0.3, 0.1, 0.05]


def reference(urdf, q, v, tau):
    exe = os.environ.get("TERN_PYTHON_REFERENCE")
    if not exe:
        pytest.fail("TERN_PYTHON_REFERENCE is not set (run through CTest)")
    args = [exe, str(urdf)] + [repr(x) for x in q] + ["--"] + \
        [repr(x) for x in v] + ["--"] + [repr(x) for x in tau]
    out = subprocess.run(args, check=True, capture_output=True, text=True)
    result = {}
    for line in out.stdout.splitlines():
        name, *values = line.split()
        result[name] = np.array([float.fromhex(x) for x in values])
    return result


def assert_bits(a, b):
    a = np.asarray(a, dtype=float).ravel(order="F")
    b = np.asarray(b, dtype=float).ravel()
    assert a.shape == b.shape
    assert a.tobytes() == b.tobytes(), (a, b)


def test_every_algorithm_matches_cpp_bit_for_bit(models_dir):
    urdf = models_dir / "arm7.urdf"
    ref = reference(urdf, ARM_Q, ARM_V, ARM_TAU)
    tree = tern.parse_urdf_file(str(urdf)).tree
    cache = tern.KinematicsCache(tree)
    q, v, tau = np.array(ARM_Q), np.array(ARM_V), np.array(ARM_TAU)

    assert_bits(tern.mass_matrix(tree, cache, q), ref["mass_matrix"])
    vdot = tern.forward_dynamics(tree, cache, q, v, tau).copy()
    assert_bits(vdot, ref["forward_dynamics"])
    assert_bits(tern.inverse_dynamics(tree, cache, q, v, vdot),
                ref["inverse_dynamics"])
    assert_bits(tern.bias_term(tree, cache, q, v), ref["bias_term"])

    tern.forward_kinematics(tree, cache, q, v)
    last = tree.num_bodies() - 1
    frame = tree.find_frame_index(tree.body(last).name)
    X = tern.calc_frame_pose(tree, cache, frame)
    assert_bits(X.R, ref["pose_R"])
    assert_bits(X.p, ref["pose_p"])
    assert_bits(tern.frame_spatial_jacobian(tree, cache, frame),
                ref["frame_spatial_jacobian"])
    p_FP = np.array([0.1, -0.2, 0.3])
    assert_bits(tern.world_aligned_jacobian(tree, cache, frame, p_FP),
                ref["world_aligned_jacobian"])
    assert_bits(tern.world_aligned_jacobian_dot_times_v(tree, cache, frame,
                                                        p_FP),
                ref["world_aligned_jacobian_dot_times_v"])
    assert_bits(tern.center_of_mass(tree, cache), ref["center_of_mass"])
    assert_bits(tern.spatial_momentum_in_world(tree, cache),
                ref["spatial_momentum_in_world"])
    assert_bits([tern.kinetic_energy(tree, cache)], ref["kinetic_energy"])
    assert_bits([tern.potential_energy(tree, cache)], ref["potential_energy"])


def test_dynamics_results_are_owned_arrays(models_dir):
    tree = tern.parse_urdf_file(str(models_dir / "arm7.urdf")).tree
    cache = tern.KinematicsCache(tree)
    q = np.array(ARM_Q)
    H1 = tern.mass_matrix(tree, cache, q)
    assert H1.shape == (7, 7)
    kept = H1.copy()
    # The next call on the same cache (another q) leaves H1 alone (it was a
    # view of the cache, which this call overwrote: issue 25).
    H2 = tern.mass_matrix(tree, cache, np.zeros(7))
    assert not np.array_equal(H2, kept)
    assert np.array_equal(H1, kept)
    vdot = tern.forward_dynamics(tree, cache, q, np.array(ARM_V),
                                 np.array(ARM_TAU))
    vdot_kept = vdot.copy()
    tau = tern.inverse_dynamics(tree, cache, q, np.zeros(7), np.ones(7))
    c = tern.bias_term(tree, cache, q, np.zeros(7))
    tern.forward_dynamics(tree, cache, q, np.zeros(7), np.zeros(7))
    assert np.array_equal(vdot, vdot_kept)
    assert np.allclose(tau - c, kept @ np.ones(7), atol=1e-10)
    del cache
    assert np.isfinite(vdot).all()
    # Forward and inverse dynamics agree (H vdot + C = tau).
    cache = tern.KinematicsCache(tree)
    tau = tern.inverse_dynamics(tree, cache, q, np.array(ARM_V), vdot_kept)
    assert np.allclose(tau, ARM_TAU, atol=1e-10)


@pytest.mark.parametrize("call,arg", [
    (lambda t, c, q, v: tern.mass_matrix(t, c, q), "q"),
    (lambda t, c, q, v: tern.forward_dynamics(t, c, q, v, np.zeros(7)), None),
    (lambda t, c, q, v: tern.inverse_dynamics(t, c, q, v, np.zeros(7)), None),
    (lambda t, c, q, v: tern.bias_term(t, c, q, v), None),
    (lambda t, c, q, v: tern.forward_kinematics(t, c, q, v), None),
])
def test_nan_and_wrong_size_raise_value_error_naming_the_argument(
        models_dir, call, arg):
    tree = tern.parse_urdf_file(str(models_dir / "arm7.urdf")).tree
    cache = tern.KinematicsCache(tree)
    q, v = np.array(ARM_Q), np.array(ARM_V)
    bad_q = q.copy()
    bad_q[3] = np.nan
    with pytest.raises(ValueError, match=r"q\[3\] is nan"):
        call(tree, cache, bad_q, v)
    with pytest.raises(ValueError, match="q has size 6 but needs 7"):
        call(tree, cache, q[:6], v)
    if arg is None:
        bad_v = v.copy()
        bad_v[0] = np.inf
        with pytest.raises(ValueError, match=r"v\[0\] is inf"):
            call(tree, cache, q, bad_v)
        with pytest.raises(ValueError, match="v has size 8"):
            call(tree, cache, q, np.zeros(8))


def numeric_jacobian(f, x, h=1e-6):
    cols = []
    for i in range(len(x)):
        e = np.zeros(len(x))
        e[i] = h
        cols.append((f(x + e) - f(x - e)) / (2 * h))
    return np.array(cols).T


def test_dynamics_derivatives_match_finite_differences(models_dir):
    # arm7 has revolute joints only, so the tangent-space dq is plain dq.
    tree = tern.parse_urdf_file(str(models_dir / "arm7.urdf")).tree
    cache = tern.KinematicsCache(tree)
    deriv = tern.DynamicsDerivativesCache(tree)
    q, v, tau = np.array(ARM_Q), np.array(ARM_V), np.array(ARM_TAU)
    fd = tern.forward_dynamics_derivatives(tree, cache, deriv, q, v, tau)
    c = tern.KinematicsCache(tree)
    assert np.array_equal(fd.vdot, tern.forward_dynamics(tree, c, q, v, tau))
    assert np.allclose(
        fd.dvdot_dq,
        numeric_jacobian(lambda x: tern.forward_dynamics(tree, c, x, v, tau),
                         q), atol=1e-6)
    assert np.allclose(
        fd.dvdot_dv,
        numeric_jacobian(lambda x: tern.forward_dynamics(tree, c, q, x, tau),
                         v), atol=1e-6)
    assert np.allclose(fd.dvdot_dtau @ tern.mass_matrix(tree, c, q),
                       np.eye(7), atol=1e-9)
    vdot = fd.vdot.copy()
    idd = tern.inverse_dynamics_derivatives(tree, cache, deriv, q, v, vdot)
    assert np.allclose(idd.tau, tau, atol=1e-10)
    assert np.allclose(
        idd.dtau_dq,
        numeric_jacobian(lambda x: tern.inverse_dynamics(tree, c, x, v, vdot),
                         q), atol=1e-5)
    assert np.allclose(
        idd.dtau_dv,
        numeric_jacobian(lambda x: tern.inverse_dynamics(tree, c, q, x, vdot),
                         v), atol=1e-5)
    assert np.allclose(idd.M, tern.mass_matrix(tree, c, q), atol=1e-12)
    # Results are owned: the next call does not change them.
    kept = fd.dvdot_dq.copy()
    tern.forward_dynamics_derivatives(tree, cache, deriv, np.zeros(7), v, tau)
    assert np.array_equal(fd.dvdot_dq, kept)
    with pytest.raises(ValueError, match="tau has size 3"):
        tern.forward_dynamics_derivatives(tree, cache, deriv, q, v,
                                          np.zeros(3))


@pytest.mark.parametrize("urdf,floating", [("arm7.urdf", False),
                                           ("quadruped.urdf", True)])
def test_linearize_urdf_plant_matches_finite_differences(models_dir, urdf,
                                                         floating):
    path = models_dir / urdf
    if not path.exists():
        pytest.skip(f"{path} missing")
    tree = tern.parse_urdf_file(str(path), floating_base=floating).tree
    model = tern.RigidBodyDynamicsModel(tree)
    nq, nv = tree.num_positions(), tree.num_velocities()
    assert model.num_states() == nq + nv and model.num_inputs() == nv
    rng = np.random.default_rng(3)
    q = tern.normalize_quaternions(tree, tree.get_zero_configuration()
                                   + 0.2 * rng.standard_normal(nq))
    x0 = np.concatenate([q, 0.3 * rng.standard_normal(nv)])
    u0 = rng.standard_normal(nv)
    A, B = tern.linearize(model, x0, u0, 0.0, "analytic")
    assert A.shape == (nq + nv, nq + nv) and B.shape == (nq + nv, nv)
    fx = numeric_jacobian(lambda x: model.dynamics(x, u0), x0)
    fu = numeric_jacobian(lambda u: model.dynamics(x0, u), u0)
    assert np.allclose(A, fx, atol=1e-5 * max(1, abs(fx).max()))
    assert np.allclose(B, fu, atol=1e-6 * max(1, abs(fu).max()))
    Ad, Bd = tern.discrete_time_linearize(model, x0, u0, 0.0, 1e-3, "rk4",
                                          "analytic")
    step = lambda x, u: tern.discrete_dynamics(model, x, u, 0.0, 1e-3, "rk4")
    assert np.allclose(Ad, numeric_jacobian(lambda x: step(x, u0), x0),
                       atol=1e-6)
    assert np.allclose(Bd, numeric_jacobian(lambda u: step(x0, u), u0),
                       atol=1e-8)
    with pytest.raises(ValueError, match="x has size 3"):
        model.dynamics(np.zeros(3), u0)


def test_kinematics_helpers_and_tree_queries(models_dir):
    tree = tern.parse_urdf_file(str(models_dir / "arm7.urdf")).tree
    assert tree.num_positions() == 7 and tree.num_velocities() == 7
    assert len(tree.get_position_names()) == 7
    assert tree.total_mass() > 0
    assert tree.has_body(tree.body(1).name)
    q0 = tree.get_zero_configuration()
    cache = tern.KinematicsCache(tree)
    tern.forward_kinematics(tree, cache, q0, np.ones(7), np.zeros(7))
    J = tern.center_of_mass_jacobian(tree, cache)
    assert J.shape == (3, 7)
    qd = tern.map_velocity_to_qdot(tree, q0, np.ones(7))
    assert np.array_equal(qd, np.ones(7))
    assert np.array_equal(tern.map_qdot_to_velocity(tree, q0, qd), qd)
    X = cache.X_WB(1)
    assert X.matrix().shape == (4, 4)
    tree.gravity = [0.0, 0.0, -1.0]
    assert np.array_equal(tree.gravity, [0.0, 0.0, -1.0])


def test_floating_base_and_external_forces(models_dir):
    model = tern.parse_urdf_file(str(models_dir / "quadruped.urdf"),
                                 floating_base=True)
    tree = model.tree
    cache = tern.KinematicsCache(tree)
    q = tree.get_zero_configuration()
    assert tree.num_positions() == tree.num_velocities() + 1
    v = np.zeros(tree.num_velocities())
    f = np.zeros((tree.num_bodies(), 6))
    f[1, 5] = 10.0
    a = tern.forward_dynamics(tree, cache, q, v, v, f_ext=f).copy()
    b = tern.forward_dynamics(tree, cache, q, v, v).copy()
    assert not np.array_equal(a, b)
    qn = tern.normalize_quaternions(tree, 2 * q)
    assert np.allclose(qn, q)


def test_errors_map_to_python_exceptions_with_the_message(models_dir):
    tree = tern.parse_urdf_file(str(models_dir / "arm7.urdf")).tree
    cache = tern.KinematicsCache(tree)
    with pytest.raises(ValueError, match="q has size 3"):
        tern.mass_matrix(tree, cache, np.zeros(3))
    with pytest.raises(ValueError, match="f_ext has shape"):
        tern.forward_dynamics(tree, cache, np.zeros(7), np.zeros(7),
                              np.zeros(7), f_ext=np.zeros((2, 6)))
    with pytest.raises(ValueError, match="nope"):
        tree.find_body_index("nope")
    with pytest.raises(tern.UrdfError, match="<string>:1"):
        tern.parse_urdf("<robot name='r'><link name='a'/><joint/></robot>")
    assert issubclass(tern.UrdfError, RuntimeError)
    with pytest.raises(RuntimeError):
        tern.parse_urdf_file("/no/such/file.urdf")


def test_package_map_resolves_meshes_and_names_missing_packages(tmp_path):
    pkg = tmp_path / "src" / "my_pkg"
    (pkg / "meshes").mkdir(parents=True)
    (pkg / "package.xml").write_text(
        "<package><name>my_description</name></package>")
    (pkg / "meshes" / "m.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    xml = ("<robot name='r'><link name='a'><visual><geometry>"
           "<mesh filename='package://my_description/meshes/m.obj'/>"
           "</geometry></visual></link></robot>")
    packages = tern.PackageMap()
    packages.add_search_path(str(tmp_path / "src"))
    assert "my_description" in packages and len(packages) >= 1
    assert packages.get_path("my_description") == str(pkg)
    assert packages.resolve("package://my_description/meshes/m.obj") == str(
        pkg / "meshes" / "m.obj")
    model = tern.parse_urdf(xml, package_map=packages)
    assert model.tree.num_bodies() == 2
    # The dict form still works.
    tern.parse_urdf(xml, package_map={"my_description": str(pkg)})
    with pytest.raises(tern.PackageError, match="'my_description'"):
        tern.PackageMap().get_path("my_description")
    with pytest.raises(tern.PackageError, match="is not a folder"):
        packages.add("x", str(tmp_path / "nowhere"))
    with pytest.raises(tern.UrdfError, match="package 'my_description' not found"):
        tern.parse_urdf(xml, package_map=tern.PackageMap())


MJCF = """<mujoco model="pendulum">
  <option timestep="0.01"/>
  <worldbody>
    <body name="link" pos="0 0 1">
      <joint name="hinge" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.05"/>
    </body>
  </worldbody>
  <actuator><motor joint="hinge" gear="2"/></actuator>
  <tendon/>
</mujoco>"""


def test_mjcf_and_model_files(tmp_path):
    model = tern.parse_mjcf(MJCF, source_name="pendulum.xml")
    assert model.tree.num_positions() == 1
    assert model.timestep == 0.01
    assert model.actuators[0]["gear"] == 2.0
    assert any("<tendon>" in w for w in model.warnings)
    path = tmp_path / "pendulum.xml"
    path.write_text(MJCF)
    tree, warnings, fmt = tern.parse_model_file(str(path))
    assert fmt == "MJCF"
    assert tree.num_velocities() == 1
    with pytest.raises(tern.MjcfError, match="pendulum.xml:2: <tendon>"):
        tern.parse_mjcf("<mujoco>\n<tendon/></mujoco>", strict=True,
                        source_name="pendulum.xml")
    bad = tmp_path / "bad.xml"
    bad.write_text("<launch/>")
    with pytest.raises(tern.ModelParseError, match="bad.xml:1: <launch>"):
        tern.parse_model_file(str(bad))


SDF = """<sdf version="1.9"><model name="box">
  <pose>0 0 2 0 0 0</pose>
  <link name="b"><inertial><mass>3</mass></inertial>
    <collision name="c"><geometry><box><size>1 1 1</size></box></geometry>
    </collision></link>
</model></sdf>"""


def test_sdf_file(tmp_path):
    path = tmp_path / "box.sdf"
    path.write_text(SDF)
    model = tern.parse_sdf_file(str(path))
    assert model.tree.num_positions() == 7
    assert model.q0[2] == 2.0
    tree, warnings, fmt = tern.parse_model_file(str(path))
    assert fmt == "SDFormat"
    bad = tmp_path / "bad.sdf"
    bad.write_text("<sdf version='1.9'><model name='m'><link name='a'/>"
                   "<joint name='j' type='universal'><parent>a</parent>"
                   "<child>a</child></joint></model></sdf>")
    with pytest.raises(tern.ModelParseError):
        tern.parse_sdf_file(str(bad))
    kinematic = tmp_path / "kinematic.sdf"
    kinematic.write_text("<sdf version='1.9'><model name='m'>\n"
                         "<link name='a'><kinematic>true</kinematic></link>"
                         "</model></sdf>")
    model = tern.parse_sdf_file(str(kinematic), check_mass_matrix=False)
    assert any("<link name='a'>/<kinematic>: not modelled by Tern" in w
               for w in model.warnings)
    with pytest.raises(tern.SdfError, match=r"kinematic.sdf:2: <link "
                       r"name='a'>/<kinematic>: .*SdfParseOptions::strict"):
        tern.parse_sdf_file(str(kinematic), check_mass_matrix=False,
                            strict=True)


SPRING_SDF = """<sdf version="1.9"><model name="m">
  <link name="wheel"><inertial><mass>1</mass>
    <inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia></inertial>
  </link>
  <joint name="spin" type="continuous"><parent>world</parent>
    <child>wheel</child><axis><xyz>0 0 1</xyz><dynamics>
      <spring_stiffness>2</spring_stiffness>
      <spring_reference>0.3</spring_reference></dynamics></axis></joint>
</model></sdf>"""


def test_model_file_springs_and_equalities_on_a_plant(tmp_path):
    # SDFormat <spring_stiffness> and MJCF stiffness: the same
    # JointSpringSpec, one make_joint_springs; on the plant the hinge
    # oscillates as q(t) = r (1 - cos(sqrt(k / I) t)).
    path = tmp_path / "spring.sdf"
    path.write_text(SPRING_SDF)
    sdf = tern.parse_sdf_file(str(path))
    mjcf = tern.parse_mjcf(
        "<mujoco><compiler angle='radian'/><worldbody><body name='wheel'>"
        "<joint name='spin' axis='0 0 1' stiffness='2' springref='0.3'/>"
        "<inertial pos='0 0 0' mass='1' diaginertia='0.1 0.1 0.1'/>"
        "</body></worldbody><equality><connect body1='wheel' "
        "anchor='1 0 0'/></equality></mujoco>")
    assert [(k.joint, k.stiffness, k.reference) for k in sdf.springs] == \
        [("spin", 2.0, 0.3)]
    assert [(k.joint, k.stiffness, k.reference) for k in mjcf.springs] == \
        [("spin", 2.0, 0.3)]
    (c,) = mjcf.equalities
    assert (c.type, c.body1, c.body2) == ("point", "wheel", "world")
    assert np.allclose(c.X_2G.p, [1, 0, 0])
    assert tern.make_joint_springs(sdf.tree, []) is None
    with pytest.raises(ValueError, match="'elbow'"):
        tern.make_joint_springs(sdf.tree, [tern.JointSpringSpec("elbow", 1)])
    springs = tern.make_joint_springs(sdf.tree, sdf.springs)
    assert springs.num_inputs() == 0
    plant = tern.RigidBodySystem(sdf.tree, [springs])
    sim = tern.Simulator(plant)
    plant.set_positions_and_velocities(sim.get_context(), np.zeros(1),
                                       np.zeros(1))
    sim.reset_integrator("rk4")
    w = np.sqrt(2 / 0.1)
    t = np.pi / w  # half a period: the far end, 2 r
    sim.advance_to(t)
    q = sim.get_context().get_continuous_state_vector()[0]
    assert q == pytest.approx(0.6, abs=1e-6)


def test_mjcf_actuators_and_sensors_on_a_plant():
    # A <position> servo (kp, gear g) on a hinge of inertia I pulls q to
    # ctrl / g at omega = sqrt(kp g^2 / I); <jointpos> reads q.
    model = tern.parse_mjcf(
        "<mujoco><option gravity='0 0 0'/><worldbody><body name='arm'>"
        "<joint name='h' axis='0 0 1'/>"
        "<inertial pos='0 0 0' mass='1' diaginertia='0.5 0.5 0.2'/>"
        "</body></worldbody><actuator><position name='servo' joint='h' "
        "kp='30' gear='2'/></actuator><sensor><jointpos name='angle' "
        "joint='h'/></sensor></mujoco>")
    assert [a["name"] for a in model.actuators] == ["servo"]
    assert model.sensors == [{"name": "angle", "type": "jointpos",
                              "target": "h"}]
    act = tern.make_mjcf_actuators(model)
    assert act.num_inputs() == 1
    (angle,) = tern.make_mjcf_sensors(model)
    plant = tern.RigidBodySystem(model.tree, [act], [angle])
    sim = tern.Simulator(plant)
    c = sim.get_context()
    plant.set_positions_and_velocities(c, np.zeros(1), np.zeros(1))
    plant.get_input_port("mjcf_actuators").fix_value(c, np.array([0.6]))
    sim.reset_integrator("rk4")
    w = np.sqrt(30 * 2 ** 2 / 0.2)
    sim.advance_to(np.pi / w)  # half a period: the far end, 2 ctrl / g
    q = sim.get_context().get_continuous_state_vector()[0]
    assert q == pytest.approx(0.6, abs=1e-6)
    y = plant.get_sensor_output_port("angle").eval(sim.get_context())
    assert y[0] == q
