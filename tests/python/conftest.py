"""pytest options of the Python suite: --device cpu|cuda (see devices.py)."""

import os

import pytest

import devices


def pytest_addoption(parser):
    parser.addoption(
        "--device",
        default=os.environ.get("GLASSBOX_TEST_DEVICE", "cpu"),
        choices=("cpu", "cuda"),
        help="run the op-table and training tests on this device (default: cpu)",
    )


def pytest_configure(config):
    device = config.getoption("--device")
    if device == "cuda":
        import glassbox as gb

        if not gb.cuda.is_available():
            raise pytest.UsageError("--device cuda: glassbox sees no usable CUDA device")
    devices.set_device(device)
