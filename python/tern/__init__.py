"""Tern: hybrid dynamical systems and rigid-body robotics, from Python.

The C++ library through pybind11 (the extension module tern._tern), with
NumPy arrays in and out. See docs/python.md for the API, which results are
views of Tern's memory, lifetimes and threads.
"""
import sys as _sys

try:
    import numpy as _numpy  # noqa: F401  (the module's arrays are NumPy's)
except ImportError as _e:
    raise ImportError(
        "tern needs NumPy, which this interpreter (" + _sys.executable +
        ") cannot import: install it for this interpreter (pip install "
        "numpy; with Debian's python3, python3-numpy); docs/python.md, "
        "'Install into any interpreter'") from _e

from tern._tern import *  # noqa: F401,F403,E402
from tern._tern import _Simulator  # noqa: E402


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
