"""A GPT-style language model written once against the PyTorch-shaped API, so that the same code
builds it with glassbox (`lib = glassbox`) or with PyTorch (`lib = torch`): token and position
embeddings, pre-norm blocks of causal self-attention and a GELU MLP, a final layer norm and a
linear head. `copy_weights` gives two builds the same weights, so their losses can be compared."""

import math


def build(lib, vocab=256, block=64, C=128, heads=4, layers=2):
    nn, F = lib.nn, lib.nn.functional

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(C, 3 * C)
            self.proj = nn.Linear(C, C)

        def forward(self, x):
            B, T, _ = x.shape
            q, k, v = self.qkv(x).split(C, dim=2)
            q = q.reshape(B, T, heads, C // heads).transpose(1, 2)
            k = k.reshape(B, T, heads, C // heads).transpose(1, 2)
            v = v.reshape(B, T, heads, C // heads).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(C // heads))
            causal = lib.tril(lib.ones(T, T, device=x.device))
            att = att.masked_fill(causal == 0, float("-inf"))
            y = F.softmax(att, dim=-1) @ v
            return self.proj(y.transpose(1, 2).reshape(B, T, C))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.attn = nn.LayerNorm(C), Attention()
            self.ln2, self.fc, self.out = nn.LayerNorm(C), nn.Linear(C, 4 * C), nn.Linear(4 * C, C)

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, C), nn.Embedding(block, C)
            self.blocks = nn.Sequential(*[Block() for _ in range(layers)])
            self.ln, self.head = nn.LayerNorm(C), nn.Linear(C, vocab)

        def forward(self, idx, targets):
            B, T = idx.shape
            x = self.tok(idx) + self.pos(lib.arange(T, device=idx.device))
            logits = self.head(self.ln(self.blocks(x)))
            return F.cross_entropy(logits.reshape(B * T, vocab), targets.reshape(B * T))

    return GPT()


def copy_weights(src, dst, dst_lib):
    """Copies src's parameters into dst's (same architecture, either library)."""
    with dst_lib.no_grad():
        for p, q in zip(src.parameters(), dst.parameters()):
            q.copy_(dst_lib.from_numpy(p.detach().cpu().numpy().copy()).to(q.device))
