"""The element-wise gradient operators autograd's formulas call (relu's threshold_backward,
sigmoid_backward, tanh_backward, silu_backward, gelu_backward), added to the generator's table of
element-wise formulas so that a backward graph's chains fuse like a forward's. Each one is the
engine's own functor (engine/ops/pointwise_functors.h), so a generated backward computes what the
library kernel computes."""

from .codegen_cpp import POINTWISE, literal


def _gelu_backward(a, C):
    functor = "GeluTanhBackward" if a[2] == "tanh" else "GeluErfBackward"
    return "F::%s{}(%s, %s)" % (functor, a[0], a[1])


GRADIENT_FORMULAS = {
    "glassbox::threshold_backward": lambda a, C: (
        "F::ThresholdBackward::Fn<%s>{%s}(%s, %s)" % (C, literal(a[2], C), a[0], a[1])
    ),
    "glassbox::sigmoid_backward": lambda a, C: "F::SigmoidBackward{}(%s, %s)" % (a[0], a[1]),
    "glassbox::tanh_backward": lambda a, C: "F::TanhBackward{}(%s, %s)" % (a[0], a[1]),
    "glassbox::silu_backward": lambda a, C: "F::SiluBackward{}(%s, %s)" % (a[0], a[1]),
    "glassbox::gelu_backward": _gelu_backward,
}

for _op, _formula in GRADIENT_FORMULAS.items():
    POINTWISE.setdefault(_op, _formula)
