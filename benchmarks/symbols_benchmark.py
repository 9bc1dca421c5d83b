#!/usr/bin/env python3
r"""`glassbox symbols` against `nm -C` on a library with as many symbols as libtorch_cpu.so.

Generates a shared library of ~540,000 tiny global functions whose names are realistic mangled
C++ names (nested namespaces, anonymous namespaces, templates, lambdas, operator handles), then
lists its demangled symbols with both tools in the same run and prints the times and their ratio.
A benchmark, not a test: it prints figures and checks only that both tools list the same names.

    benchmarks/symbols_benchmark.py [--symbols 540000] [--build-dir build/dev] [--repeat 3] [--check]
    benchmarks/symbols_benchmark.py --library .../torch/lib/libtorch_cpu.so

On a machine with only a compiler, CMake, Ninja, binutils (nm, as, ld) and Python 3 - no libdw,
libelf, libclang, Graphviz or nlohmann-json development files, no pkg-config - the tools alone
(glassbox_graphs, glassbox_introspect and the `glassbox` program; no engine, Python, tests or
benchmarks) are built against elfutils' headers and libraries copied from a machine that has them:

    # where libdw-dev, libelf-dev and nlohmann-json3-dev are installed (glibc >= 2.34 on the other
    # machine for Debian 12's libdw 0.188):
    benchmarks/symbols_benchmark.py --pack-prefix /tmp/glassbox-elfutils
    # copy the repository and /tmp/glassbox-elfutils over, then there:
    benchmarks/symbols_benchmark.py --build-tools /tmp/glassbox-elfutils --check

--build-tools PREFIX configures build/symbols-tools (or --build-dir) with

    PKG_CONFIG_PATH=PREFIX/lib/pkgconfig cmake -S . -B build/symbols-tools -G Ninja \
        -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=PREFIX -DGLASSBOX_BUILD_ENGINE=OFF -DGLASSBOX_CUDA=OFF \
        -DGLASSBOX_BUILD_PYTHON=OFF -DGLASSBOX_BUILD_TESTS=OFF -DGLASSBOX_BUILD_BENCHMARKS=OFF
    cmake --build build/symbols-tools --target glassbox

(CMake finds libdw through pkg-config when there is one, else on CMAKE_PREFIX_PATH; the source
scan and Graphviz rendering are reported off and built as stubs), checks that the configure
summary has the binary readers on, and then runs the benchmark with build/symbols-tools/bin/glassbox
and LD_LIBRARY_PATH=PREFIX/lib (libdw finds the compression libraries copied beside it there).
"""

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def source(name):
    return f"{len(name)}{name}"


def nested(*parts):
    return "N" + "".join(source(p) for p in parts) + "E"


TENSOR = nested("at", "Tensor")
SCALAR = nested("c10", "Scalar")
ITER = nested("at", "TensorIteratorBase")
CLASS_TYPES = [
    TENSOR,
    SCALAR,
    ITER,
    nested("c10", "Half"),
    nested("c10", "BFloat16"),
    nested("c10", "ScalarType"),
    nested("at", "native", "ReduceConfig"),
    "N3c108ArrayRefIlEE",
    "N3c108optionalIN2at6TensorEEE",
    "N3c108ArrayRefIN2at6TensorEEE",
    nested("c10", "TensorOptions"),
    nested("at", "Generator"),
]
BASIC = ["f", "d", "l", "b", "i", "m", "c"]
TEMPLATE_ARGS = [
    "f",
    "d",
    "l",
    "i",
    "h",
    "b",
    nested("c10", "Half"),
    nested("c10", "BFloat16"),
    "Li4E",
    "Li8E",
    "Lb1E",
    "Lb0E",
]
NAMESPACES = [
    ("at", "native"),
    ("at", "native", "_GLOBAL__N_1"),
    ("at", "native", "DEFAULT"),
    ("at", "vec", "AVX2"),
    ("at", "vec", "AVX512"),
    ("c10", "impl"),
    ("torch", "autograd", "generated"),
    ("torch", "jit"),
    ("at", "cpu"),
    ("at", "meta"),
    ("at", "functionalization"),
    ("torch", "autograd", "VariableType", "_GLOBAL__N_1"),
    ("at", "compositeexplicitautograd"),
    ("at", "native", "templates", "cpu"),
]
OPS = [
    "add",
    "sub",
    "mul",
    "div",
    "matmul",
    "addmm",
    "bmm",
    "conv2d",
    "softmax",
    "log_softmax",
    "sum",
    "mean",
    "max",
    "min",
    "argmax",
    "relu",
    "gelu",
    "sigmoid",
    "tanh",
    "exp",
    "log",
    "sqrt",
    "rsqrt",
    "pow",
    "where",
    "index_select",
    "gather",
    "scatter_add",
    "embedding",
    "layer_norm",
    "batch_norm",
    "dropout",
    "cat",
    "stack",
    "reshape",
    "view",
    "permute",
    "transpose",
    "expand",
    "clamp",
    "abs",
    "neg",
    "sin",
    "cos",
    "cumsum",
    "topk",
    "sort",
    "unique",
    "nonzero",
    "masked_fill",
    "copy",
    "fill",
    "zero",
    "linspace",
    "arange",
    "randn",
    "bernoulli",
    "upsample_bilinear2d",
    "max_pool2d",
    "avg_pool2d",
    "nll_loss",
    "cross_entropy",
    "mse_loss",
    "baddbmm",
]
VERBS = [
    "kernel",
    "kernel_impl",
    "out",
    "out_impl",
    "backward",
    "backward_out",
    "functional",
    "inplace",
    "meta",
    "cpu_kernel",
    "vectorized_loop",
    "reduce",
    "stub",
    "impl",
    "compute",
    "check",
    "default",
    "symint",
    "grad",
    "forward",
    "dispatch",
    "apply",
    "serial_kernel",
    "parallel_kernel",
]
OVERLOADS = ["Tensor", "Scalar", "out", "dim", "dim_IntList", "int", "self", "Tensor_out", "grad_input", "names"]


def param(rng):
    t = rng.random()
    if t < 0.55:
        return "RK" + rng.choice(CLASS_TYPES)
    if t < 0.7:
        return "R" + rng.choice(CLASS_TYPES)
    if t < 0.8:
        return rng.choice(CLASS_TYPES)
    return rng.choice(BASIC)


def params(rng, most=5):
    n = rng.randint(0, most)
    return "".join(param(rng) for _ in range(n)) or "v"


def function_name(rng):
    ns = rng.choice(NAMESPACES)
    name = f"{rng.choice(OPS)}_{rng.choice(VERBS)}"
    style = rng.random()
    if style < 0.12:  # an operator handle: at::_ops::<op>_<overload>::call / redispatch
        op = f"{rng.choice(OPS)}_{rng.choice(OVERLOADS)}{rng.randint(0, 99)}"
        member = rng.choice(["call", "redispatch"])
        extra = "N3c1014DispatchKeySetE" if member == "redispatch" else ""
        return "_Z" + nested("at", "_ops", op, member) + extra + params(rng, 4)
    if style < 0.35:  # a function template: template arguments, then the return type
        targs = "I" + "".join(rng.choice(TEMPLATE_ARGS) for _ in range(rng.randint(1, 3))) + "E"
        inner = "N" + "".join(source(p) for p in ns) + source(name) + targs + "E"
        return "_Z" + inner + rng.choice(["v", "b", TENSOR]) + params(rng)
    if style < 0.5:  # a lambda's call operator inside a kernel function
        outer = nested(*ns, name) + params(rng, 3)
        return f"_ZZ{outer}ENKUlvE{rng.choice(['_', '0_', '1_'])}clEv"
    if style < 0.62:  # a member function of a class template
        cls = rng.choice(["ReduceOp", "Vectorized", "TensorAccessor", "Loops", "BinaryOpScalar"])
        targs = "I" + "".join(rng.choice(TEMPLATE_ARGS) for _ in range(rng.randint(1, 2))) + "E"
        return "_ZN" + "".join(source(p) for p in ns) + source(cls) + targs + source(name) + "E" + params(rng)
    return "_Z" + nested(*ns, name) + params(rng)


def generate_names(count, seed=20261122):
    rng = random.Random(seed)
    names, seen = [], set()
    while len(names) < count:
        n = function_name(rng)
        if n in seen:
            continue
        seen.add(n)
        names.append(n)
    return names


def build_library(names, work):
    asm = os.path.join(work, "symbols.s")
    with open(asm, "w") as f:
        # One macro call per function keeps the file small: each name is written once.
        f.write(
            ".macro F name\n.globl \\name\n.type \\name,@function\n\\name: ret\n.size \\name,.-\\name\n.endm\n.text\n"
        )
        f.writelines(f"F {n}\n" for n in names)
    obj, lib = os.path.join(work, "symbols.o"), os.path.join(work, "libsymbols_benchmark.so")
    subprocess.run(["as", "--64", "-o", obj, asm], check=True)
    subprocess.run(["ld", "-shared", "--hash-style=gnu", "-o", lib, obj], check=True)
    return lib


ELFUTILS_HEADERS = ["libelf.h", "gelf.h", "nlist.h", "dwarf.h", "elfutils"]
PC_FILE = """prefix=${{pcfiledir}}/../..
libdir=${{prefix}}/lib
includedir=${{prefix}}/include

Name: {name}
Description: elfutils {name} (copied by benchmarks/symbols_benchmark.py --pack-prefix)
Version: {version}
Libs: -L${{libdir}} -l{lib}
Cflags: -I${{includedir}}
{requires}
"""


def pkg_config(*args):
    try:
        return subprocess.run(["pkg-config", *args], stdout=subprocess.PIPE, check=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def runtime_dependencies(library):
    """The shared libraries `library` loads (ldd), less the C library and the loader."""
    out = subprocess.run(["ldd", library], stdout=subprocess.PIPE, check=True, text=True).stdout
    deps = []
    for line in out.splitlines():
        parts = line.split("=>")
        if len(parts) != 2 or not parts[1].strip().startswith("/"):
            continue
        path = parts[1].split()[0]
        if not os.path.basename(path).startswith(("libc.so", "ld-linux", "libm.so", "libpthread.so")):
            deps.append(path)
    return deps


def pack_prefix(prefix):
    """Copies elfutils' (libdw, libelf) headers and libraries, the libraries they load, and
    nlohmann-json's headers and CMake package into `prefix`, with relocatable .pc files."""
    includedir = pkg_config("--variable=includedir", "libdw") or "/usr/include"
    libdir = pkg_config("--variable=libdir", "libdw")
    version = pkg_config("--modversion", "libdw") or "0"
    if not libdir or not os.path.exists(os.path.join(includedir, "elfutils", "libdw.h")):
        sys.exit("symbols_benchmark: --pack-prefix needs libdw-dev and libelf-dev (pkg-config libdw found nothing)")
    json_dir = next(
        (d for d in ("/usr/include", "/usr/local/include") if os.path.exists(os.path.join(d, "nlohmann", "json.hpp"))),
        "",
    )
    json_cmake = next(
        (
            d
            for d in (
                "/usr/share/cmake/nlohmann_json",
                "/usr/lib/cmake/nlohmann_json",
                os.path.join(libdir, "cmake", "nlohmann_json"),
            )
            if os.path.isdir(d)
        ),
        "",
    )
    if not json_dir or not json_cmake:
        sys.exit("symbols_benchmark: --pack-prefix needs nlohmann-json3-dev (nlohmann/json.hpp and its CMake package)")
    inc, lib, pc = (os.path.join(prefix, d) for d in ("include", "lib", os.path.join("lib", "pkgconfig")))
    for d in (inc, lib, pc):
        os.makedirs(d, exist_ok=True)
    for h in ELFUTILS_HEADERS:
        src = os.path.join(includedir, h)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(inc, h), dirs_exist_ok=True)
        elif os.path.exists(src):
            shutil.copy2(src, inc)
    shutil.copytree(os.path.join(json_dir, "nlohmann"), os.path.join(inc, "nlohmann"), dirs_exist_ok=True)
    shutil.copytree(json_cmake, os.path.join(prefix, "share", "cmake", "nlohmann_json"), dirs_exist_ok=True)
    copied = set()
    for name in ("dw", "elf"):
        real = os.path.realpath(os.path.join(libdir, f"lib{name}.so"))
        for path in [real] + runtime_dependencies(real):
            real_path = os.path.realpath(path)
            soname = os.path.basename(path) if path != real else f"lib{name}.so.1"
            if soname in copied:
                continue
            copied.add(soname)
            shutil.copy2(real_path, os.path.join(lib, soname))
        link = os.path.join(lib, f"lib{name}.so")
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(f"lib{name}.so.1", link)
    with open(os.path.join(pc, "libelf.pc"), "w") as f:
        f.write(PC_FILE.format(name="libelf", lib="elf", version=version, requires=""))
    with open(os.path.join(pc, "libdw.pc"), "w") as f:
        f.write(PC_FILE.format(name="libdw", lib="dw", version=version, requires=f"Requires: libelf = {version}"))
    print(f"{prefix}: elfutils {version} headers and libraries ({', '.join(sorted(copied))}), nlohmann-json")
    print(f"build the tools with it: benchmarks/symbols_benchmark.py --build-tools {prefix}")


def build_tools(prefix, build_dir):
    """Configures and builds only the `glassbox` program (no engine, Python, tests or benchmarks)
    against the elfutils in `prefix`; returns the program's path."""
    prefix = os.path.abspath(prefix)
    env = dict(os.environ)
    env["PKG_CONFIG_PATH"] = os.pathsep.join(
        p for p in (os.path.join(prefix, "lib", "pkgconfig"), env.get("PKG_CONFIG_PATH", "")) if p
    )
    configure = [
        "cmake",
        "-S",
        REPO,
        "-B",
        build_dir,
        "-G",
        "Ninja",
        "-DCMAKE_BUILD_TYPE=Release",
        f"-DCMAKE_PREFIX_PATH={prefix}",
        "-DGLASSBOX_BUILD_ENGINE=OFF",
        "-DGLASSBOX_CUDA=OFF",
        "-DGLASSBOX_BUILD_PYTHON=OFF",
        "-DGLASSBOX_BUILD_TESTS=OFF",
        "-DGLASSBOX_BUILD_BENCHMARKS=OFF",
    ]
    print("+ " + " ".join(configure), flush=True)
    summary = subprocess.run(configure, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(summary.stdout)
    if summary.returncode != 0:
        sys.exit("symbols_benchmark: configuring the tools failed (above)")
    if not re.search(r"binary readers \(elfutils\)\s+ON\b", summary.stdout):
        sys.exit(
            f"symbols_benchmark: the configure did not find libdw/libelf in {prefix} "
            "(make it with --pack-prefix on a machine that has libdw-dev)"
        )
    build = ["cmake", "--build", build_dir, "--target", "glassbox"]
    print("+ " + " ".join(build), flush=True)
    subprocess.run(build, env=env, check=True)
    # libdw loads the copied libz/liblzma/libbz2 itself: the program's RUNPATH does not reach them.
    os.environ["LD_LIBRARY_PATH"] = os.pathsep.join(
        p for p in (os.path.join(prefix, "lib"), os.environ.get("LD_LIBRARY_PATH", "")) if p
    )
    return os.path.join(build_dir, "bin", "glassbox")


def best_time(argv, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        with open(os.devnull, "wb") as null:
            subprocess.run(argv, stdout=null, check=True)
        best = min(best, time.perf_counter() - start)
    return best


def listed_names(argv, name_at):
    out = subprocess.run(argv, stdout=subprocess.PIPE, check=True, text=True).stdout
    return sorted(line[name_at:] for line in out.splitlines() if line)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--symbols", type=int, default=540_000)
    p.add_argument("--build-dir", default=os.environ.get("GLASSBOX_BUILD_DIR", os.path.join(REPO, "build", "dev")))
    p.add_argument("--repeat", type=int, default=3, help="runs of each tool; the best is reported")
    p.add_argument("--keep", help="write the generated library here and keep it")
    p.add_argument("--check", action="store_true", help="also check that both tools list the same names")
    p.add_argument("--library", help="time this library (e.g. libtorch_cpu.so) instead of generating one")
    p.add_argument(
        "--pack-prefix",
        metavar="DIR",
        help="copy elfutils and nlohmann-json (headers, libraries) "
        "into DIR for --build-tools on another machine, and stop",
    )
    p.add_argument(
        "--build-tools",
        metavar="PREFIX",
        help="first build only the glassbox program against the "
        "elfutils in PREFIX (from --pack-prefix), in --build-dir (default build/symbols-tools)",
    )
    args = p.parse_args()

    if args.pack_prefix:
        pack_prefix(os.path.abspath(args.pack_prefix))
        return 0
    if args.build_tools:
        build_dir = args.build_dir if "--build-dir" in sys.argv else os.path.join(REPO, "build", "symbols-tools")
        glassbox = build_tools(args.build_tools, os.path.abspath(build_dir))
    else:
        glassbox = os.path.join(args.build_dir, "bin", "glassbox")
    for tool in (glassbox, shutil.which("nm"), shutil.which("as"), shutil.which("ld")):
        if not tool or not os.path.exists(tool):
            sys.exit(f"symbols_benchmark: needs {tool or 'nm, as and ld'} (build glassbox first)")
    work = args.keep or tempfile.mkdtemp(prefix="glassbox-symbols-")
    os.makedirs(work, exist_ok=True)
    try:
        t0 = time.perf_counter()
        if args.library:
            lib, what = args.library, "given"
        else:
            names = generate_names(args.symbols)
            lib = build_library(names, work)
            what = f"{len(names):,} functions generated"
        t1 = time.perf_counter()
        with open(lib, "rb") as f:  # into the page cache before anything is timed
            size = len(f.read())
        print(f"library: {lib}: {what}, {size / 2**20:.1f} MiB, in {t1 - t0:.1f} s")
        print(f"cores:   {os.cpu_count()}")

        nm = best_time(["nm", "-C", lib], args.repeat)
        ours = best_time([glassbox, "symbols", lib], args.repeat)
        print(f"nm -C:             {nm:7.3f} s")
        print(f"glassbox symbols:  {ours:7.3f} s")
        print(f"speed-up:          {nm / ours:7.1f}x")
        if args.check:
            a = listed_names(["nm", "-C", lib], 19)  # "address T name"
            b = listed_names([glassbox, "symbols", lib], 28)  # "address size T name"
            same = a == b
            print(f"same names listed: {same} ({len(a):,} by nm, {len(b):,} by glassbox)")
            if not same:
                return 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
