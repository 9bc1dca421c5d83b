"""gb.backends.cuda.matmul.allow_tf32: whether float32 matrix products on CUDA may use TF32
tensor cores (faster, with 10-bit mantissas). False by default, as in PyTorch."""

from .. import _C


class _MatmulSettings:
    @property
    def allow_tf32(self):
        return _C._cuda.matmul_allow_tf32()

    @allow_tf32.setter
    def allow_tf32(self, allow):
        _C._cuda.set_matmul_allow_tf32(bool(allow))

    def __repr__(self):
        return f"matmul(allow_tf32={self.allow_tf32})"


matmul = _MatmulSettings()
