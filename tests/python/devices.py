"""The device the op-table and training tests run on: `pytest --device cuda` (or the environment
variable GLASSBOX_TEST_DEVICE) moves their inputs to the GPU and compares with the same NumPy
references; the default is the CPU."""

import numpy as np

import glassbox as gb

DEVICE = "cpu"


def set_device(name):
    global DEVICE
    DEVICE = name


def on_device(t):
    """t (a CPU tensor) on the device under test, with its strides kept, so a non-contiguous
    sample stays non-contiguous there."""
    if DEVICE == "cpu":
        return t
    with gb.no_grad():
        moved = gb.ops.glassbox.empty_strided(list(t.shape), list(t.stride()), dtype=t.dtype, device=DEVICE)
        moved.copy_(t)
    return moved


def from_numpy(a):
    return on_device(gb.from_numpy(a))


def to_numpy(t):
    """A NumPy array of t's values, wherever t is."""
    return np.asarray(t.detach().cpu())
