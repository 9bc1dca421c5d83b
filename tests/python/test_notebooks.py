"""The notebooks of notebooks/: each runs top to bottom without an error within its time budget,
and the committed files hold no outputs.

Each notebook runs in a fresh kernel started from this Python (the project's venv), with the
notebook's own directory as the working directory, as JupyterLab runs it; the kernel inherits
GLASSBOX_BUILD_DIR and PYTHONPATH, so `import glassbox` finds the build under test. ctest runs
one entry per notebook (label `notebooks`):
    ctest --preset dev -L notebooks
    pytest tests/python/test_notebooks.py -k 01-tour
A notebook whose metadata says {"glassbox": {"needs": ["introspect"]}} uses the introspection
tools; where the build has none (GLASSBOX_HAVE_INTROSPECT=0), it is skipped."""

import glob
import json
import os
import re
import sys
import time

import nbclient
import nbformat
import pytest
from nbclient.exceptions import CellExecutionError, CellTimeoutError

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NOTEBOOKS_DIR = os.path.join(REPO, "notebooks")
NOTEBOOKS = sorted(glob.glob(os.path.join(NOTEBOOKS_DIR, "*.ipynb")))
BUDGET_S = 60  # every notebook, from the kernel's start to its last cell
# except one that says otherwise in its metadata ("glassbox": {"budget_s": N}): the compiler's
# notebook builds its generated kernels with the system compiler, cold on a fresh machine.


def _stem(path):
    return os.path.splitext(os.path.basename(path))[0]


def _plain(text):
    return re.sub(r"\x1b\[[0-9;]*m", "", text)  # IPython colours its tracebacks


def _introspect_built():
    flag = os.environ.get("GLASSBOX_HAVE_INTROSPECT")
    if flag is not None:  # set by ctest from the build's configuration
        return flag not in ("", "0", "OFF", "FALSE")
    try:
        import glassbox._introspect  # noqa: F401
    except ImportError:
        return False
    return True


def _run(nb, timeout_s):
    """Executes nb in place in a kernel of this Python; the kernel's start and all the cells share one
    deadline of timeout_s (each cell's nbclient timeout is what is left of it)."""
    deadline = time.monotonic() + timeout_s
    client = nbclient.NotebookClient(
        nb,
        kernel_name="python3",
        timeout=timeout_s,
        timeout_func=lambda cell: max(1, int(deadline - time.monotonic() + 0.999)),
        resources={"metadata": {"path": NOTEBOOKS_DIR}},
    )
    client.execute()
    return nb


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 5, f"expected the notebooks in {NOTEBOOKS_DIR}, found {NOTEBOOKS}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_stem)
def test_notebook_runs(path):
    nb = nbformat.read(path, as_version=4)
    needs = nb.metadata.get("glassbox", {}).get("needs", [])
    if "introspect" in needs and not _introspect_built():
        pytest.skip(f"{_stem(path)} needs the introspection tools, which this build does not have")
    budget = nb.metadata.get("glassbox", {}).get("budget_s", BUDGET_S)
    start = time.monotonic()
    try:
        _run(nb, budget)
    except CellTimeoutError as e:
        pytest.fail(f"{_stem(path)} ran past its {budget} s budget: {e}")
    except CellExecutionError as e:
        pytest.fail(f"{_stem(path)} failed in a cell:\n{_plain(str(e))}")
    elapsed = time.monotonic() - start
    print(f"{_stem(path)}: {elapsed:.1f} s")
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, f"{_stem(path)} has no code cells"
    assert all(c.execution_count is not None for c in code), "some cells did not run"
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, f"{_stem(path)}: error outputs {errors}"


def test_kernel_is_this_python():
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("import os, sys; print(sys.executable, os.getcwd())")]
    )
    _run(nb, BUDGET_S)
    executable, cwd = nb.cells[0].outputs[0]["text"].split()
    assert os.path.realpath(executable) == os.path.realpath(sys.executable)
    assert os.path.realpath(cwd) == os.path.realpath(NOTEBOOKS_DIR)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_stem)
def test_committed_notebook_holds_no_outputs(path):
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    nb = nbformat.from_dict(raw)
    nbformat.validate(nb)
    stale = [
        i for i, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count is not None)
    ]
    assert not stale, (
        f"{_stem(path)}: cells {stale} hold outputs or execution counts; strip them with scripts/notebooks --strip"
    )
