"""`pip install ./python` into a fresh venv, offline: the in-tree PEP 517
backend (python/build_backend/tern_build.py) packs the module built in this
build tree (TERN_BUILD_DIR) into a wheel; the venv's interpreter then
imports tern from its own site-packages and runs an example. About 17 s
under ASan (pip copies the ~50 MB sanitized module three times)."""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from conftest import SOURCE_DIR


def test_pip_install_into_a_venv_imports_and_runs_an_example(tmp_path):
    try:
        import ensurepip  # noqa: F401
        import venv  # noqa: F401
    except ImportError as e:
        msg = f"python3-venv is missing ({e}): scripts/install-deps test"
        print(msg)
        pytest.skip(msg)
    build_tree = os.environ.get("TERN_BUILD_TREE")
    if not build_tree:
        pytest.skip("TERN_BUILD_TREE not set (run through CTest)")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)        # the venv must find its own copy
    env["TERN_BUILD_DIR"] = build_tree
    env["PIP_NO_INDEX"] = "1"          # offline
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    preload = env.pop("LD_PRELOAD", None)   # pip itself runs uninstrumented
    venv_dir = tmp_path / "venv"
    # System site-packages for NumPy (a Debian package, not on PyPI offline).
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages",
                    str(venv_dir)], check=True, env=env)
    python = venv_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--no-index",
                    str(SOURCE_DIR / "python")], check=True, env=env,
                   cwd=tmp_path)
    if preload:
        env["LD_PRELOAD"] = preload     # an ASan module needs its runtime
    where = subprocess.run(
        [str(python), "-c", "import tern; print(tern.__file__)"], check=True,
        env=env, cwd=tmp_path, capture_output=True, text=True).stdout
    assert pathlib.Path(where.strip()).is_relative_to(venv_dir), where
    out = subprocess.run(
        [str(python), str(SOURCE_DIR / "examples" / "python" /
                          "discrete_counter.py")],
        check=True, env=env, cwd=tmp_path, capture_output=True,
        text=True).stdout
    assert "t = 0.06  y = 30" in out, out
    shutil.rmtree(venv_dir)


def test_an_interpreter_without_numpy_is_told_what_to_install():
    """A pyenv or venv interpreter without NumPy (pip install --no-deps, or
    a bare venv) gets one message naming NumPy and the interpreter, not
    pybind11's 'initialization failed'."""
    env = dict(os.environ)
    out = subprocess.run(
        [sys.executable, "-c",
         "import sys; sys.modules['numpy'] = None; import tern"],
        env=env, capture_output=True, text=True)
    assert out.returncode != 0
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: tern needs NumPy, which this "
                           "interpreter (" + sys.executable), out.stderr
    assert "pip install numpy" in last, last
