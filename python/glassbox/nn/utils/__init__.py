"""gb.nn.utils: gradient clipping, as torch.nn.utils has it."""

from .clip_grad import clip_grad_norm_, clip_grad_value_  # noqa: F401
