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
    run = subprocess.run([sys.executable, str(REPO / "examples" / "hello.py")], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ))
    assert run.returncode == 0, run.stderr
    assert run.stdout == PYTORCH_OUTPUT


def test_hello_with_the_dispatch_trace():
    env = dict(os.environ, GLASSBOX_DISPATCH_TRACE="1")
    run = subprocess.run([sys.executable, str(REPO / "examples" / "hello.py")], capture_output=True, text=True,
                         timeout=120, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout == PYTORCH_OUTPUT
    assert "[call] op=[glassbox::matmul] key=[AutogradCPU]" in run.stderr or \
        "[call] op=[glassbox::matmul]" in run.stderr
    assert "[call] op=[glassbox::sigmoid] key=[AutogradCPU]" in run.stderr
    assert "  [redispatch] op=[glassbox::sigmoid] key=[CPU]" in run.stderr


def test_hello_matches_pytorch_when_installed(tmp_path):
    pytest.importorskip("torch")
    source = (REPO / "examples" / "hello.py").read_text()
    source = source.replace("import glassbox as gb", "import torch as gb").replace(
        "import glassbox.nn.functional as F", "import torch.nn.functional as F")
    script = tmp_path / "hello_torch.py"
    script.write_text(source)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout == PYTORCH_OUTPUT
