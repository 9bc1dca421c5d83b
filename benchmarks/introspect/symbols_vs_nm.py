#!/usr/bin/env python3
r"""`glassbox symbols` and `nm -C` side by side on the PyPI torch wheel's libtorch_cpu.so.

Lists the demangled symbols of the library with both tools, glassbox on one thread and on all
threads, best of --repeat runs each (output to /dev/null, the file already in the page cache), and
prints the wall-clock and CPU (user + system) times and their ratios to nm. A benchmark, not a test: it prints figures; --check also
compares the names both list.

    benchmarks/introspect/symbols_vs_nm.py [--glassbox build/dev/bin/glassbox] [--repeat 3] [--check]
    benchmarks/introspect/symbols_vs_nm.py --library path/to/libtorch_cpu.so

On a machine without glassbox's libraries (elfutils, libiberty), build one static program here and
copy it there (it needs nothing on the host; libclang, Capstone and Graphviz are left out):

    cmake -S . -B build/portable -G Ninja -DCMAKE_BUILD_TYPE=Release -DGLASSBOX_PORTABLE_CLI=ON
    ninja -C build/portable bin/glassbox
    benchmarks/introspect/symbols_vs_nm.py --glassbox build/portable/bin/glassbox --library .../libtorch_cpu.so

Without --library the wheel is fetched with `pip download torch --no-deps` into
~/.cache/glassbox/wheels (or $GLASSBOX_CACHE_DIR/wheels) once, and only torch/lib/libtorch_cpu.so
is unpacked from it.
"""

import argparse
import glob
import os
import resource
import shutil
import subprocess
import sys
import time
import zipfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cache_dir():
    if os.environ.get("GLASSBOX_CACHE_DIR"):
        return os.environ["GLASSBOX_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "glassbox")


def torch_library(name="libtorch_cpu.so"):
    wheels = os.path.join(cache_dir(), "wheels")
    os.makedirs(wheels, exist_ok=True)
    found = sorted(glob.glob(os.path.join(wheels, "torch-*.whl")))
    if not found:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "torch", "--no-deps", "--only-binary=:all:", "-d", wheels],
            check=True,
        )
        found = sorted(glob.glob(os.path.join(wheels, "torch-*.whl")))
    if not found:
        sys.exit("symbols_vs_nm: pip download torch gave no wheel")
    wheel = found[-1]
    unpacked = os.path.join(wheels, os.path.basename(wheel)[: -len(".whl")])
    lib = os.path.join(unpacked, "torch", "lib", name)
    if not os.path.exists(lib):
        zipfile.ZipFile(wheel).extract(f"torch/lib/{name}", unpacked)
    return lib


def best_time(argv, repeat):
    """The best wall-clock seconds and the best CPU seconds (user + system) of `repeat` runs: on a
    machine shared with other work the CPU time is the steadier figure."""
    best, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        with open(os.devnull, "wb") as null:
            subprocess.run(argv, stdout=null, check=True)
        best = min(best, time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best_cpu = min(best_cpu, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return best, best_cpu


def names(argv, column):
    out = subprocess.run(argv, stdout=subprocess.PIPE, check=True).stdout.decode("utf-8", "replace")
    return sorted(line[column:] for line in out.splitlines() if line)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--glassbox",
        default=os.path.join(
            os.environ.get("GLASSBOX_BUILD_DIR", os.path.join(REPO, "build", "dev")), "bin", "glassbox"
        ),
    )
    p.add_argument("--library", help="the library to list (default: libtorch_cpu.so of the torch wheel)")
    p.add_argument("--repeat", type=int, default=3, help="runs of each; the best is printed")
    p.add_argument("--check", action="store_true", help="also compare the names both tools list")
    args = p.parse_args()
    nm = shutil.which("nm")
    if not nm or not os.path.exists(args.glassbox):
        sys.exit(f"symbols_vs_nm: needs nm and {args.glassbox} (build the glassbox target, or pass --glassbox)")
    lib = args.library or torch_library()
    with open(lib, "rb") as f:  # into the page cache before anything is timed
        while f.read(1 << 24):
            pass
    cores = len(os.sched_getaffinity(0))
    version = subprocess.run([nm, "--version"], stdout=subprocess.PIPE, text=True).stdout.splitlines()[0]
    print(f"library: {lib} ({os.path.getsize(lib) / 2**20:.0f} MiB)")
    print(f"nm:      {version}; cores: {cores}; best of {args.repeat}")

    (t_nm, c_nm) = best_time([nm, "-C", lib], args.repeat)
    (t_one, c_one) = best_time([args.glassbox, "symbols", "--threads", "1", lib], args.repeat)
    (t_all, c_all) = best_time([args.glassbox, "symbols", "--threads", str(cores), lib], args.repeat)
    print(f"{'':30}{'wall s':>8}{'vs nm -C':>10}{'CPU s':>8}{'vs nm -C':>10}")
    rows = [
        ("nm -C", t_nm, c_nm),
        ("glassbox symbols, 1 thread", t_one, c_one),
        (f"glassbox symbols, {cores} threads", t_all, c_all),
    ]
    for name, wall, cpu in rows:
        print(f"{name:30}{wall:8.3f}{t_nm / wall:9.2f}x{cpu:8.3f}{c_nm / cpu:9.2f}x")
    if args.check:
        a = names([nm, "-C", lib], 19)  # "address T name"
        b = names([args.glassbox, "symbols", lib], 28)  # "address size T name"
        print(f"same names: {a == b} ({len(a):,} from nm -C, {len(b):,} from glassbox)")
        return 0 if a == b else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
