"""The hostile-input test: every registered operator and every public function, method and nn.functional entry,
called with seeded hostile arguments (odd and empty shapes, 0-d tensors, every dtype, transposed, strided and
expanded views, NaN/inf, huge and overflowing integers, wrong types, None, bad dims) in child processes.

It fails on any crash (a signal or an unexpected exit), hang (no answer within the per-call limit), SystemError,
or an exception of a class PyTorch does not raise for bad arguments (runner.ALLOWED_ERRORS), and prints the
failures grouped by target and error. Knobs (environment): GLASSBOX_HOSTILE_CALLS (default 50000, sized for the
test command's 3-minute budget on 2 cores), GLASSBOX_HOSTILE_SEED (default 17), GLASSBOX_HOSTILE_WORKERS (2).
Replay one failing call by its id:  python tests/hostile/replay.py ID  (same seed and count).
differential.py replays the same calls against PyTorch and reports where the two disagree.
"""

import collections
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calls as hostile_calls  # noqa: E402
import runner  # noqa: E402

SEED = int(os.environ.get("GLASSBOX_HOSTILE_SEED", "17"))
COUNT = int(os.environ.get("GLASSBOX_HOSTILE_CALLS", "50000"))
WORKERS = int(os.environ.get("GLASSBOX_HOSTILE_WORKERS", "2"))


def build_calls(gb, seed=SEED, count=COUNT):
    return hostile_calls.generate(hostile_calls.discover(gb), seed, count)


def huge(call):
    """True when an argument is a tensor of 2**32 elements (a zero-stride view)."""
    return any(s[0] == "T" and s[4] == "huge_expanded" for s in [*call["args"], *call["kwargs"].values()])


def failure_of(call, result):
    """Why a result fails the test, or None. Python itself runs out of memory (MemoryError) building a list or
    string of 2**32 elements, as it would with PyTorch."""
    if result["outcome"] in ("crash", "hang"):
        return result["outcome"] + " (" + result["error"] + ")"
    if result["outcome"] == "raise" and (result["error"] == "SystemError" or not result["allowed"]):
        if result["error"] == "MemoryError" and huge(call):
            return None
        return "raised " + result["error"]
    return None


def grouped_report(calls, results):
    groups = collections.defaultdict(list)
    for call, result in zip(calls, results):
        why = failure_of(call, result)
        if why:
            groups[(why, "%s %s" % tuple(call["target"]))].append((call, result))
    lines = []
    for (why, target), items in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        call, result = items[0]
        lines.append(
            "%-34s %-44s %4d call(s), e.g. id %d: %s"
            % (why, target, len(items), call["id"], (result.get("message") or "")[:100])
        )
    return lines


def test_hostile_calls_neither_crash_nor_hang_nor_raise_odd_errors():
    import glassbox as gb

    calls = build_calls(gb)
    targets = {tuple(c["target"]) for c in calls}
    assert len(targets) > 500, "discovery found only %d targets" % len(targets)
    results = runner.run_calls(calls, workers=WORKERS)
    outcomes = collections.Counter(r["outcome"] for r in results)
    print("hostile calls: seed %d, %d calls over %d targets: %s" % (SEED, len(calls), len(targets), dict(outcomes)))
    # Most calls must reach the engine: a generator whose arguments never fit tests nothing.
    assert outcomes["ok"] > len(calls) // 4, outcomes
    assert outcomes["setup"] < len(calls) // 50, outcomes
    report = grouped_report(calls, results)
    if report:
        pytest.fail(
            "%d group(s) of hostile calls failed (seed %d, %d calls):\n%s"
            % (len(report), SEED, len(calls), "\n".join(report)),
            pytrace=False,
        )
