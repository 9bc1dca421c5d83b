"""gb.paths: the source tree and the build this process loaded."""

import os

import pytest

import glassbox as gb

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_source_dir_is_this_checkout():
    assert os.path.samefile(gb.paths.source_dir(), REPO)
    assert os.path.samefile(gb.paths.source("engine/ops/ops.yaml"), os.path.join(REPO, "engine", "ops", "ops.yaml"))


def test_build_dir_is_the_one_loaded():
    build = gb.paths.build_dir()
    assert os.path.samefile(os.path.dirname(gb._C.__file__), os.path.join(build, "python", "glassbox"))
    expected = os.environ.get("GLASSBOX_BUILD_DIR", os.path.join(REPO, "build", "dev"))
    assert os.path.samefile(build, expected)


def test_build_artifacts():
    build = gb.paths.build_dir()
    assert gb.paths.library("glassbox_core") == os.path.join(build, "lib", "libglassbox_core.so")
    assert gb.paths.library("libglassbox_cpu.so") == os.path.join(build, "lib", "libglassbox_cpu.so")
    assert os.path.isfile(os.path.join(gb.paths.generated_dir(), "Functions.h"))


def test_missing_files_are_named():
    with pytest.raises(FileNotFoundError, match=r"library .*libnot_a_library\.so does not exist"):
        gb.paths.library("not_a_library")
    with pytest.raises(FileNotFoundError, match=r"program .*bin/not-a-program does not exist"):
        gb.paths.program("not-a-program")
    with pytest.raises(FileNotFoundError, match="relative to the repository root"):
        gb.paths.source("no/such/file.txt")
