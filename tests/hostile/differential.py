"""Differential mode of the hostile-input test: the same seeded calls, run once with glassbox and once with
PyTorch (in another interpreter that has torch), compared call by call and reported grouped by pattern.

    PYTHONPATH=python python tests/hostile/differential.py [--calls N] [--seed S] [--torch-python PY] [--json F]

Run it with the interpreter that imports glassbox; --torch-python names one that imports torch (default: the
GLASSBOX_TORCH_PYTHON environment variable, else ~/.cache/glassbox/torch-venv-cp311/bin/python). PyTorch runs
on the CPU. A call's counterpart is torch.ops.aten.<op>.<overload>, torch.<fn>, torch.Tensor.<method> or
torch.nn.functional.<fn>. Categories: both accepted but the value, shape or dtype differs; accepted by one and
refused by the other; both refused with different exception classes; no PyTorch counterpart. Random
operators are compared on shape and dtype only. Not part of ctest: it needs PyTorch and takes minutes.
"""

import argparse
import collections
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calls as hostile_calls  # noqa: E402
import runner  # noqa: E402

TOLERANCE = {"float16": (1e-2, 1e-3), "bfloat16": (2e-2, 1e-2), "float32": (1e-4, 1e-5), "float64": (1e-7, 1e-9)}


def base_name(target):
    return target[1].split(".")[0]


def argument_kinds(call):
    """A short description of the arguments, for the pattern key: tensor dtypes/layouts and odd values."""
    words = set()

    def visit(spec):
        tag = spec[0]
        if tag == "T":
            shape, dtype, fill, layout = spec[1], spec[2], spec[3], spec[4]
            words.add(dtype)
            if not shape:
                words.add("0-d")
            elif 0 in shape:
                words.add("empty")
            if layout != "contiguous":
                words.add(layout)
            if fill in ("special", "large"):
                words.add(fill)
        elif tag == "L":
            for s in spec[1]:
                visit(s)
        elif tag in ("I", "F", "O", "N"):
            words.add({"I": "big-int", "F": "nan/inf", "O": "wrong-type", "N": "None"}[tag])

    for s in call["args"]:
        visit(s)
    for s in call["kwargs"].values():
        visit(s)
    return " ".join(sorted(words))


def compare_values(a, b, random_op):
    """What differs between two result summaries: None, "shape", "dtype", "value", "kind"."""
    if "seq" in a or "seq" in b:
        if "seq" not in a or "seq" not in b or a["len"] != b["len"]:
            return "kind"
        for x, y in zip(a["seq"], b["seq"]):
            why = compare_values(x, y, random_op)
            if why:
                return why
        return None
    if "shape" in a or "shape" in b:
        if "shape" not in a or "shape" not in b:
            return "kind"
        if a["shape"] != b["shape"]:
            return "shape"
        if a["dtype"] != b["dtype"]:
            return "dtype"
        if random_op or "values" not in a or "values" not in b:
            return None
        rtol, atol = TOLERANCE.get(a["dtype"], (0, 0))
        for x, y in zip(a["values"], b["values"]):
            if x is None or y is None:
                if (x is None) != (y is None):
                    return "value"
            elif x != y and not (math.isinf(x) and x == y):
                if math.isinf(x) or math.isinf(y) or abs(x - y) > atol + rtol * abs(y):
                    return "value"
        return None
    if "scalar" in a and "scalar" in b:
        x, y = a["scalar"], b["scalar"]
        if isinstance(x, float) and isinstance(y, float) and not random_op:
            return None if abs(x - y) <= 1e-5 + 1e-4 * abs(y) else "value"
        return None if x == y or random_op else "value"
    return None if a == b else "kind"


def classify(call, mine, theirs):
    """(category, detail) of one call, or None when both agree."""
    if mine["outcome"] in ("crash", "hang"):
        return "glassbox " + mine["outcome"], mine["error"]
    if theirs["outcome"] == "setup":
        return "no PyTorch counterpart" if theirs["error"] == "AttributeError" else "PyTorch setup failed", theirs[
            "message"
        ][:80]
    if mine["outcome"] == "setup":
        return "glassbox setup failed", mine["message"][:80]
    if theirs["outcome"] in ("crash", "hang"):
        return "PyTorch " + theirs["outcome"], theirs["error"]
    if mine["outcome"] == "ok" and theirs["outcome"] == "ok":
        why = compare_values(mine["result"], theirs["result"], base_name(call["target"]) in runner.RANDOM_TARGETS)
        return ("both accepted, different " + why, "") if why else None
    if mine["outcome"] == "ok":
        return "glassbox accepted, PyTorch refused", theirs["error"] + ": " + theirs["message"][:80]
    if theirs["outcome"] == "ok":
        return "PyTorch accepted, glassbox refused", mine["error"] + ": " + mine["message"][:80]
    if mine["error"] != theirs["error"]:
        return "both refused, different class", "%s vs PyTorch %s" % (mine["error"], theirs["error"])
    return None


def default_torch_python():
    return os.environ.get("GLASSBOX_TORCH_PYTHON", os.path.expanduser("~/.cache/glassbox/torch-venv-cp311/bin/python"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--torch-python", default=default_torch_python())
    parser.add_argument("--json", help="write every call and both outcomes here")
    parser.add_argument("--patterns", type=int, default=40, help="patterns listed per category")
    args = parser.parse_args()

    import glassbox as gb

    calls = hostile_calls.generate(hostile_calls.discover(gb), args.seed, args.calls)
    mine = runner.run_calls(calls, "glassbox", workers=args.workers)
    torch_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
    theirs = runner.run_calls(calls, "torch", python=args.torch_python, env=torch_env, workers=args.workers)

    categories = collections.Counter()
    patterns = collections.defaultdict(collections.Counter)
    examples = {}
    torch_errors = collections.Counter(t["error"] for t in theirs if t["outcome"] == "raise")
    for call, m, t in zip(calls, mine, theirs):
        verdict = classify(call, m, t)
        if not verdict:
            categories["agree"] += 1
            continue
        category, detail = verdict
        categories[category] += 1
        key = (
            "%s %s" % tuple(call["target"]),
            argument_kinds(call) if category.startswith("both accepted") else detail,
        )
        patterns[category][key] += 1
        examples.setdefault((category, key), call["id"])

    print("differential: seed %d, %d calls; PyTorch's error classes: %s" % (args.seed, len(calls), dict(torch_errors)))
    for category, count in sorted(categories.items(), key=lambda kv: -kv[1]):
        n_patterns = len(patterns[category]) if category != "agree" else 0
        print("  %-42s %6d calls  %4d patterns" % (category, count, n_patterns))
    for category in sorted(patterns, key=lambda c: -categories[c]):
        if category == "no PyTorch counterpart":
            continue
        print("\n== %s (%d calls, %d patterns)" % (category, categories[category], len(patterns[category])))
        for (target, detail), count in patterns[category].most_common(args.patterns):
            print(
                "  %4d  %-40s %-60s e.g. id %d" % (count, target, detail[:60], examples[(category, (target, detail))])
            )
    missing = sorted({t for t, _ in patterns["no PyTorch counterpart"]})
    if missing:
        print("\nno PyTorch counterpart: " + ", ".join(missing))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "calls": calls, "glassbox": mine, "torch": theirs}, f)


if __name__ == "__main__":
    main()
