"""A character-level transformer language model, written as a PyTorch tutorial writes it: only the
import lines name glassbox. Embeddings, pre-norm blocks with causal scaled_dot_product_attention,
a GELU MLP, AdamW with gradient clipping and a cosine learning-rate schedule.

.venv/bin/python examples/tiny_transformer_lm.py    # trains, prints the losses and a sample
The same file with `import torch` in place of `import glassbox as torch` runs under PyTorch
(tests/python/test_examples.py does that and compares the two step by step).
"""

import math

import numpy as np

import glassbox as torch
import glassbox.nn as nn
import glassbox.nn.functional as F

TEXT = (
    "the dispatcher looks up the kernel for the highest key in the set. "
    "autograd records each operation so that backward can run the chain rule. "
    "a view shares storage with its base and only changes sizes and strides. "
) * 4


class Vocabulary:
    def __init__(self, text):
        self.chars = sorted(set(text))
        self.index = {c: i for i, c in enumerate(self.chars)}

    def encode(self, text):
        return np.array([self.index[c] for c in text], dtype=np.int64)

    def decode(self, ids):
        return "".join(self.chars[i] for i in ids)


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.proj(y)
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    def __init__(self, vocab_size, context=32, dim=32, heads=4, layers=2):
        super().__init__()
        self.context = context
        self.token = nn.Embedding(vocab_size, dim)
        self.position = nn.Embedding(context, dim)
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(layers)])
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab_size)

    def forward(self, ids, targets=None):
        B, T = ids.shape
        x = self.token(ids) + self.position(torch.arange(T))
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln(x))
        if targets is None:
            return logits, None
        return logits, F.cross_entropy(logits.view(B * T, -1), targets.view(B * T))


def batches(data, steps, batch=8, context=32, seed=0):
    """(inputs, targets) pairs of random windows; targets are the inputs shifted by one."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        starts = rng.integers(0, len(data) - context - 1, batch)
        x = np.stack([data[s : s + context] for s in starts])
        y = np.stack([data[s + 1 : s + context + 1] for s in starts])
        yield torch.from_numpy(x), torch.from_numpy(y)


def train(model, data, steps=40):
    """Returns the loss of each step."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 0.5 * (1 + math.cos(math.pi * s / steps)))
    losses = []
    for x, y in batches(data, steps, context=model.context):
        optimizer.zero_grad()
        _, loss = model(x, y)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    return losses


def sample(model, vocab, prompt, length=40):
    """Greedy decoding, one character at a time."""
    ids = list(vocab.encode(prompt))
    with torch.no_grad():
        for _ in range(length):
            context = torch.from_numpy(np.array([ids[-model.context :]], dtype=np.int64))
            logits, _ = model(context)
            ids.append(int(logits[0, -1].argmax().item()))
    return vocab.decode(ids)


if __name__ == "__main__":
    torch.manual_seed(0)
    vocab = Vocabulary(TEXT)
    model = TinyLM(len(vocab.chars))
    for step, loss in enumerate(train(model, vocab.encode(TEXT))):
        print(f"step {step:2d}  loss {loss:.4f}")
    print(repr(sample(model, vocab, "the ")))
