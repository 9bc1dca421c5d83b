"""Module and Parameter: the bookkeeping every layer shares (parameters, submodules, state_dict,
train/eval, __call__)."""

from collections import OrderedDict

from .. import _C


class Parameter(_C.Tensor):
    """A tensor that is a module's parameter: it requires grad unless told otherwise."""

    def __init__(self, data, requires_grad=True):
        super().__init__(data.detach())
        self.requires_grad_(requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()


class Module:
    def __init__(self):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "training", True)

    # --- attribute bookkeeping: parameters and submodules are found by assignment
    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            raise AttributeError("call Module.__init__() before assigning attributes")
        if (
            name in self._buffers
            and (value is None or isinstance(value, _C.Tensor))
            and not isinstance(value, Parameter)
        ):
            self._buffers[name] = value  # assigning to a buffer replaces it and keeps it a buffer
            return
        for store in (self._parameters, self._modules, self._buffers):
            store.pop(name, None)
        if isinstance(value, (Parameter, Module)):
            self.__dict__.pop(name, None)  # an earlier plain value (None) would shadow the registered one
            (self._parameters if isinstance(value, Parameter) else self._modules)[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        for store in ("_parameters", "_modules", "_buffers"):
            d = self.__dict__.get(store)
            if d is not None and name in d:
                return d[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def register_buffer(self, name, tensor):
        self._buffers[name] = tensor

    def register_parameter(self, name, param):
        self._parameters[name] = param

    def add_module(self, name, module):
        self._modules[name] = module

    # --- devices and dtypes
    def to(self, *args, **kwargs):
        """Moves (or converts) every parameter and buffer, in place as far as the module is concerned:
        `model.to("cuda")`, `model.to(gb.float64)`, `model.to("cuda", gb.float16)`. Parameters are
        replaced by new ones, so build optimizers after moving the model (as with PyTorch)."""
        for m in self.modules():
            for name, p in list(m._parameters.items()):
                if p is not None:
                    m._parameters[name] = Parameter(p.detach().to(*args, **kwargs), p.requires_grad)
            for name, b in list(m._buffers.items()):
                if b is not None:
                    m._buffers[name] = b.to(*args, **kwargs)
        return self

    def cuda(self, device=None):
        return self.to("cuda" if device is None else f"cuda:{device}" if isinstance(device, int) else device)

    def cpu(self):
        return self.to("cpu")

    # --- traversal
    def named_modules(self, prefix=""):
        yield prefix, self
        for name, m in self._modules.items():
            yield from m.named_modules(f"{prefix}.{name}" if prefix else name)

    def modules(self):
        return (m for _, m in self.named_modules())

    def children(self):
        return iter(self._modules.values())

    def named_parameters(self, prefix="", recurse=True):
        seen = set()
        modules = self.named_modules(prefix) if recurse else [(prefix, self)]
        for mod_prefix, m in modules:
            for name, p in m._parameters.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{mod_prefix}.{name}" if mod_prefix else name), p

    def parameters(self, recurse=True):
        return (p for _, p in self.named_parameters(recurse=recurse))

    def state_dict(self):
        out = OrderedDict()
        for mod_prefix, m in self.named_modules():
            for name, t in list(m._parameters.items()) + list(m._buffers.items()):
                out[f"{mod_prefix}.{name}" if mod_prefix else name] = t.detach()
        return out

    def load_state_dict(self, state_dict, strict=True):
        own = self.state_dict()
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):  # PyTorch raises RuntimeError for both
            raise RuntimeError(
                f"load_state_dict of {type(self).__name__}: missing keys {missing}, unexpected keys {unexpected}"
            )
        from ..autograd import no_grad

        with no_grad():
            for key, value in state_dict.items():
                if key not in own:
                    continue
                if tuple(own[key].shape) != tuple(value.shape):
                    raise RuntimeError(
                        f"load_state_dict: {key} has shape {tuple(value.shape)} in the state dict "
                        f"but {tuple(own[key].shape)} in the module"
                    )
                own[key].copy_(value)
        return missing, unexpected

    # --- modes and calls
    def train(self, mode=True):
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def zero_grad(self, set_to_none=True):
        """As Optimizer.zero_grad, over this module's parameters."""
        from ..optim import _zero_grads

        _zero_grads(self.parameters(), set_to_none)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} has no forward()")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = [f"{type(self).__name__}({self.extra_repr()}"]
        if self._modules:
            lines[0] = f"{type(self).__name__}("
            for name, m in self._modules.items():
                body = repr(m).replace("\n", "\n  ")
                lines.append(f"  ({name}): {body}")
            lines.append(")")
            return "\n".join(lines)
        return lines[0] + ")"
