"""einsum over permute, reshape, diagonal, sum and bmm.

The equation is parsed into one label list per operand ('...' becomes labels of its own, aligned from
the right so that ellipsis dims broadcast). Each operand first loses its repeated labels (a diagonal)
and the labels no other operand nor the output needs (a sum); the operands are then contracted left
to right, each pair as one batched matrix product: shared labels still needed are the batch, shared
labels not needed any more are the contracted dim. Matrix-like equations therefore cost one bmm."""

import builtins

from . import _C
from ._composite_args import check_tensor, is_floating
from ._diagonals import diagonal

_f = _C._functions


def _parse(equation, operands):
    equation = equation.replace(" ", "")
    if "->" in equation:
        lhs, rhs = equation.split("->", 1)
        if "->" in rhs:
            raise RuntimeError("einsum(): more than one '->' in the equation")
    else:
        lhs, rhs = equation, None
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError(
            "einsum(): more operands were provided than specified in the equation"
            if len(operands) > len(terms)
            else "einsum(): fewer operands were provided than specified in the equation"
        )
    ellipsis_dims = 0
    labels = []
    for i, (term, op) in enumerate(zip(terms, operands)):
        letters = term.replace("...", "")
        if not builtins.all(c.isalpha() and c.isascii() for c in letters) or term.count("...") > 1:
            raise RuntimeError(f"einsum(): invalid subscript in operand {i}: '{term}' (letters and one '...' only)")
        if "..." in term:
            covered = op.dim() - len(letters)
            if covered < 0:
                raise RuntimeError(
                    f"einsum(): the number of subscripts in the equation ({len(letters)}) is more than the number "
                    f"of dimensions ({op.dim()}) for operand {i}"
                )
            ellipsis_dims = builtins.max(ellipsis_dims, covered)
            head, tail = term.split("...")
            labels.append(list(head) + [("...", covered - k) for k in range(covered)] + list(tail))
        else:
            if len(letters) != op.dim():
                raise RuntimeError(
                    f"einsum(): the number of subscripts in the equation ({len(letters)}) does not match the number "
                    f"of dimensions ({op.dim()}) for operand {i} and no ellipsis was given"
                )
            labels.append(list(term))
    ellipsis = [("...", ellipsis_dims - k) for k in range(ellipsis_dims)]
    if rhs is None:
        counts = {}
        for ls in labels:
            for label in ls:
                counts[label] = counts.get(label, 0) + 1
        output = ellipsis + sorted(label for label, n in counts.items() if n == 1 and isinstance(label, str))
    else:
        letters = rhs.replace("...", "")
        if not builtins.all(c.isalpha() and c.isascii() for c in letters) or rhs.count("...") > 1:
            raise RuntimeError(f"einsum(): invalid subscript in the output: '{rhs}'")
        if len(set(letters)) != len(letters):
            raise RuntimeError(f"einsum(): output subscript '{rhs}' names a label more than once")
        head, _, tail = rhs.partition("...")
        output = list(head) + (ellipsis if "..." in rhs else []) + list(tail)
        present = {label for ls in labels for label in ls}
        for label in letters:
            if label not in present:
                raise RuntimeError(
                    f"einsum(): output subscript {label} does not appear in the equation for any input operand"
                )
    return labels, output


def _without_repeats(op, labels):
    """Repeated labels of one operand become one dim (their diagonal, at the end)."""
    while True:
        seen = {}
        for i, label in enumerate(labels):
            if label in seen:
                j = seen[label]
                if op.shape[i] != op.shape[j]:
                    raise RuntimeError(
                        f"einsum(): subscript {label} is repeated for operand but the sizes don't match, "
                        f"{op.shape[j]} != {op.shape[i]}"
                    )
                op = diagonal(op, 0, j, i)
                labels = [lb for k, lb in enumerate(labels) if k not in (i, j)] + [label]
                break
            seen[label] = i
        else:
            return op, labels


def _sum_out(op, labels, needed):
    dims = [i for i, label in enumerate(labels) if label not in needed]
    if not dims:
        return op, labels
    return op.sum(dims), [label for label in labels if label in needed]


def _sizes(op, labels):
    return dict(zip(labels, op.shape))


def _contract(a, la, b, lb, needed):
    """a and b multiplied and summed over their shared labels that are not needed later."""
    sa, sb = _sizes(a, la), _sizes(b, lb)
    batch = [lbl for lbl in la if lbl in sb and lbl in needed]
    summed = [lbl for lbl in la if lbl in sb and lbl not in needed]
    only_a = [lbl for lbl in la if lbl not in sb]
    only_b = [lbl for lbl in lb if lbl not in sa]
    for lbl in batch + summed:
        if sa[lbl] != sb[lbl] and 1 not in (sa[lbl], sb[lbl]):
            raise RuntimeError(
                f"einsum(): operands do not broadcast with remapped shapes: subscript {lbl} has sizes {sa[lbl]} "
                f"and {sb[lbl]}"
            )
    size = {lbl: builtins.max(sa.get(lbl, 1), sb.get(lbl, 1)) for lbl in batch + summed}
    size.update({lbl: sa[lbl] for lbl in only_a})
    size.update({lbl: sb[lbl] for lbl in only_b})

    def arranged(t, labels, order):
        t = t.permute([labels.index(lbl) for lbl in order])
        return t.expand([size[lbl] for lbl in order])

    def prod(order):
        n = 1
        for lbl in order:
            n *= size[lbl]
        return n

    a = arranged(a, la, batch + only_a + summed)
    b = arranged(b, lb, batch + summed + only_b)
    shape = [size[lbl] for lbl in batch + only_a + only_b]
    if is_floating(a):
        a = a.reshape([prod(batch), prod(only_a), prod(summed)])
        b = b.reshape([prod(batch), prod(summed), prod(only_b)])
        result = _f.bmm(a, b).reshape(shape)
    else:  # no integer matrix product: broadcast, multiply, sum
        nb, na, ns, nn = len(batch), len(only_a), len(summed), len(only_b)
        a = a.reshape(list(a.shape[: nb + na]) + [1] * nn + list(a.shape[nb + na :]))
        b = b.permute(list(range(nb)) + list(range(nb + ns, nb + ns + nn)) + list(range(nb, nb + ns)))
        b = b.reshape(list(b.shape[:nb]) + [1] * na + list(b.shape[nb:]))
        product = a * b
        result = product.sum(list(range(nb + na + nn, nb + na + nn + ns))) if ns else product
        result = result.reshape(shape).to(product.dtype)  # a contraction keeps the dtype, as a matmul
    return result, batch + only_a + only_b


def einsum(equation, *operands):
    """Sums of products of operands' elements named by subscripts: einsum('ij,jk->ik', a, b) is a @ b,
    'ii->' a trace, 'bij,bjk->bik' a batched product, '...ij->...ji' a transpose of the last dims.
    Without '->' the output holds the labels used once, in alphabetical order, after the ellipsis dims."""
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' must be str, not {type(equation).__name__}")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    for i, op in enumerate(operands):
        check_tensor("einsum", f"operands[{i}]", op)
    if len({op.dtype for op in operands}) > 1:
        raise RuntimeError(
            "einsum(): operands must have the same dtype, got " + ", ".join(str(op.dtype) for op in operands)
        )
    labels, output = _parse(equation, operands)
    ops = []
    for op, ls in zip(operands, labels):
        ops.append(_without_repeats(op, ls))
    result, result_labels = None, None
    for i, (op, ls) in enumerate(ops):
        needed = set(output)
        for _, later in ops[i + 1 :]:
            needed.update(later)
        if result is not None:
            needed_here = needed | set(result_labels)
            op, ls = _sum_out(op, ls, needed_here)
            result, result_labels = _contract(result, result_labels, op, ls, needed)
        else:
            result, result_labels = _sum_out(op, ls, needed)
    result, result_labels = _sum_out(result, result_labels, set(output))
    return result.permute([result_labels.index(lbl) for lbl in output])


FUNCTIONS = {"einsum": einsum}
