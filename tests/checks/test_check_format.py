"""scripts/check-format: on a small tree with this checkout's .clang-format and pyproject.toml, it names
the misformatted C++ and Python files and the lint finding, leaves the formatted ones and a
DisableFormat folder alone, and passes once --fix has formatted the files."""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "check-format")

FORMATTED_CPP = """\
#include <string>

namespace demo {

std::string twice(const std::string& s) { return s + s; }

}  // namespace demo
"""
MISFORMATTED_CPP = """\
#include <string>

namespace demo {

std::string   twice( const std::string &s ) {
    return s+s;
}

}  // namespace demo
"""
FORMATTED_PY = '''\
"""A formatted module."""


def twice(s):
    return s + s
'''
MISFORMATTED_PY = "def twice( s ):\n  return s+s\n"
LINT_BUG_PY = '"""Formatted, but imports what it never uses."""\n\nimport os\n\nVALUE = 1\n'


def find_ruff():
    candidates = [
        os.environ.get("GLASSBOX_RUFF"),
        os.path.join(ROOT, ".venv", "bin", "ruff"),
        os.path.join(os.path.dirname(sys.executable), "ruff"),
        shutil.which("ruff"),
    ]
    return next((c for c in candidates if c and os.path.isfile(c) and os.access(c, os.X_OK)), None)


def tools_env():
    ruff = find_ruff()
    clang_format = shutil.which("clang-format-14") or shutil.which("clang-format")
    if not ruff or not clang_format:
        pytest.skip("needs clang-format and ruff (scripts/test and scripts/bootstrap install them)")
    return dict(os.environ, GLASSBOX_RUFF=ruff, GLASSBOX_CLANG_FORMAT=clang_format)


def run(root, *args, env=None, python=sys.executable):
    return subprocess.run([python, SCRIPT, "--root", str(root), *args], capture_output=True, text=True, env=env)


def make_tree(root, files):
    shutil.copy(os.path.join(ROOT, ".clang-format"), root / ".clang-format")
    shutil.copy(os.path.join(ROOT, "pyproject.toml"), root / "pyproject.toml")
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_formatted_files_pass(tmp_path):
    env = tools_env()
    tree = make_tree(tmp_path, {"src/twice.cpp": FORMATTED_CPP, "tools/twice.py": FORMATTED_PY})
    result = run(tree, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "every file is formatted" in result.stdout


def test_misformatted_files_are_named(tmp_path):
    env = tools_env()
    tree = make_tree(
        tmp_path,
        {
            "src/twice.cpp": FORMATTED_CPP,
            "src/bad.cpp": MISFORMATTED_CPP,
            "tools/twice.py": FORMATTED_PY,
            "tools/bad.py": MISFORMATTED_PY,
            "tools/lint.py": LINT_BUG_PY,
        },
    )
    result = run(tree, env=env)
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout
    assert "src/bad.cpp:5: not clang-formatted" in out
    assert "tools/bad.py: not ruff-formatted" in out
    assert "tools/lint.py:3:8: F401" in out
    assert "src/twice.cpp" not in out and "tools/twice.py" not in out
    assert "3 problem(s)" in out


def test_a_disable_format_folder_is_left_alone(tmp_path):
    env = tools_env()
    tree = make_tree(tmp_path, {"fixtures/bad.cpp": MISFORMATTED_CPP})
    (tree / "fixtures" / ".clang-format").write_text("DisableFormat: true\nSortIncludes: Never\n")
    result = run(tree, env=env)
    assert result.returncode == 0, result.stdout + result.stderr


def test_fix_formats_what_the_check_names(tmp_path):
    env = tools_env()
    tree = make_tree(tmp_path, {"src/bad.cpp": MISFORMATTED_CPP, "tools/bad.py": MISFORMATTED_PY})
    assert run(tree, env=env).returncode == 1
    fixed = run(tree, "--fix", env=env)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert (tree / "src" / "bad.cpp").read_text() == FORMATTED_CPP
    assert (tree / "tools" / "bad.py").read_text() == "def twice(s):\n    return s + s\n"
    assert run(tree, env=env).returncode == 0


def test_missing_tools_skip_with_a_message(tmp_path):
    python = "/usr/bin/python3"
    if not os.path.exists(python) or os.path.exists("/usr/bin/ruff"):
        pytest.skip("needs a Python whose folder holds no ruff")
    tree = make_tree(tmp_path, {"src/bad.cpp": MISFORMATTED_CPP, "tools/bad.py": MISFORMATTED_PY})
    env = {"PATH": str(tmp_path / "no-tools"), "HOME": str(tmp_path)}
    result = run(tree, env=env, python=python)
    assert result.returncode == 77, result.stdout + result.stderr
    assert "clang-format not found" in result.stdout
    assert "ruff not found" in result.stdout
