"""The tutorial-style examples (examples/cnn_images.py, examples/tiny_transformer_lm.py) train on
glassbox, and, where PyTorch is installed, the same files run under PyTorch from the same weights
and data give the same loss at every step."""

import pathlib
import types

import numpy as np
import pytest

import glassbox as gb

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
IMPORTS = {
    "import glassbox as torch": "import torch",
    "import glassbox.nn as nn": "import torch.nn as nn",
    "import glassbox.nn.functional as F": "import torch.nn.functional as F",
}


def load(name, framework="glassbox"):
    """The example as a module; with framework="torch" its import lines name PyTorch instead."""
    source = (EXAMPLES / f"{name}.py").read_text()
    for ours, theirs in IMPORTS.items():
        assert ours in source, f"{name}.py should import as PyTorch code does: {ours!r}"
        if framework == "torch":
            source = source.replace(ours, theirs)
    module = types.ModuleType(f"{name}_{framework}")
    exec(compile(source, str(EXAMPLES / f"{name}.py"), "exec"), module.__dict__)
    return module


def test_cnn_example_learns_the_shapes():
    cnn = load("cnn_images")
    gb.manual_seed(0)
    images, labels = cnn.make_images(512)
    model = cnn.SmallCNN()
    losses = cnn.train(model, images, labels)
    assert losses[0] > 1.2 and np.mean(losses[-5:]) < 0.6 * losses[0], losses
    test_images, test_labels = cnn.make_images(256, seed=1)
    assert cnn.accuracy(model, test_images, test_labels) > 0.8


def test_transformer_example_learns_the_text():
    lm = load("tiny_transformer_lm")
    gb.manual_seed(0)
    vocab = lm.Vocabulary(lm.TEXT)
    model = lm.TinyLM(len(vocab.chars))
    losses = lm.train(model, vocab.encode(lm.TEXT))
    assert losses[0] > 2.8 and np.mean(losses[-5:]) < 0.85 * losses[0], losses
    text = lm.sample(model, vocab, "the ", length=8)
    assert text.startswith("the ") and len(text) == 12


def copy_weights(theirs, ours):
    ours.load_state_dict({k: gb.from_numpy(v.detach().cpu().numpy().copy()) for k, v in theirs.state_dict().items()})


@pytest.mark.parametrize("name", ["cnn_images", "tiny_transformer_lm"])
def test_examples_match_pytorch_step_by_step(name):
    torch = pytest.importorskip("torch")
    ours, theirs = load(name), load(name, "torch")
    torch.manual_seed(0)
    if name == "cnn_images":
        their_model, our_model = theirs.SmallCNN(), ours.SmallCNN()
        copy_weights(their_model, our_model)
        want = theirs.train(their_model, *theirs.make_images(512))
        got = ours.train(our_model, *ours.make_images(512))
    else:
        vocab = ours.Vocabulary(ours.TEXT)
        their_model, our_model = theirs.TinyLM(len(vocab.chars)), ours.TinyLM(len(vocab.chars))
        copy_weights(their_model, our_model)
        want = theirs.train(their_model, vocab.encode(ours.TEXT))
        got = ours.train(our_model, vocab.encode(ours.TEXT))
    # float32 on both sides, different summation orders: the trajectories agree closely, not bitwise.
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-4)
