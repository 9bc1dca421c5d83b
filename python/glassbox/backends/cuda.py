"""gb.backends.cuda.matmul.allow_tf32: whether float32 matrix products on CUDA may use TF32
tensor cores (faster, with 10-bit mantissas). False by default, as in PyTorch."""

from ._settings import engine_switch


class _MatmulSettings:
    allow_tf32 = engine_switch("matmul_allow_tf32")

    def __repr__(self):
        return f"matmul(allow_tf32={self.allow_tf32})"


matmul = _MatmulSettings()
