"""Every public class, function, method and property of the module has a
docstring of at least one short sentence (issue 25: `help(tern.X)` reads
like the C++ header); pybind11's signature lines are not counted."""
import inspect

import tern

MIN_CHARS = 12


def text_of(name, obj):
    doc = inspect.getdoc(obj) or ""
    lines = [ln for ln in doc.splitlines()
             if not ln.startswith(name + "(")
             and "Overloaded function" not in ln
             and not (ln[:1].isdigit() and ". " + name + "(" in ln)]
    return "\n".join(lines).strip()


def undocumented():
    bad = []
    for name, obj in vars(tern).items():
        if name.startswith("_") or inspect.ismodule(obj):
            continue
        if inspect.isclass(obj):
            if len(text_of(name, obj)) < MIN_CHARS:
                bad.append(name)
            if issubclass(obj, BaseException):
                continue
            is_enum = hasattr(obj, "__members__")
            for member, m in vars(obj).items():
                if member.startswith("_") or (
                        is_enum and member in ("name", "value")):
                    continue
                if is_enum and member in obj.__members__:
                    continue
                if callable(m) or isinstance(m, property):
                    if len(text_of(member, m)) < MIN_CHARS:
                        bad.append(f"{name}.{member}")
        elif callable(obj) and len(text_of(name, obj)) < MIN_CHARS:
            bad.append(name)
    return bad


def test_every_binding_has_a_docstring():
    bad = undocumented()
    assert not bad, f"{len(bad)} bindings without a docstring: {bad}"


def test_array_shapes_are_documented():
    for f in (tern.mass_matrix, tern.forward_dynamics,
              tern.forward_dynamics_derivatives, tern.RigidBodyDynamicsModel,
              tern.ScenarioRun):
        assert "(nv" in inspect.getdoc(f) or "(N" in inspect.getdoc(f) \
            or "(nq" in inspect.getdoc(f), f
