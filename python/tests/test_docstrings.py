"""Every public class, function, method and property of the module has a
docstring that is at least one full sentence (issue 25: `help(tern.X)` reads
like the C++ header), and every function taking or returning arrays states
their shapes. pybind11's signature lines are not counted."""
import inspect
import re

import tern

# A docstring's text (signature lines removed) has at least this many
# characters: "Its context." (12) no longer passes, "Number of input ports
# (int)." (28) only just does not need to.
MIN_CHARS = 30

# Members that pybind11 or Python generate, or that are documented by their
# class: enum members, the `name` and `value` of an enum, and every dunder
# (__init__, __repr__, __len__, ...) since they start with "_".
ENUM_GENERATED = ("name", "value")


def text_of(name, obj):
    """The docstring of obj without pybind11's signature lines."""
    doc = inspect.getdoc(obj) or ""
    lines = [ln for ln in doc.splitlines()
             if not ln.startswith(name + "(")
             and "Overloaded function" not in ln
             and not (ln[:1].isdigit() and ". " + name + "(" in ln)]
    return "\n".join(lines).strip()


def own_doc(obj):
    """A class's own docstring: inspect.getdoc falls back to a base's."""
    return obj.__dict__.get("__doc__") or ""


def first_paragraph(text):
    return text.split("\n\n")[0].strip()


# A sentence starts with a capital letter or a backquoted code name and ends
# with a period.
SENTENCE = re.compile(r"^(?:[A-Z]|`)[\s\S]*\.$")


def documented():
    """(qualified name, text) for every public callable, class, property and
    static method of the module, private bases of public classes included
    (tern.Simulator's methods live on tern._tern._Simulator)."""
    out = []
    seen = set()

    def add_class(name, cls):
        if cls in seen:
            return
        seen.add(cls)
        out.append((name, text_of(name, cls) if own_doc(cls) else ""))
        if issubclass(cls, BaseException):
            return
        is_enum = hasattr(cls, "__members__")
        for member, m in vars(cls).items():
            if member.startswith("_"):
                continue
            if is_enum and (member in ENUM_GENERATED
                            or member in cls.__members__):
                continue
            if isinstance(m, staticmethod):
                m = m.__func__
            if inspect.isclass(m):
                add_class(f"{name}.{member}", m)
            elif callable(m) or isinstance(m, property):
                out.append((f"{name}.{member}", text_of(member, m)))
        for base in cls.__mro__[1:]:
            if base.__module__.startswith("tern") and \
                    base.__name__.startswith("_"):
                add_class(base.__name__, base)

    for name, obj in vars(tern).items():
        if name.startswith("_") or inspect.ismodule(obj):
            continue
        if inspect.isclass(obj):
            add_class(name, obj)
        elif callable(obj):
            out.append((name, text_of(name, obj)))
    return out


def test_there_is_something_to_check():
    names = dict(documented())
    assert len(names) > 600
    assert "Shape.sphere" in names  # static methods are checked
    assert "_Simulator.advance_to" in names  # private bases too
    assert "TimeSteppingOptions.Solver" in names  # nested enums too


def test_every_binding_has_a_docstring_of_one_sentence():
    short = [f"{n}: {t!r}" for n, t in documented() if len(t) < MIN_CHARS]
    assert not short, (f"{len(short)} docstrings under {MIN_CHARS} "
                       "characters:\n" + "\n".join(short))


def test_every_docstring_starts_as_a_sentence():
    bad = [f"{n}: {first_paragraph(t)!r}" for n, t in documented()
           if not SENTENCE.match(first_paragraph(t))]
    assert not bad, (f"{len(bad)} docstrings whose first paragraph is not a "
                     "sentence (a capital or `code` first, a period last):\n"
                     + "\n".join(bad))


# Functions, methods and properties that take or return NumPy arrays: each
# states a shape such as "(nv,)", "(nq + nv, nv)", "(3, k)" or "(n, m)".
ARRAY_BINDINGS = [
    # Kinematics.
    "forward_kinematics", "calc_frame_spatial_velocity",
    "frame_spatial_jacobian", "world_aligned_jacobian",
    "frame_spatial_jacobian_dot_times_v", "world_aligned_jacobian_dot_times_v",
    "center_of_mass", "center_of_mass_jacobian", "spatial_momentum_in_world",
    "map_velocity_to_qdot", "map_qdot_to_velocity", "normalize_quaternions",
    "RigidBodyTree.get_zero_configuration", "KinematicsCache.V",
    "KinematicsCache.A", "RigidTransform.R", "RigidTransform.p",
    "RigidTransform.matrix", "RigidBody.com", "RigidBody.spatial_inertia",
    # Dynamics and its derivatives.
    "mass_matrix", "inverse_dynamics", "bias_term", "forward_dynamics",
    "inverse_dynamics_derivatives", "forward_dynamics_derivatives",
    "InverseDynamicsDerivatives", "InverseDynamicsDerivatives.tau",
    "InverseDynamicsDerivatives.dtau_dq", "InverseDynamicsDerivatives.dtau_dv",
    "InverseDynamicsDerivatives.M", "ForwardDynamicsDerivatives",
    "ForwardDynamicsDerivatives.vdot", "ForwardDynamicsDerivatives.dvdot_dq",
    "ForwardDynamicsDerivatives.dvdot_dv",
    "ForwardDynamicsDerivatives.dvdot_dtau",
    # Discretization and linearization.
    "FunctionModel.dynamics", "Cartpole.dynamics", "RigidBodyDynamicsModel",
    "RigidBodyDynamicsModel.dynamics", "RigidBodyDynamicsModel.jacobian",
    "KnotPoint.x", "KnotPoint.u", "KnotPoint.z", "discrete_dynamics",
    "discrete_jacobian", "linearize", "discrete_time_linearize",
    "collocation_residual",
    # Control.
    "linear_quadratic_regulator", "discrete_time_linear_quadratic_regulator",
    "continuous_algebraic_riccati", "discrete_algebraic_riccati",
    "LinearQuadraticRegulatorResult.K", "LinearQuadraticRegulatorResult.S",
    "AffineSystem", "AffineSystem.A", "AffineSystem.B", "AffineSystem.C",
    "AffineSystem.D", "AffineSystem.get_state", "AffineSystem.set_state",
    # Systems.
    "System.calc_time_derivatives", "Context.get_continuous_state_vector",
    "Context.set_continuous_state", "Context.get_discrete_state",
    "Context.set_discrete_state", "Context.get_numeric_parameter",
    "Context.set_numeric_parameter", "InputPort.eval", "InputPort.fix_value",
    "OutputPort.eval", "DiscreteValues.get_vector",
    "DiscreteValues.get_mutable_vector", "DiscreteValues.set_value",
    "VectorLog.sample_times", "VectorLog.data",
    # Plants, geometry and sensors.
    "RigidBodySystem.set_positions_and_velocities",
    "TimeSteppingRigidBodySystem.set_positions_and_velocities",
    "TimeSteppingRigidBodySystem.get_state",
    "TimeSteppingRigidBodySystem.get_actuator_forces",
    "TorqueSource.limit_command", "cast_ray", "cast_rays", "Contact.normal",
    "Contact.p_WA", "Contact.p_WB", "RayHit.point", "RayHit.normal",
    # Scenarios.
    "ScenarioRun", "ScenarioRun.times", "ScenarioRun.data",
    "ScenarioRun.column",
]

# A parenthesised shape that starts with a size: a number or a size name.
SHAPE = re.compile(r"\((?:\d|n\b|nq\b|nv\b|n [+,]|m\b|k\b|p\b|N\b|size\b|"
                   r"num_|2 n\b)")


def test_array_shapes_are_documented():
    docs = dict(documented())
    missing = [n for n in ARRAY_BINDINGS if n not in docs]
    assert not missing, f"not bound (update ARRAY_BINDINGS): {missing}"
    bad = [f"{n}: {docs[n]!r}" for n in ARRAY_BINDINGS
           if not SHAPE.search(docs[n])]
    assert not bad, (f"{len(bad)} array bindings without a shape like "
                     "(nv,) or (n, m):\n" + "\n".join(bad))
