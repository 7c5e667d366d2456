"""PEP 517 backend for `pip install ./python`: builds the extension module
tern._tern with CMake for the interpreter that runs pip and packs the
package python/tern with it into a wheel. Standard library only (pip's
isolated build environment then needs no network).

The CMake build tree is, in order:
  TERN_BUILD_DIR    an existing configured build tree to reuse (for example
                    build/release, or build/asan in the test); its Python
                    must be the running interpreter's version;
  otherwise         build/pip-<python version> under the source tree,
                    configured Release with tests, benchmarks, examples and
                    the CLI off (a first build takes minutes, later ones
                    seconds).
TERN_CMAKE_ARGS adds arguments to the configure step; TERN_BUILD_JOBS sets
the parallel jobs (default 2).
"""
import base64
import hashlib
import os
import pathlib
import re
import subprocess
import sys
import sysconfig
import zipfile

PYTHON_DIR = pathlib.Path(__file__).resolve().parents[1]
SOURCE_DIR = PYTHON_DIR.parent


def _version():
    text = (SOURCE_DIR / "CMakeLists.txt").read_text()
    m = re.search(r"project\(tern VERSION ([0-9.]+)", text)
    if not m:
        raise RuntimeError(f"{SOURCE_DIR / 'CMakeLists.txt'}: no project "
                           "VERSION")
    return m.group(1)


def _tag():
    impl = f"cp{sys.version_info.major}{sys.version_info.minor}"
    abi = impl + getattr(sys, "abiflags", "")
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{impl}-{abi}-{plat}"


def _run(cmd):
    print("tern_build:", " ".join(str(c) for c in cmd), file=sys.stderr,
          flush=True)
    subprocess.run([str(c) for c in cmd], check=True)


def _cache_value(build_dir, key):
    cache = pathlib.Path(build_dir) / "CMakeCache.txt"
    for line in cache.read_text().splitlines():
        if line.startswith(key + ":"):
            return line.split("=", 1)[1]
    return None


def _build_module():
    """The built _tern shared object (path) for this interpreter."""
    jobs = os.environ.get("TERN_BUILD_JOBS", "2")
    build_dir = os.environ.get("TERN_BUILD_DIR")
    if build_dir:
        build_dir = pathlib.Path(build_dir).resolve()
        if not (build_dir / "CMakeCache.txt").exists():
            raise RuntimeError(f"TERN_BUILD_DIR={build_dir}: not a configured "
                               "CMake build tree")
        py = _cache_value(build_dir, "Python3_EXECUTABLE")
        want = f"{sys.version_info.major}.{sys.version_info.minor}"
        if py:
            got = subprocess.run(
                [py, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                check=True, capture_output=True, text=True).stdout.strip()
            if got != want:
                raise RuntimeError(
                    f"TERN_BUILD_DIR={build_dir} builds for Python {got} "
                    f"({py}) but pip runs Python {want}: unset TERN_BUILD_DIR")
    else:
        build_dir = SOURCE_DIR / "build" / (
            f"pip-{sys.version_info.major}.{sys.version_info.minor}")
        args = ["cmake", "-S", SOURCE_DIR, "-B", build_dir,
                "-DCMAKE_BUILD_TYPE=Release",
                f"-DPython3_EXECUTABLE={sys.executable}",
                "-DTERN_BUILD_PYTHON=ON", "-DTERN_BUILD_TESTS=OFF",
                "-DTERN_BUILD_BENCH=OFF", "-DTERN_BUILD_EXAMPLES=OFF",
                "-DTERN_BUILD_APPS=OFF"]
        args += os.environ.get("TERN_CMAKE_ARGS", "").split()
        _run(args)
    _run(["cmake", "--build", build_dir, "--target", "_tern", "-j", jobs])
    found = sorted((pathlib.Path(build_dir) / "python" / "tern").glob(
        "_tern*.so"))
    if not found:
        raise RuntimeError(f"{build_dir}/python/tern: no _tern*.so after the "
                           "build")
    return found[-1]


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest())
    return f"{name},sha256={digest.rstrip(b'=').decode()},{len(data)}"


def _metadata(version):
    return (f"Metadata-Version: 2.1\nName: tern\nVersion: {version}\n"
            "Summary: Tern: hybrid dynamical systems and rigid-body "
            "robotics\nRequires-Python: >=3.9\nRequires-Dist: numpy\n")


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory,
                                     config_settings=None):
    version = _version()
    dist_info = pathlib.Path(metadata_directory) / f"tern-{version}.dist-info"
    dist_info.mkdir(parents=True, exist_ok=True)
    (dist_info / "METADATA").write_text(_metadata(version))
    return dist_info.name


def build_wheel(wheel_directory, config_settings=None,
                metadata_directory=None):
    version = _version()
    module = _build_module()
    tag = _tag()
    name = f"tern-{version}-{tag}.whl"
    dist_info = f"tern-{version}.dist-info"
    files = {f"tern/{p.name}": p.read_bytes()
             for p in sorted((PYTHON_DIR / "tern").glob("*.py"))}
    files[f"tern/{module.name}"] = module.read_bytes()
    files[f"{dist_info}/METADATA"] = _metadata(version).encode()
    files[f"{dist_info}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: tern_build\nRoot-Is-Purelib: false\n"
        f"Tag: {tag}\n").encode()
    record = [_record_line(n, d) for n, d in files.items()]
    record.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    path = pathlib.Path(wheel_directory) / name
    # Stored, not deflated: the wheel only travels to the local pip, and
    # deflating a module built with sanitizers (~50 MB) takes longer than
    # the rest of the install.
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for n, d in files.items():
            info = zipfile.ZipInfo(n, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if n.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_STORED
            z.writestr(info, d)
    return name


def build_sdist(sdist_directory, config_settings=None):
    raise RuntimeError("tern: no source distribution; install from the "
                       "source tree (pip install ./python)")
