"""Replays hostile calls in this process, with a full traceback: python tests/hostile/replay.py ID [ID...]
[--seed S] [--calls N] (the seed and count of the run that listed the ids; defaults as test_hostile.py)."""

import argparse
import json
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runner  # noqa: E402
import test_hostile  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("ids", type=int, nargs="+")
    parser.add_argument("--seed", type=int, default=test_hostile.SEED)
    parser.add_argument("--calls", type=int, default=test_hostile.COUNT)
    parser.add_argument("--backend", default="glassbox", choices=("glassbox", "torch"))
    args = parser.parse_args()
    B = runner.Backend(args.backend)
    import numpy as np

    if args.backend == "torch":  # the call list comes from glassbox's registry, saved by a glassbox run
        calls = json.load(open(os.environ["GLASSBOX_HOSTILE_CALLS_FILE"]))
    else:
        calls = test_hostile.build_calls(B.lib, args.seed, args.calls)
    for i in args.ids:
        call = calls[i]
        print(json.dumps(call))
        fn = B.target(*call["target"])
        call_args = [runner.materialise(s, B, np) for s in call["args"]]
        kwargs = {k: runner.materialise(s, B, np) for k, s in call["kwargs"].items()}
        try:
            print("->", fn(*call_args, **kwargs))
        except BaseException:
            traceback.print_exc()


if __name__ == "__main__":
    main()
