"""python -m glassbox.profiler script.py [args...] -o trace.json

Runs a Python script under gb.profiler (shapes and memory recorded; CUDA activity too where it
can be recorded), writes the Chrome trace, and prints the operator table."""

import argparse
import runpy
import sys

from . import _P, ProfilerActivity, profile


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m glassbox.profiler", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("-o", "--output", default="trace.json", help="the Chrome trace to write (default trace.json)")
    p.add_argument("--sort-by", default="self_cpu_time_total", help="the table's order")
    p.add_argument("--row-limit", type=int, default=20)
    p.add_argument("--with-stack", action="store_true", help="keep the Python stack of each top-level call")
    p.add_argument("script")
    p.add_argument("args", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    activities = [ProfilerActivity.CPU]
    if not _P.cuda_unavailable_reason():
        activities.append(ProfilerActivity.CUDA)
    sys.argv = [a.script] + a.args
    prof = profile(activities=activities, record_shapes=True, profile_memory=True, with_stack=a.with_stack)
    with prof:
        runpy.run_path(a.script, run_name="__main__")
    prof.export_chrome_trace(a.output)
    print(prof.key_averages().table(sort_by=a.sort_by, row_limit=a.row_limit))
    print(f"trace: {a.output} (open it in https://ui.perfetto.dev or chrome://tracing)")


if __name__ == "__main__":
    main()
