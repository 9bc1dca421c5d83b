"""scripts/check-layering: passes on this tree, fails on a copy with one include that breaks the layering."""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "check-layering")
LAYER_FOLDERS = ["engine", "registry", "python/csrc", "graphs", "introspect"]


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


@pytest.fixture
def tree(tmp_path):
    """A copy of the layers' folders (not a git checkout: the script walks the files)."""
    for folder in LAYER_FOLDERS:
        shutil.copytree(
            os.path.join(ROOT, folder),
            tmp_path / folder,
            ignore=shutil.ignore_patterns("*.py", "*.yaml", "*.md", "*.txt", "__pycache__"),
        )
    return tmp_path


def add_include(root, path, include, after="#pragma once"):
    """Inserts `#include "include"` after the first line equal to `after`; returns its line number."""
    lines = (root / path).read_text().split("\n")
    at = lines.index(after) + 1 if after in lines else 0
    lines.insert(at, f'#include "{include}"')
    (root / path).write_text("\n".join(lines))
    return at + 1


def test_this_tree_keeps_its_layers():
    result = run()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "none breaks the layering" in result.stdout


def test_the_copy_passes_before_it_is_changed(tree):
    result = run("--root", str(tree))
    assert result.returncode == 0, result.stdout + result.stderr


def test_core_including_the_dispatcher_fails(tree):
    line = add_include(tree, "engine/core/tensor_impl.h", "registry/dispatcher.h")
    result = run("--root", str(tree))
    assert result.returncode == 1
    assert (
        f"engine/core/tensor_impl.h:{line}: layer core includes registry/dispatcher.h (layer registry): "
        "a lower layer may not include a higher one"
    ) in result.stdout
    assert "1 include(s) break the layering" in result.stdout


def test_front_end_including_a_backend_fails(tree):
    line = add_include(tree, "engine/ops/tensor_iterator.h", "engine/cpu/loops.h")
    result = run("--root", str(tree))
    assert result.returncode == 1
    assert f"engine/ops/tensor_iterator.h:{line}: layer ops includes engine/cpu/loops.h (layer cpu)" in result.stdout


def test_sibling_layers_stay_apart(tree):
    line = add_include(tree, "engine/autograd/node.h", "engine/cpu/loops.h")
    result = run("--root", str(tree))
    assert result.returncode == 1
    assert (
        f"engine/autograd/node.h:{line}: layer autograd includes engine/cpu/loops.h (layer cpu): "
        "the two layers are independent"
    ) in result.stdout


def test_tools_never_include_the_engine(tree):
    add_include(tree, "graphs/graph.h", "engine/core/tensor.h")
    result = run("--root", str(tree))
    assert result.returncode == 1
    assert "layer graphs includes engine/core/tensor.h (layer core)" in result.stdout


def test_generated_headers_count_as_their_layer(tree):
    line = add_include(tree, "engine/core/tensor_impl.h", "glassbox/ops/Functions.h")
    result = run("--root", str(tree))
    assert result.returncode == 1
    assert (
        f"engine/core/tensor_impl.h:{line}: layer core includes glassbox/ops/Functions.h (layer ops)" in result.stdout
    )


def test_an_include_relative_to_its_file_is_resolved(tree):
    line = add_include(tree, "registry/dispatcher.h", "../engine/cuda/cuda_error.h")
    result = run("--root", str(tree))
    assert result.returncode == 1
    assert (
        f"registry/dispatcher.h:{line}: layer registry includes ../engine/cuda/cuda_error.h (layer cuda)"
        in result.stdout
    )


def test_a_missing_root_is_named():
    result = run("--root", "/nonexistent/tree")
    assert result.returncode == 2
    assert "/nonexistent/tree is not a folder" in result.stderr
