"""Tensor.cuda(), Tensor.cpu() and Tensor.is_cuda, written on top of Tensor.to(device)."""

from ._C import Tensor


def _cuda(self, device=None, non_blocking=False):
    if device is None:
        device = "cuda"
    elif isinstance(device, int):
        device = f"cuda:{device}"
    return self.to(str(device), non_blocking=non_blocking)


def _cpu(self):
    return self.to("cpu")


Tensor.cuda = _cuda
Tensor.cpu = _cpu
Tensor.is_cuda = property(lambda self: self.device.startswith("cuda"))
