"""Tern: hybrid dynamical systems and rigid-body robotics, from Python.

The C++ library through pybind11 (the extension module tern._tern), with
NumPy arrays in and out. See docs/python.md for the API, which results are
views of Tern's memory, lifetimes and threads.
"""
from tern._tern import *  # noqa: F401,F403
from tern._tern import _Simulator


class Simulator(_Simulator):
    """Advances a System's Context through time (hybrid semantics of
    docs/semantics.md). Simulator(system, context=None): a given context is
    owned by the simulator from then on and keeps it alive."""

    def __init__(self, system, context=None):
        super().__init__(system, context)
        self._tern_refs = [system]
        if context is not None:
            # The context is now the simulator's: it keeps the simulator
            # alive (a cycle the garbage collector can see).
            refs = getattr(context, "_tern_refs", None)
            if refs is None:
                context._tern_refs = refs = []
            refs.append(self)
