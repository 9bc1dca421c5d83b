"""Shape functions of PyTorch's API written over the view and copy operators: repeat, tile,
repeat_interleave, unflatten, movedim/moveaxis, swapaxes/swapdims, broadcast_to/_tensors/_shapes,
rot90, meshgrid, tensor_split and split with a list of sizes. Autograd and the Meta device come
from the operators each one calls."""

import builtins

from . import _C
from ._composite_args import as_int, as_str, check_tensor, int_sequence, wrap_dim, wrap_dims

_f = _C._functions
_Tensor = _C.Tensor


# ---- repeat, tile, repeat_interleave
def repeat(input, *sizes):
    """The tensor repeated sizes[i] times along dim i (leading new dims for extra sizes): each dim of
    size s becomes a pair (r, s), expanded, then merged into r * s."""
    check_tensor("repeat", "self", input)
    sizes = int_sequence("repeat", "repeats", sizes)
    if len(sizes) < input.dim():
        raise RuntimeError(
            "repeat: number of dimensions of repeat dims can not be smaller than number of dimensions of "
            f"tensor (got {len(sizes)} repeats for a tensor of {input.dim()} dims)"
        )
    if builtins.any(r < 0 for r in sizes):
        raise RuntimeError(f"repeat: repeats can not be negative, got {sizes}")
    shape = [1] * (len(sizes) - input.dim()) + list(input.shape)
    paired, expanded = [], []
    for r, s in zip(sizes, shape):
        paired += [1, s]
        expanded += [r, s]
    result = input.reshape(paired).expand(expanded)
    return result.reshape([r * s for r, s in zip(sizes, shape)])


def _tile(input, dims):
    return repeat(input, [1] * (input.dim() - len(dims)) + dims)


def tile(input, dims):
    """input repeated dims[i] times along dim i (dims shorter than input's rank count from the last dim)."""
    check_tensor("tile", "input", input)
    if not isinstance(dims, (list, tuple)):
        raise TypeError(f"tile(): argument 'dims' must be tuple of ints, not {type(dims).__name__}")
    return _tile(input, [as_int("tile", "dims", d) for d in dims])


def _tile_method(self, *dims):
    return _tile(self, int_sequence("tile", "dims", dims))


def _interleave_index(repeats, total):
    """For repeats r (1-d int64), the index i repeated r[i] times: a 1 at each segment's end, summed."""
    ends = repeats.cumsum(0)
    marks = _f.zeros([total + 1], dtype=_C.dtype.int64, device=repeats.device)
    marks = marks.index_add(0, ends, _f.ones([repeats.shape[0]], dtype=_C.dtype.int64, device=repeats.device))
    return marks.narrow(0, 0, total).cumsum(0)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (or slice along dim) repeated; repeats is an int, or a tensor of one count per slice.
    repeat_interleave(repeats) alone gives arange(len(repeats)) so repeated."""
    if repeats is None:  # the one-argument form: input holds the counts
        check_tensor("repeat_interleave", "repeats", input)
        repeats = input
        input = _f.arange(repeats.shape[0] if repeats.dim() else 1, dtype=_C.dtype.int64, device=repeats.device)
    check_tensor("repeat_interleave", "input", input)
    if dim is None:
        input, dim = input.reshape([-1]), 0
    dim = wrap_dim("repeat_interleave", dim, input.dim())
    if input.dim() == 0:
        input = input.reshape([1])
    n = input.shape[dim]
    if isinstance(repeats, _Tensor):
        if repeats.dtype not in (_C.dtype.int64, _C.dtype.int32):
            raise RuntimeError(f"repeat_interleave: repeats must be an int64 or int32 tensor, got {repeats.dtype}")
        if repeats.dim() > 1:
            raise RuntimeError(f"repeat_interleave: repeats must be 0-d or 1-d, got {repeats.dim()} dims")
        if repeats.numel() == 1:
            repeats = builtins.int(repeats.item())
        else:
            if repeats.shape[0] != n:
                raise RuntimeError(
                    f"repeat_interleave: repeats must have the same size as input along dim, got {repeats.shape[0]} "
                    f"repeats for size {n}"
                )
            repeats = repeats.to(_C.dtype.int64)
            if n and builtins.bool((repeats < 0).sum().item()):
                raise RuntimeError("repeat_interleave: repeats can not be negative")
            total = (
                builtins.int(repeats.sum().item())
                if output_size is None
                else as_int("repeat_interleave", "output_size", output_size)
            )
            return input.index_select(dim, _interleave_index(repeats, total).to(repeats.device))
    repeats = as_int("repeat_interleave", "repeats", repeats)
    if repeats < 0:
        raise RuntimeError(f"repeat_interleave: repeats can not be negative, got {repeats}")
    shape = list(input.shape)
    expanded = shape[: dim + 1] + [repeats] + shape[dim + 1 :]
    merged = shape[:dim] + [n * repeats] + shape[dim + 1 :]
    return input.unsqueeze(dim + 1).expand(expanded).reshape(merged)


def _repeat_interleave_method(self, repeats, dim=None, *, output_size=None):
    return repeat_interleave(self, repeats, dim, output_size=output_size)  # repeats required: no one-argument form


_repeat_interleave_method.__name__ = _repeat_interleave_method.__qualname__ = "repeat_interleave"
_tile_method.__name__ = _tile_method.__qualname__ = "tile"


# ---- dims moved, swapped, split and joined
def unflatten(input, dim, sizes):
    check_tensor("unflatten", "input", input)
    d = wrap_dim("unflatten", dim, input.dim())
    sizes = int_sequence("unflatten", "sizes", (sizes,))
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    shape = list(input.shape)
    known = 1
    for s in sizes:
        known *= s if s != -1 else 1
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten: only one dimension can be inferred (-1)")
    if -1 not in sizes and known != shape[d] or -1 in sizes and (known == 0 or shape[d] % known):
        raise RuntimeError(
            f"unflatten: provided sizes {sizes} don't multiply up to the size of dim {dim} ({shape[d]}) in the input tensor"
        )
    return input.reshape(shape[:d] + sizes + shape[d + 1 :])


def movedim(input, source, destination):
    """source dims moved to destination positions, the other dims keeping their order."""
    check_tensor("movedim", "input", input)
    n = input.dim()
    src = wrap_dims("movedim", source, n, "source")
    dst = wrap_dims("movedim", destination, n, "destination")
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should contain the same "
            f"number of dims as destination ({list(dst)} dims)"
        )
    if n == 0:  # a 0-d tensor: dims 0 and -1 name the same nothing
        return input.permute([])
    order = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(n) if d not in src)
    return input.permute([next(rest) if o is None else o for o in order])


moveaxis = movedim


def swapaxes(input, axis0, axis1):
    check_tensor("swapaxes", "input", input)
    return input.transpose(axis0, axis1)


def swapdims(input, dim0, dim1):
    check_tensor("swapdims", "input", input)
    return input.transpose(dim0, dim1)


def broadcast_shapes(*shapes):
    """The shape tensors of these shapes broadcast to (ints stand for 1-d shapes)."""
    result = []
    for shape in shapes:
        shape = [shape] if not isinstance(shape, (list, tuple)) else list(shape)
        shape = [as_int("broadcast_shapes", "shape", s) for s in shape]
        if builtins.any(s < 0 for s in shape):
            raise ValueError(f"broadcast_shapes: attempting to broadcast a dimension with negative length: {shape}")
        if len(shape) > len(result):
            result = [1] * (len(shape) - len(result)) + result
        for i, s in enumerate(shape, start=len(result) - len(shape)):
            if s != result[i] and result[i] != 1 and s != 1:
                raise RuntimeError(
                    f"shape mismatch: objects cannot be broadcast to a single shape: size {result[i]} against size "
                    f"{s} at dim {i}"
                )
            if result[i] == 1:
                result[i] = s
    return tuple(result)


def broadcast_to(input, size):
    check_tensor("broadcast_to", "input", input)
    return input.expand(int_sequence("broadcast_to", "size", (size,)))


def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for i, t in enumerate(tensors):
        check_tensor("broadcast_tensors", f"tensors[{i}]", t)
    shape = list(broadcast_shapes(*[tuple(t.shape) for t in tensors]))
    return tuple(t.expand(shape) for t in tensors)


def rot90(input, k=1, dims=(0, 1)):
    """Rotation by k quarter turns in the plane of dims, from the first dim towards the second."""
    check_tensor("rot90", "input", input)
    k = as_int("rot90", "k", k)
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"rot90: expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"rot90: expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = wrap_dims("rot90", dims, input.dim(), "dims")
    k %= 4
    if k == 1:
        return input.flip([d1]).transpose(d0, d1)
    if k == 2:
        return input.flip([d0, d1])
    if k == 3:
        return input.flip([d0]).transpose(d0, d1)
    return input.clone()


def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 0-d or 1-d tensors: 'ij' (the default) gives dim i to tensors[i]; 'xy'
    swaps the first two dims (Cartesian). The results are expanded views, as PyTorch's."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for i, t in enumerate(tensors):
        check_tensor("meshgrid", f"tensors[{i}]", t)
    indexing = "ij" if indexing is None else as_str("meshgrid", "indexing", indexing)
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"meshgrid: indexing must be one of 'xy' or 'ij', got '{indexing}'")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"meshgrid: expected 0D or 1D tensor in the tensor list but got: {t.dim()}-D")
    if not tensors:
        raise RuntimeError("meshgrid: expects a non-empty TensorList")
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        tensors = (tensors[1], tensors[0], *tensors[2:])
    lengths = [t.numel() for t in tensors]
    grids = []
    for i, t in enumerate(tensors):
        shape = [1] * len(tensors)
        shape[i] = lengths[i]
        grids.append(t.reshape(shape).expand(lengths))
    if swap:  # back to the caller's order; the grids keep the swapped (Cartesian) layout
        grids = [grids[1], grids[0], *grids[2:]]
    return tuple(grids)


def tensor_split(input, indices_or_sections, dim=0):
    """Views of input split along dim: into n parts (the first size % n one longer), or at the given indices."""
    check_tensor("tensor_split", "input", input)
    if input.dim() == 0:
        raise RuntimeError("tensor_split: expected at least a 1-dimensional tensor")
    d = wrap_dim("tensor_split", dim, input.dim())
    size = input.shape[d]
    spec = indices_or_sections
    if isinstance(spec, _Tensor):
        if spec.dtype != _C.dtype.int64 or spec.dim() > 1:
            raise RuntimeError(
                f"tensor_split: indices_or_sections must be a 0-d or 1-d int64 tensor, got {spec.dim()}-d {spec.dtype}"
            )
        spec = spec.tolist()
    if isinstance(spec, (list, tuple)):
        bounds = [as_int("tensor_split", "indices", i) for i in spec]
        starts = [0] + bounds
        ends = bounds + [size]
    else:
        n = as_int("tensor_split", "sections", spec)
        if n <= 0:
            raise RuntimeError(f"tensor_split: number of sections must be larger than 0, got {n}")
        base, extra = divmod(size, n)
        lengths = [base + 1] * extra + [base] * (n - extra)
        starts = [builtins.sum(lengths[:i]) for i in range(n)]
        ends = [s + length for s, length in zip(starts, lengths)]
    parts = []
    for start, end in zip(starts, ends):
        start = builtins.min(builtins.max(start + size if start < 0 else start, 0), size)
        end = builtins.min(builtins.max(end + size if end < 0 else end, 0), size)
        parts.append(input.narrow(d, start, builtins.max(end - start, 0)))
    return tuple(parts)


def _split_accepting_sizes(split_fn):
    def split(tensor, split_size_or_sections, dim=0):
        if isinstance(split_size_or_sections, (list, tuple)):
            check_tensor("split", "tensor", tensor)
            sizes = [as_int("split", "split_size", s) for s in split_size_or_sections]
            return tensor.split_with_sizes(sizes, dim)
        return split_fn(tensor, split_size_or_sections, dim)

    return split


split = _split_accepting_sizes(_f.split)

# Both a function and a method; then what only one of them is, or where the two differ.
_BOTH = {
    name: globals()[name]
    for name in ("unflatten", "movedim", "moveaxis", "swapaxes", "swapdims", "broadcast_to", "rot90", "tensor_split")
}
METHODS = dict(
    _BOTH,
    repeat=repeat,
    tile=_tile_method,
    repeat_interleave=_repeat_interleave_method,
    split=_split_accepting_sizes(_Tensor.split),
)
FUNCTIONS = dict(
    _BOTH,
    tile=tile,
    repeat_interleave=repeat_interleave,
    broadcast_tensors=broadcast_tensors,
    broadcast_shapes=broadcast_shapes,
    meshgrid=meshgrid,
    split=split,
)
for _name, _fn in METHODS.items():
    setattr(_Tensor, _name, _fn)
del _name, _fn
