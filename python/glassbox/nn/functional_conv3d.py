"""conv3d through the 2-D convolution operator: the kernel's depth taps become input channels.

For output depth d, tap k reads input depth d * stride + k * dilation. Those kD slices are stacked
next to the channels (per group: (group, tap, channel)), the depth is folded into the batch, and one
conv2d with the weight laid out the same way computes every output plane; autograd comes from
conv2d's, cat's and reshape's gradients."""

from .. import _C
from ._checks import tensor_arguments
from .functional_spatial import pad as _pad

_f = _C._functions


def _triple(name, v):
    v = [v] * 3 if isinstance(v, int) else list(v)
    if len(v) != 3 or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise RuntimeError(f"conv3d: {name} must be an int or 3 ints, got {v}")
    return v


def _same_padding(kernel, dilation):
    """(before, after) per spatial dim that keeps the size at stride 1 (the extra one after)."""
    totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
    return [(t // 2, t - t // 2) for t in totals]


@tensor_arguments("input", "weight", "bias")
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    if input.dim() not in (4, 5) or weight.dim() != 5:
        raise RuntimeError(
            f"conv3d: expected a 4-D or 5-D input (C, D, H, W) or (N, C, D, H, W) and a 5-D weight, got "
            f"{input.dim()}-D and {weight.dim()}-D"
        )
    batched = input.dim() == 5
    x = input if batched else input.unsqueeze(0)
    stride, dilation = _triple("stride", stride), _triple("dilation", dilation)
    if groups <= 0 or any(s <= 0 for s in stride) or any(d <= 0 for d in dilation):
        raise RuntimeError(f"conv3d: stride, dilation and groups must be positive (got {stride}, {dilation}, {groups})")
    out_channels, group_channels, kd, kh, kw = weight.shape
    n, channels = x.shape[0], x.shape[1]
    if channels != group_channels * groups or out_channels % groups:
        raise RuntimeError(
            f"conv3d: expected input with {group_channels * groups} channels (weight {list(weight.shape)}, "
            f"groups={groups}), got {channels}"
        )
    if bias is not None and list(bias.shape) != [out_channels]:
        raise RuntimeError(f"conv3d: expected a bias of shape [{out_channels}], got {list(bias.shape)}")
    if isinstance(padding, str):
        if padding == "valid":
            padding = [0, 0, 0]
        elif padding == "same":
            if stride != [1, 1, 1]:
                raise RuntimeError("conv3d: padding='same' is not supported for strided convolutions")
            sides = _same_padding([kd, kh, kw], dilation)
            x = _pad(x, [sides[2][0], sides[2][1], sides[1][0], sides[1][1], sides[0][0], sides[0][1]])
            padding = [0, 0, 0]
        else:
            raise ValueError(f"conv3d: invalid padding string {padding!r}, should be one of 'valid', 'same'")
    padding = _triple("padding", padding)
    if any(p < 0 for p in padding):
        raise RuntimeError(f"conv3d: negative padding is not supported, got {padding}")
    if padding[0]:
        x = _pad(x, [0, 0, 0, 0, padding[0], padding[0]])
    depth = x.shape[2]
    reach = dilation[0] * (kd - 1) + 1
    if depth < reach:
        raise RuntimeError(
            f"conv3d: the input's padded depth ({depth}) is smaller than the kernel's reach in depth ({reach})"
        )
    out_depth = (depth - reach) // stride[0] + 1
    # taps[k]: the input depths read by tap k, one per output depth: (N, C, out_depth, H, W)
    taps = [x.narrow(2, k * dilation[0], (out_depth - 1) * stride[0] + 1) for k in range(kd)]
    if stride[0] > 1:
        taps = [t.unfold(2, 1, stride[0]).squeeze(-1) for t in taps]
    h, w = x.shape[3], x.shape[4]
    stacked = _f.stack(taps, 1)  # (N, kD, C, D', H, W)
    stacked = stacked.reshape([n, kd, groups, group_channels, out_depth, h, w])
    stacked = stacked.permute([0, 4, 2, 1, 3, 5, 6])  # (N, D', groups, kD, C/g, H, W)
    planes = stacked.reshape([n * out_depth, groups * kd * group_channels, h, w])
    kernel = weight.permute([0, 2, 1, 3, 4]).reshape([out_channels, kd * group_channels, kh, kw])
    out = _f.conv2d(planes, kernel, bias, stride[1:], padding[1:], dilation[1:], groups)
    out = out.reshape([n, out_depth, out_channels, out.shape[2], out.shape[3]]).permute([0, 2, 1, 3, 4])
    return out if batched else out.squeeze(0)
