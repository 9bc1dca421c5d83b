"""`pip install .` into a fresh virtual environment gives a self-contained glassbox: imported from
another directory, with no build tree on any path, it computes, and its libraries are the
installed copies.

The wheel is built in this test's own CMake build directory (GLASSBOX_BUILD_DIR), so its build
step finds nothing to do; the rest is what any `pip install .` does: configure, install into the
wheel, install the wheel. scikit-build-core's Python hints are off so that the build directory
keeps its interpreter (the tests of this build run with it); the new venv is made from the same
base interpreter, so the extension's ABI is the same.
"""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("GLASSBOX_BUILD_DIR")

CHECK = r"""
import json, os, sys
import numpy as np
import glassbox as gb
A = gb.tensor([[2., 3.], [1., 4.]], requires_grad=True)
x = gb.tensor([[6.], [-5.]], requires_grad=True)
z = (A @ x).sum()
z.backward()
shared = gb.from_dlpack(np.arange(3.0))
libs = sorted({line.split()[-1] for line in open("/proc/self/maps") if "libglassbox_" in line or "/_C." in line})
print(json.dumps({"file": gb.__file__, "z": z.item(), "grad": A.grad.tolist(), "dlpack": shared.tolist(),
                  "libs": libs, "path": sys.path}))
"""


def cmake_cache(name):
    with open(os.path.join(BUILD, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith(name + ":"):
                return line.split("=", 1)[1].strip()
    return None


@pytest.mark.skipif(not BUILD, reason="needs GLASSBOX_BUILD_DIR, the CMake build to reuse (ctest sets it)")
def test_pip_install_into_a_fresh_venv(tmp_path):
    venv = tmp_path / "venv"
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # pip, the build backend and numpy come from the development venv's site-packages (a plain
    # path entry: its .pth files, such as the one pointing at python/, are not read).
    with open(os.path.join(site, "dev-site-packages.pth"), "w") as f:
        f.write(sysconfig.get_paths()["purelib"] + "\n")

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GLASSBOX_BUILD_DIR", "PYTHONHOME")}
    env["CMAKE_GENERATOR"] = cmake_cache("CMAKE_GENERATOR") or "Ninja"
    settings = {
        "build-dir": BUILD,
        "cmake.build-type": cmake_cache("CMAKE_BUILD_TYPE") or "RelWithDebInfo",
        # Leave the build directory's own search settings alone (interpreter, FindPython, prefixes).
        "cmake.python-hints": "false",
        "backport.find-python": "0",
        "search.site-packages": "false",
    }
    install = [str(python), "-m", "pip", "install", "--no-build-isolation", "--no-index", "--disable-pip-version-check"]
    for key, value in settings.items():
        install += ["--config-settings", "%s=%s" % (key, value)]
    prefix = cmake_cache("CMAKE_INSTALL_PREFIX") or "/usr/local"
    try:
        run = subprocess.run(install + [REPO], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200)
    finally:
        # What the wheel build cached in the build directory goes again (a configure of ~2 s).
        subprocess.run(
            ["cmake", "-U", "SKBUILD*", "-DCMAKE_INSTALL_PREFIX=" + prefix, BUILD], check=True, capture_output=True
        )
    installed = time.monotonic()
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]

    package = os.path.join(site, "glassbox")
    assert os.path.isfile(os.path.join(package, "__init__.py"))
    assert any(n.startswith("_C.") and n.endswith(".so") for n in os.listdir(package))
    assert os.path.isfile(os.path.join(package, "lib", "libglassbox_core.so"))

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = subprocess.run(
        [str(python), "-c", CHECK], cwd=elsewhere, env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert got["file"].startswith(str(venv)), got["file"]
    assert got["z"] == -17.0 and got["grad"] == [[6.0, -5.0], [6.0, -5.0]] and got["dlpack"] == [0.0, 1.0, 2.0]
    assert got["libs"] and all(lib.startswith(str(venv)) for lib in got["libs"]), got["libs"]
    assert not any(p.startswith(os.path.join(REPO, "python")) for p in got["path"])

    # The wheel carries the C++ package too: a program outside the tree builds against it.
    prefix_path = subprocess.run(
        [str(python), "-c", "import glassbox; print(glassbox.utils.cmake_prefix_path)"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert prefix_path.startswith(site), prefix_path
    app = tmp_path / "app"
    for command in (
        [
            "cmake",
            "-S",
            os.path.join(REPO, "examples", "cpp_app"),
            "-B",
            str(app),
            f"-DCMAKE_PREFIX_PATH={prefix_path}",
        ],
        ["cmake", "--build", str(app)],
        [str(app / "glassbox_app")],
    ):
        run = subprocess.run(command, cwd=elsewhere, env=env, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert "dz/dx = tensor([[12., 12., 12.]," in run.stdout
    print("pip install . took %.1f s; the whole test %.1f s" % (installed - started, time.monotonic() - started))
    shutil.rmtree(venv)
