"""The robot plant, actuators and sensors (in the plant and standalone),
geometry queries and ray casts from Python."""
import numpy as np
import pytest

import tern


def acrobot(models_dir):
    return tern.parse_urdf_file(str(models_dir / "acrobot.urdf")).tree


def test_plant_simulates_and_sensor_block_matches_plant_sensor(models_dir):
    tree = acrobot(models_dir)
    torque = tern.TorqueSource(tree, ["elbow"])
    sensor = tern.FullStateSensor(tree)
    plant_sys = tern.RigidBodySystem(tree, [torque], [sensor])
    builder = tern.DiagramBuilder()
    plant = builder.add_system(plant_sys)
    u = builder.add_system(tern.ConstantVectorSource(np.array([0.3])))
    builder.connect(u.get_output_port(0),
                    plant.get_actuator_input_port("torque_source"))
    builder.export_output(plant.get_sensor_output_port("full_state"), "x")
    diagram = builder.build()
    sim = tern.Simulator(diagram)
    context = sim.get_context()
    plant.set_positions_and_velocities(
        plant.get_my_context_from_root(context), np.array([0.5, -0.2]),
        np.zeros(2))
    sim.reset_integrator("rk4")
    sim.advance_to(0.2)
    x = diagram.get_output_port(0).eval(context)
    assert x.shape == (4,)
    assert np.array_equal(x, context.get_continuous_state_vector())
    assert not np.array_equal(x[:2], [0.5, -0.2])

    # The same sensor as a standalone block reads the same numbers.
    block = tern.SensorSystem(tree, sensor)
    c = block.create_default_context()
    block.get_input_port(0).fix_value(c, x)
    assert block.get_output_port(0).eval(c).tobytes() == x.tobytes()

    # The actuator as a block gives the torque the plant applies.
    act = tern.ActuatorSystem(tree, torque)
    assert act.num_input_ports() >= 1
    with pytest.raises(ValueError, match="nope"):
        tern.TorqueSource(tree, ["nope"])


def test_plant_energy_without_damping(models_dir):
    tree = tern.parse_urdf(
        (models_dir / "acrobot.urdf").read_text()).tree
    plant = tern.RigidBodySystem(tree)
    sim = tern.Simulator(plant)
    plant.set_positions_and_velocities(sim.get_context(),
                                       np.array([1.0, 0.5]), np.zeros(2))
    settings = tern.IntegratorSettings()
    settings.rtol = settings.atol = 1e-10
    sim.reset_integrator("dopri5", settings)
    cache = tern.KinematicsCache(tree)

    def energy(x):
        tern.forward_kinematics(tree, cache, x[:2], x[2:])
        return (tern.kinetic_energy(tree, cache) +
                tern.potential_energy(tree, cache))

    e0 = energy(sim.get_context().get_continuous_state_vector().copy())
    sim.advance_to(0.5)
    e1 = energy(sim.get_context().get_continuous_state_vector().copy())
    damping = sum(tree.body(i).joint.damping for i in range(tree.num_bodies()))
    if damping == 0:
        assert abs(e1 - e0) < 1e-6
    else:
        assert e1 <= e0 + 1e-9


def test_geometry_queries_and_ray_casts():
    model = tern.GeometryModel(2)
    ground = model.add_geometry(
        tern.Geometry("ground", 0, tern.RigidTransform(), tern.Shape.half_space()))
    ball = model.add_geometry(
        tern.Geometry("ball", 1, tern.RigidTransform(), tern.Shape.sphere(0.1)))
    ws = tern.GeometryWorkspace(model)
    X_ball = tern.RigidTransform(np.eye(3), np.array([0.0, 0.0, 0.05]))
    tern.update_geometry_poses_from(model, [tern.RigidTransform(), X_ball], ws)
    contacts = tern.compute_contacts(model, ws)
    assert len(contacts) == 1
    assert {contacts[0].geometry_a, contacts[0].geometry_b} == {ground, ball}
    assert abs(contacts[0].signed_distance + 0.05) < 1e-12
    hit = tern.cast_ray(model, ws, np.array([1.0, 0.0, 0.05]),
                        np.array([-1.0, 0.0, 0.0]), 10.0)
    assert hit.hit and hit.geometry == ball
    assert abs(hit.distance - 0.9) < 1e-12  # through the center
    hits = tern.cast_rays(model, ws, np.array([[0.0], [0.0], [1.0]]),
                          np.array([[0.0, 1.0], [0.0, 0.0], [-1.0, 0.0]]), 5.0)
    assert hits[0].hit and hits[0].geometry == ball
    assert abs(hits[0].distance - 0.85) < 1e-12
    assert not hits[1].hit
    with pytest.raises(ValueError):
        tern.cast_ray(model, ws, np.zeros(3), np.zeros(3), 1.0)


def test_collision_filters_by_name_group_and_floating_root(models_dir):
    # A floating root collides with the world (the ground); its children do
    # not collide with their parents.
    urdf = tern.parse_urdf_file(str(models_dir / "quadruped.urdf"),
                                floating_base=True)
    model = tern.GeometryModel.from_tree(urdf.tree)
    base, hip = model.find_body("base"), model.find_body("fl_hip")
    assert not model.is_excluded(base, 0)
    assert model.is_excluded(base, hip)
    thigh = model.find_body("fl_thigh")
    assert not model.is_excluded(base, thigh)
    model.exclude_body_pair("base", "fl_thigh")
    assert model.is_excluded(thigh, base)
    model.exclude_body_pairs([("base", "fr_thigh")])
    assert model.is_excluded(model.find_body("fr_thigh"), base)
    with pytest.raises(ValueError, match="no body \\(link\\) 'elbow'"):
        model.exclude_body_pair("base", "elbow")
    calf, foot = model.find_body("fl_calf"), model.find_body("fl_foot")
    assert not model.is_excluded(hip, calf)
    model.exclude_group_pair([hip], [calf, foot])
    assert model.is_excluded(foot, hip) and model.is_excluded(calf, hip)
    assert not model.is_excluded(thigh, foot)
    model.exclude_within([foot, thigh])
    assert model.is_excluded(thigh, foot)


BALL_URDF = """<robot name="ball"><link name="ball"><inertial><mass value="1"/>
<inertia ixx="0.004" iyy="0.004" izz="0.004" ixy="0" ixz="0" iyz="0"/>
</inertial><collision><geometry><sphere radius="0.1"/></geometry></collision>
</link></robot>"""


def ball_on_ground():
    tree = tern.parse_urdf(BALL_URDF, floating_base=True).tree
    geometry = tern.GeometryModel.from_tree(tree)
    geometry.add_geometry(tern.Geometry("ground", 0, tern.RigidTransform(),
                                        tern.Shape.half_space()))
    names = tree.get_position_names()
    z = names.index("floating_base_z")
    q0 = tree.get_zero_configuration()
    q0[z] = 0.3
    return tree, geometry, z, q0


def test_rigid_contact_ball_lands_and_rests_on_the_ground():
    tree, geometry, z, q0 = ball_on_ground()
    params = tern.RigidContactParameters()
    assert params.num_friction_directions >= 3
    contact = tern.RigidContact(tree, geometry, params)
    options = tern.RigidBodySystemOptions()
    options.rigid_contact = contact
    assert options.rigid_contact.name() == "rigid_contact"
    plant = tern.RigidBodySystem(tree, [], [], options)
    sim = tern.Simulator(plant)
    plant.set_positions_and_velocities(sim.get_context(), q0,
                                       np.zeros(tree.num_velocities()))
    sim.reset_integrator("rk4")
    sim.advance_to(0.6)   # falls 0.2 m in 0.2 s, then rests
    x = sim.get_context().get_continuous_state_vector()
    assert abs(x[z] - 0.1) < 1e-3, x[z]
    assert np.abs(x[tree.num_positions():]).max() < 1e-2


def test_time_stepping_plant_options_and_step_stats():
    tree, geometry, z, q0 = ball_on_ground()
    options = tern.TimeSteppingOptions()
    assert options.solver == tern.TimeSteppingOptions.Solver.kConvex
    # Anchored friction (a grip does not creep) is on by default.
    assert options.convex_anchor_sticking is True
    options.on_nonconvergence = \
        tern.TimeSteppingOptions.OnNonConvergence.kThrow
    options.convex_sigma = 1e-5
    options.state_output = True
    plant = tern.TimeSteppingRigidBodySystem(tree, geometry, 1e-3, [], [],
                                             options)
    sim = tern.Simulator(plant)
    context = sim.get_context()
    plant.set_positions_and_velocities(context, q0,
                                       np.zeros(tree.num_velocities()))
    # Step by step: the landing takes Newton iterations; at rest the warm
    # start is the answer (0 iterations). Every step converges.
    most_iterations = 0
    for k in range(1, 501):
        sim.advance_to(k * 1e-3)
        stats = plant.get_step_stats(context)
        assert stats.converged and stats.warnings == 0, k
        most_iterations = max(most_iterations, stats.convex_iterations)
    assert most_iterations >= 1
    x = plant.get_state(context)
    assert x.shape == (tree.num_positions() + tree.num_velocities(),)
    assert abs(x[z] - 0.1) < 2e-3, x[z]
    assert stats.num_contacts >= 1
    assert plant.get_actuator_forces(context).shape == (
        tree.num_velocities(),)
