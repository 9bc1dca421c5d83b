"""gb.optim: SGD (momentum, weight decay), Adam and AdamW, updating parameters in place, and the
learning-rate schedules of gb.optim.lr_scheduler."""

import math

from .. import _C
from .._factories import zeros_like
from ..autograd import no_grad


def _zero_grads(parameters, set_to_none):
    for p in parameters:
        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
        else:
            if p.grad.grad_fn is not None:
                p.grad = p.grad.detach()
            p.grad.zero_()


class Optimizer:
    def __init__(self, params, defaults):
        self.defaults = defaults
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        self.param_groups = []
        for g in groups:
            group = dict(defaults)
            group.update(g)
            group["params"] = list(group["params"])
            self.param_groups.append(group)
        self.state = {}

    def zero_grad(self, set_to_none=True):
        """Drops every parameter's gradient, or with set_to_none=False zeroes it in place (a
        reference to it then sees the zeros), as torch.optim does."""
        _zero_grads(self._parameters(), set_to_none)

    def _state(self, p):
        return self.state.setdefault(id(p), {})

    def _parameters(self):
        return [p for group in self.param_groups for p in group["params"]]

    def state_dict(self):
        """{'state': {index: per-parameter state}, 'param_groups': [settings, 'params': [index, ...]]}: parameters
        are numbered in group order, so the dict loads into another optimizer over the same model."""
        index = {id(p): i for i, p in enumerate(self._parameters())}
        groups = []
        for group in self.param_groups:
            settings = {k: v for k, v in group.items() if k != "params"}
            settings["params"] = [index[id(p)] for p in group["params"]]
            groups.append(settings)
        state = {index[key]: dict(value) for key, value in self.state.items() if key in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for mine, theirs in zip(self.param_groups, groups):
            if len(mine["params"]) != len(theirs["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
                )
        params = self._parameters()
        self.state = {}
        for i, value in state_dict["state"].items():
            p = params[int(i)]
            self.state[id(p)] = {
                k: v.to(p.device).clone() if hasattr(v, "clone") and hasattr(v, "device") else v
                for k, v in value.items()
            }
        for mine, theirs in zip(self.param_groups, groups):
            mine.update({k: v for k, v in theirs.items() if k != "params"})


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0.0, weight_decay=0.0, dampening=0.0, nesterov=False):
        if lr < 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        super().__init__(
            params, dict(lr=lr, momentum=momentum, weight_decay=weight_decay, dampening=dampening, nesterov=nesterov)
        )

    @no_grad()
    def step(self):
        for group in self.param_groups:
            lr, momentum, wd = group["lr"], group["momentum"], group["weight_decay"]
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if wd:
                    g = g + p * wd
                if momentum:
                    state = self._state(p)
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = g.clone()
                    else:
                        buf.mul_(momentum).add_(g, alpha=1 - group["dampening"])
                    g = g + buf * momentum if group["nesterov"] else buf
                p.add_(g, alpha=-lr)


class Adam(Optimizer):
    """Adam (Kingma & Ba), and AdamW through the subclass. `fused=None` updates each parameter in
    one kernel (the operator `_fused_adam_`, one call per group) when every parameter with a
    gradient is a contiguous floating-point tensor on one device, and in seven element-wise
    operators otherwise; `fused=True` insists on the kernel, `fused=False` refuses it."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, fused=None):
        if lr < 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not (0.0 <= betas[0] < 1.0 and 0.0 <= betas[1] < 1.0):
            raise ValueError(f"Invalid beta parameters: {betas}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, fused=fused))

    _decoupled = False

    @no_grad()
    def step(self):
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            why_not = _why_not_fused(params)
            if group.get("fused") is True and why_not:
                raise RuntimeError(f"Adam(fused=True): {why_not}")
            if group.get("fused") is not False and not why_not:
                self._fused_step(group, params)
            else:
                self._unfused_step(group, params)

    def _moments(self, p):
        state = self._state(p)
        if not state:
            state["step"] = 0
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
        state["step"] += 1
        return state

    def _fused_step(self, group, params):
        if not params:
            return
        states = [self._moments(p) for p in params]
        b1, b2 = group["betas"]
        _C._functions._fused_adam_(
            params,
            [p.grad for p in params],
            [s["exp_avg"] for s in states],
            [s["exp_avg_sq"] for s in states],
            [s["step"] for s in states],
            lr=group["lr"],
            beta1=b1,
            beta2=b2,
            weight_decay=group["weight_decay"],
            eps=group["eps"],
            decoupled_weight_decay=self._decoupled,
        )

    def _unfused_step(self, group, params):
        lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        for p in params:
            g = p.grad
            if wd and self._decoupled:
                p.mul_(1 - lr * wd)
            elif wd:
                g = g + p * wd
            state = self._moments(p)
            m, v, t = state["exp_avg"], state["exp_avg_sq"], state["step"]
            # Seven kernels a parameter, each fused where one op does the work of two
            # (lerp_ for m's moving average, addcmul_ for v's, addcdiv_ for the update).
            m.lerp_(g, 1 - b1)
            v.mul_(b2).addcmul_(g, g, value=1 - b2)
            denom = v.sqrt().div_(math.sqrt(1 - b2**t)).add_(eps)
            p.addcdiv_(m, denom, value=-lr / (1 - b1**t))


def _why_not_fused(params):
    """Why `params` cannot take the fused step, or "" when they can."""
    for p in params:
        if not p.dtype.is_floating_point:
            return f"a parameter is {p.dtype}; the fused step takes floating-point parameters"
        if p.device != params[0].device:
            return f"parameters are on {params[0].device} and {p.device}; the fused step takes one device"
        if not p.is_contiguous():
            return "a parameter is not contiguous"
        if p.grad.dtype != p.dtype or list(p.grad.shape) != list(p.shape) or p.grad.device != p.device:
            return "a gradient differs from its parameter in dtype, shape or device"
    return ""


class AdamW(Adam):
    """Adam with decoupled weight decay (default 0.01, as torch.optim.AdamW)."""

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, fused)


from . import lr_scheduler  # noqa: E402,F401

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler"]
