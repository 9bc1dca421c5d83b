"""Multi-head attention and the Transformer encoder layer, with torch.nn's parameter names (so their
state dicts load into each other): in_proj_weight/in_proj_bias, out_proj, linear1/2, norm1/2."""

import math

from .. import _C
from . import functional as F
from . import init
from .layers import Dropout, LayerNorm, Linear
from .module import Module, Parameter

_f = _C._functions


def _additive_mask(mask, like):
    """A float mask to add to attention scores: a boolean mask's True positions (masked out) become -inf."""
    if mask is None:
        return None
    if mask.dtype == _C.dtype.bool:
        return _f.zeros(list(mask.shape), dtype=like.dtype, device=like.device).masked_fill(mask, float("-inf"))
    return mask.to(like.dtype)


class MultiheadAttention(Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, batch_first=False):
        super().__init__()
        if embed_dim % num_heads:
            raise AssertionError("embed_dim must be divisible by num_heads")
        self.embed_dim, self.num_heads, self.dropout, self.batch_first = embed_dim, num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        self.in_proj_weight = Parameter(_f.empty([3 * embed_dim, embed_dim]))
        self.in_proj_bias = Parameter(_f.zeros([3 * embed_dim])) if bias else None
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias)
        init.xavier_uniform_(self.in_proj_weight)
        if bias:
            init.zeros_(self.out_proj.bias)

    def forward(
        self,
        query,
        key,
        value,
        key_padding_mask=None,
        need_weights=True,
        attn_mask=None,
        average_attn_weights=True,
        is_causal=False,
    ):
        batched = query.dim() == 3
        if not batched:  # (L, E): one sequence
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            key_padding_mask = key_padding_mask.unsqueeze(0) if key_padding_mask is not None else None
        elif self.batch_first:
            query, key, value = query.transpose(0, 1), key.transpose(0, 1), value.transpose(0, 1)
        length, batch, embed = query.shape
        source = key.shape[0]
        if embed != self.embed_dim:
            raise RuntimeError(f"MultiheadAttention: expected embedding size {self.embed_dim}, got {embed}")
        w_q, w_k, w_v = self.in_proj_weight.chunk(3, 0)
        b_q, b_k, b_v = self.in_proj_bias.chunk(3, 0) if self.in_proj_bias is not None else (None, None, None)
        heads, head_dim = self.num_heads, self.head_dim

        def split_heads(x, w, b, n):  # (n, N, E) -> (N, H, n, D)
            return F.linear(x, w, b).reshape([n, batch, heads, head_dim]).permute([1, 2, 0, 3])

        q, k, v = (
            split_heads(query, w_q, b_q, length),
            split_heads(key, w_k, b_k, source),
            split_heads(value, w_v, b_v, source),
        )
        if is_causal and attn_mask is None:
            attn_mask = _f.ones([length, source], dtype=_C.dtype.bool, device=query.device).triu(1)
        mask = _additive_mask(attn_mask, q)
        if mask is not None and mask.dim() == 3:  # (N·H, L, S)
            mask = mask.reshape([batch, heads, length, source])
        padding = _additive_mask(key_padding_mask, q)
        if padding is not None:
            padding = padding.reshape([batch, 1, 1, source])
            mask = padding if mask is None else mask + padding
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(head_dim))
        if mask is not None:
            scores = scores + mask
        weights = _f.softmax(scores, -1, None)
        if self.dropout > 0.0 and self.training:
            weights = _f.dropout(weights, self.dropout, True)
        out = (weights @ v).permute([2, 0, 1, 3]).reshape([length, batch, embed])
        out = self.out_proj(out)
        if not batched:
            out = out.squeeze(1)
        elif self.batch_first:
            out = out.transpose(0, 1)
        if not need_weights:
            return out, None
        if average_attn_weights:
            weights = weights.mean([1])
        return out, weights if batched else weights.squeeze(0)


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with a residual connection and layer norm
    (after each block, or before it with norm_first=True)."""

    def __init__(
        self,
        d_model,
        nhead,
        dim_feedforward=2048,
        dropout=0.1,
        activation="relu",
        layer_norm_eps=1e-5,
        batch_first=False,
        norm_first=False,
        bias=True,
    ):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            if activation not in ("relu", "gelu"):
                raise RuntimeError(f"activation should be relu/gelu, not {activation}")
            activation = F.relu if activation == "relu" else F.gelu
        self.activation = activation

    def _attention_block(self, x, mask, padding, is_causal):
        out = self.self_attn(x, x, x, key_padding_mask=padding, need_weights=False, attn_mask=mask, is_causal=is_causal)
        return self.dropout1(out[0])

    def _feed_forward_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._attention_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._feed_forward_block(self.norm2(x))
        x = self.norm1(x + self._attention_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._feed_forward_block(x))
