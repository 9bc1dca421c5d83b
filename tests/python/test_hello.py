"""examples/hello.py prints exactly what PyTorch 2.11 prints for the same program (the expected
text below is PyTorch's output, recorded by running the program with `import torch as gb`)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PYTORCH_OUTPUT = """\
tensor([[ -3.],
        [-14.]], grad_fn=<MmBackward0>)
tensor(-17., grad_fn=<SumBackward0>)
tensor([[ 6., -5.],
        [ 6., -5.]])
tensor([[3.],
        [7.]])
tensor([0.8507], grad_fn=<SigmoidBackward0>)
tensor(0.0223, grad_fn=<MseLossBackward0>)
tensor([-0.0759]) tensor([-0.0379])
"""


def test_hello_prints_what_pytorch_prints():
    run = subprocess.run(
        [sys.executable, str(REPO / "examples" / "hello.py")],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == PYTORCH_OUTPUT


def test_hello_with_the_dispatch_trace():
    env = dict(os.environ, GLASSBOX_DISPATCH_TRACE="1")
    run = subprocess.run(
        [sys.executable, str(REPO / "examples" / "hello.py")], capture_output=True, text=True, timeout=120, env=env
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == PYTORCH_OUTPUT
    assert (
        "[call] op=[glassbox::matmul] key=[AutogradCPU]" in run.stderr or "[call] op=[glassbox::matmul]" in run.stderr
    )
    assert "[call] op=[glassbox::sigmoid] key=[AutogradCPU]" in run.stderr
    assert "  [redispatch] op=[glassbox::sigmoid] key=[CPU]" in run.stderr


def test_hello_matches_pytorch_when_installed(tmp_path):
    pytest.importorskip("torch")
    source = (REPO / "examples" / "hello.py").read_text()
    source = source.replace("import glassbox as gb", "import torch as gb").replace(
        "import glassbox.nn.functional as F", "import torch.nn.functional as F"
    )
    script = tmp_path / "hello_torch.py"
    script.write_text(source)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout == PYTORCH_OUTPUT


def test_registry_tour_shows_the_real_add(tmp_path):
    """examples/registry_tour.py (the demo's registry part) shows add.Tensor's real kernels and the
    route of a call through its table, and writes the registry as JSON."""
    out = tmp_path / "registry.json"
    run = subprocess.run(
        [sys.executable, str(REPO / "examples" / "registry_tour.py"), "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )
    assert run.returncode == 0, run.stderr
    assert "schema: glassbox::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor" in run.stdout
    assert "AutogradCPU: registered at " in run.stdout
    assert "[call] op=[glassbox::add.Tensor] key=[AutogradCPU] -> autograd kernel at " in run.stdout
    assert "[redispatch] op=[glassbox::add.Tensor] key=[CPU] -> kernel at " in run.stdout
    assert "grad_fn = <AddBackward0" in run.stdout
    assert "[call] op=[glassbox::add.Tensor] key=[Meta]" in run.stdout
    assert "error" not in (run.stdout + run.stderr).lower()
    import json

    names = [op["name"] for op in json.loads(out.read_text())["operators"]]
    assert "glassbox::add.Tensor" in names
