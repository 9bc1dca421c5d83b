"""Real PyTorch's operator registry, read live, for `glassbox ops --torch`.

Run as a script (it imports neither glassbox nor anything outside the standard library until it
imports torch), so that the `glassbox` CLI can run it in a child process with a time limit:

    python introspect_torch.py live [--ops REGEX]     # the registry as glassbox-registry JSON
    python introspect_torch.py live --torch-dir DIR   # the same; without `import torch` if it fails
    python introspect_torch.py prepare [--cache DIR]  # fetch the PyPI wheel, make a venv, print paths

`live` reads every operator through PyTorch's own dump functions (torch._C._dispatch_dump and
_dispatch_dump_table: the kernels per dispatch key with their `registered at FILE:LINE`, and the
computed dispatch table) and writes them in the format glassbox's registry uses
(registry/registry_dump.cpp), so that the same table, graph and JSON come out for both.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile

DEFAULT_CACHE = os.path.join(os.path.expanduser("~"), ".cache", "glassbox")

# "CPU: registered at /x/RegisterCPU_0.cpp:1309 :: (Tensor _0) -> Tensor _0 [ boxed unboxed ]"
# "Meta (inactive): registered at ...", "Autograd[alias]: registered at ...", "X: fallthrough registered at ..."
_KERNEL_LINE = re.compile(r"^(?P<key>\w+)(?P<alias>\[alias\])?(?P<inactive> \(inactive\))?: (?P<rest>.*)$")
# "CPU: registered at /x/RegisterCPU_0.cpp:1309 [kernel]"
_TABLE_LINE = re.compile(r"^(?P<key>\w+): (?P<fallthrough>fallthrough )?(?P<debug>.*) \[(?P<provenance>[^\]]+)\]$")


def _registered_at(debug: str) -> str:
    return debug[len("registered at ") :] if debug.startswith("registered at ") else debug


def parse_dump(text: str) -> dict:
    """One operator's _dispatch_dump text: name, schema, where it is defined, its kernels per key."""
    op = {"kernels": []}
    for line in text.splitlines():
        if line.startswith("name: "):
            op["name"] = line[len("name: ") :]
        elif line.startswith("schema: "):
            op["schema"] = line[len("schema: ") :]
        elif line.startswith("debug: "):
            op["defined_at"] = _registered_at(line[len("debug: ") :])
        elif line.startswith("alias analysis kind: "):
            op["alias_analysis"] = line[len("alias analysis kind: ") :]
        else:
            m = _KERNEL_LINE.match(line)
            if not m:
                continue
            rest = m["rest"]
            fallthrough = rest.startswith("fallthrough ")
            if fallthrough:
                rest = rest[len("fallthrough ") :]
            signature = ""
            if " :: " in rest:
                rest, signature = rest.split(" :: ", 1)
                signature = re.sub(r"\s*\[[^\]]*\]$", "", signature)
            op["kernels"].append(
                {
                    "key": m["key"],
                    "alias": bool(m["alias"]),
                    "registered_at": _registered_at(rest),
                    "kind": "fallthrough" if fallthrough else "kernel",
                    "cpp_signature": signature,
                    "active": not m["inactive"],
                }
            )
    return op


def parse_table(text: str) -> list:
    """An operator's _dispatch_dump_table text: one slot per runtime key that has an entry."""
    slots = []
    for line in text.splitlines():
        m = _TABLE_LINE.match(line)
        if m:
            slots.append(
                {
                    "key": m["key"],
                    "provenance": m["provenance"],
                    "registered_at": _registered_at(m["debug"]),
                    "fallthrough": bool(m["fallthrough"]),
                }
            )
    return slots


def _source_keys(op: dict) -> None:
    """Which registration fills each slot: the active kernel registered at the slot's site."""
    by_site = {}
    for k in op["kernels"]:
        if k["active"]:
            by_site.setdefault(k["registered_at"], k["key"])
    for slot in op["table"]:
        if slot["provenance"] == "backend fallback":
            slot["source_key"] = slot["key"]
        else:
            slot["source_key"] = by_site.get(slot["registered_at"], "")


def live(ops_regex: str | None) -> dict:
    import torch  # noqa: PLC0415 - the child process exists to do this

    C = torch._C
    pattern = re.compile(ops_regex) if ops_regex else None
    # Only the operators asked for are dumped: the dumps are the slow part.
    dumps = [
        (name, C._dispatch_dump(name), C._dispatch_dump_table(name))
        for name in C._dispatch_get_all_op_names()
        if not pattern or pattern.search(name)
    ]
    operators, fallbacks = registry_from_dumps(dumps, None)
    lib_dir = os.path.join(os.path.dirname(torch.__file__), "lib")
    return {
        "format": "glassbox-registry",
        "version": 1,
        "producer": "torch " + torch.__version__,
        "torch_lib_dir": lib_dir,
        "python": sys.version.split()[0],
        "fallbacks": fallbacks,
        "operators": operators,
    }


def registry_from_dumps(dumps, ops_regex: str | None) -> tuple:
    """Operators and backend fallbacks from (name, _dispatch_dump text, _dispatch_dump_table text)."""
    pattern = re.compile(ops_regex) if ops_regex else None
    operators, fallbacks = [], {}
    for name, dump, table in sorted(dumps):
        if pattern and not pattern.search(name):
            continue
        op = parse_dump(dump)
        op.setdefault("name", name)
        ns, _, rest = name.partition("::")
        base, _, overload = rest.partition(".")
        op.update({"namespace": ns, "base_name": base, "overload": overload})
        op["table"] = parse_table(table)
        _source_keys(op)
        for slot in op["table"]:
            if slot["provenance"] == "backend fallback":
                fallbacks.setdefault(
                    slot["key"],
                    {"key": slot["key"], "registered_at": slot["registered_at"], "fallthrough": slot["fallthrough"]},
                )
        operators.append(op)
    return operators, sorted(fallbacks.values(), key=lambda f: f["key"])


# ---- live without `import torch`: a C++ reader built against the wheel's own headers ----------------------------

READER_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_registry_reader")


class ReaderError(Exception):
    """Why the C++ registry reader cannot be built or run, and what still works."""


_STILL_WORKS = (
    "what still works: the binaries alone (glassbox ops --torch-lib DIR), or the live registry "
    "through an interpreter that can import torch (glassbox ops --torch PYTHON)"
)


def torch_version(torch_dir: str) -> str:
    """The version torch/version.py names ("" when it is missing)."""
    try:
        with open(os.path.join(torch_dir, "version.py")) as f:
            m = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)", f.read(), re.M)
            return m.group(1) if m else ""
    except OSError:
        return ""


def parse_reader_output(text: str, notes: list | None = None) -> list:
    """(name, dump, table) per operator from the reader's "@@operator/@@table/@@end" text; its "@@note" lines
    (libraries that did not load) go to `notes`."""
    out = []
    name, part, dump, table = None, None, [], []
    for line in text.splitlines():
        if line.startswith("@@note ") and name is None:
            if notes is not None:
                notes.append(line[len("@@note ") :])
        elif line.startswith("@@operator "):
            name, part, dump, table = line[len("@@operator ") :], "dump", [], []
        elif line == "@@table":
            part = "table"
        elif line == "@@end":
            if name is not None:
                out.append((name, "\n".join(dump) + "\n", "\n".join(table) + "\n"))
            name, part = None, None
        elif name is not None:
            (dump if part == "dump" else table).append(line)
    return out


_ELF_MACHINES = {
    3: "x86 (32-bit)",
    62: "x86_64",
    183: "aarch64",
    40: "arm (32-bit)",
    21: "ppc64",
    22: "s390x",
    243: "riscv64",
}
_HOST_MACHINES = {"arm64": "aarch64", "amd64": "x86_64", "ppc64le": "ppc64"}


def elf_machine(path: str) -> str:
    """The architecture an ELF file is for ("x86_64", "aarch64", ...), or a phrase saying it is no ELF file."""
    try:
        with open(path, "rb") as f:
            head = f.read(20)
    except OSError as e:
        return "unreadable (%s)" % e.strerror
    if len(head) < 20 or head[:4] != b"\x7fELF":
        return "not an ELF file"
    machine = int.from_bytes(head[18:20], "little" if head[5] == 1 else "big")
    return _ELF_MACHINES.get(machine, "ELF machine %d" % machine)


def build_reader(torch_dir: str, cache: str = DEFAULT_CACHE, log=None) -> str:
    """The reader program for the torch folder `torch_dir` (with include/ and lib/), configured with CMake and
    built with Ninja in <cache>/torch-reader/<key> the first time, then rebuilt only when its sources change."""
    torch_dir = os.path.realpath(torch_dir)
    missing = [
        p
        for p in ("include/ATen/core/dispatch/Dispatcher.h", "lib/libc10.so", "lib/libtorch_cpu.so")
        if not os.path.exists(os.path.join(torch_dir, p))
    ]
    if missing:
        raise ReaderError(
            "%s lacks %s: the C++ registry reader needs the wheel's headers (torch/include) and "
            "libraries (torch/lib); %s" % (torch_dir, ", ".join(missing), _STILL_WORKS)
        )
    arch = elf_machine(os.path.join(torch_dir, "lib", "libtorch_cpu.so"))
    host = _HOST_MACHINES.get(os.uname().machine, os.uname().machine)
    if arch != host:
        raise ReaderError(
            "%s/lib/libtorch_cpu.so is %s, and this machine runs %s code: it cannot be loaded here "
            "(a wheel for another platform); %s" % (torch_dir, arch, host, _STILL_WORKS)
        )
    tools = {"cmake": shutil.which("cmake"), "ninja": shutil.which("ninja") or shutil.which("ninja-build")}
    compiler = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    absent = [name for name, path in tools.items() if not path] + ([] if compiler else ["C++ compiler"])
    if absent:
        raise ReaderError(
            "cannot build the C++ registry reader: not found: %s (Debian: cmake ninja-build g++); %s"
            % (", ".join(absent), _STILL_WORKS)
        )
    lib = os.path.join(torch_dir, "lib", "libtorch_cpu.so")
    # The reader's own source folder is part of the key: a build folder configured from another
    # checkout (since moved or deleted) is never reused.
    key = hashlib.sha1(
        ("%s|%d|%s|%s" % (torch_dir, os.stat(lib).st_mtime_ns, compiler, READER_SOURCE)).encode()
    ).hexdigest()[:16]
    build = os.path.join(cache, "torch-reader", key)
    program = os.path.join(build, "torch_registry_reader")
    steps = []
    if not os.path.exists(os.path.join(build, "build.ninja")):
        steps.append(
            [
                tools["cmake"],
                "-S",
                READER_SOURCE,
                "-B",
                build,
                "-G",
                "Ninja",
                "-DCMAKE_BUILD_TYPE=Release",
                "-DCMAKE_MAKE_PROGRAM=" + tools["ninja"],
                "-DCMAKE_CXX_COMPILER=" + compiler,
                "-DTORCH_DIR=" + torch_dir,
            ]
        )
    steps.append([tools["cmake"], "--build", build])
    for argv in steps:
        try:
            r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800)
        except subprocess.TimeoutExpired:
            raise ReaderError(
                "building the C++ registry reader took over 30 minutes and was stopped; %s" % _STILL_WORKS
            ) from None
        if log:
            log(r.stdout)
        if r.returncode != 0:
            errors = [l for l in r.stdout.splitlines() if "error" in l.lower()][:5] or r.stdout.splitlines()[-5:]
            raise ReaderError(
                "building the C++ registry reader against %s failed (%s):\n  %s\n%s"
                % (torch_dir, os.path.basename(argv[0]) + " " + argv[1], "\n  ".join(errors), _STILL_WORKS)
            )
    return program


def _loader_message(stderr: str, lib: str) -> str:
    m = re.search(r"error while loading shared libraries: ([^:]+): cannot open shared object file", stderr)
    if m:
        return (
            "%s cannot be loaded: %s is missing (a CUDA wheel's libtorch_cpu.so needs the CUDA runtime: "
            "pip install the wheel's nvidia-* requirements, or add their lib folders to LD_LIBRARY_PATH)"
            % (lib, m.group(1))
        )
    return stderr.strip()[-600:]


def live_from_reader(
    torch_dir: str, ops_regex: str | None, cache: str = DEFAULT_CACHE, timeout: int = 300, with_cuda: bool = True
) -> dict:
    """The live registry of libc10.so + libtorch_cpu.so (+ libtorch_cuda.so where it loads), loaded by the C++
    reader in a child process that is stopped after `timeout` seconds."""
    program = build_reader(torch_dir, cache)
    torch_dir = os.path.realpath(torch_dir)
    lib_dir = os.path.join(torch_dir, "lib")
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.pathsep.join(p for p in (lib_dir, env.get("LD_LIBRARY_PATH", "")) if p)
    try:
        argv = [program]
        if with_cuda and os.path.exists(os.path.join(lib_dir, "libtorch_cuda.so")):
            argv += ["--also", os.path.join(lib_dir, "libtorch_cuda.so")]
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ReaderError("loading %s took over %d s and was stopped; %s" % (lib_dir, timeout, _STILL_WORKS)) from None
    stderr = r.stderr.decode("utf-8", "replace")
    if r.returncode != 0:
        why = "killed by signal %d" % -r.returncode if r.returncode < 0 else "exit %d" % r.returncode
        raise ReaderError(
            "the C++ registry reader failed (%s): %s; %s"
            % (why, _loader_message(stderr, os.path.join(lib_dir, "libtorch_cpu.so")), _STILL_WORKS)
        )
    text = r.stdout.decode("utf-8", "replace")
    if "@@done" not in text:
        raise ReaderError("the C++ registry reader stopped before the end of its output; %s" % _STILL_WORKS)
    notes = []
    operators, fallbacks = registry_from_dumps(parse_reader_output(text, notes), ops_regex)
    for note in notes:
        print("note: %s: its kernels are left out" % note, file=sys.stderr)
    loaded = "libtorch_cpu.so" + ("" if notes or "--also" not in argv else " + libtorch_cuda.so")
    return {
        "format": "glassbox-registry",
        "version": 1,
        "producer": "torch %s (%s loaded by the C++ reader)" % (torch_version(torch_dir) or "?", loaded),
        "torch_lib_dir": lib_dir,
        "reader": "c++",
        "notes": notes,
        "fallbacks": fallbacks,
        "operators": operators,
    }


# ---- prepare: the PyPI wheel in a cache, a venv of its own -------------------------------------------------------


def _python_tag() -> str:
    return "cp%d%d" % sys.version_info[:2]


def find_wheel(cache: str) -> str | None:
    tag = _python_tag()
    found = sorted(glob.glob(os.path.join(cache, "wheels", "torch-*-%s-%s-*.whl" % (tag, tag))))
    return found[-1] if found else None


def venv_python(cache: str = DEFAULT_CACHE) -> str | None:
    """The interpreter of the venv `prepare` made in `cache`, when it exists (nothing is fetched)."""
    python = os.path.join(cache, "torch-venv-" + _python_tag(), "bin", "python")
    return python if os.path.exists(python) else None


def fetch_wheel(cache: str) -> str:
    """The torch wheel for this Python, downloaded from PyPI (`pip download torch --no-deps`) once."""
    wheel = find_wheel(cache)
    if wheel:
        return wheel
    os.makedirs(os.path.join(cache, "wheels"), exist_ok=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "-d",
            os.path.join(cache, "wheels"),
            "torch",
        ],
        check=True,
    )
    wheel = find_wheel(cache)
    if not wheel:
        raise SystemExit("pip download torch gave no wheel for %s in %s/wheels" % (_python_tag(), cache))
    return wheel


def _requirements(wheel: str) -> list:
    """The wheel's Requires-Dist for Linux: pure-Python ones, and the NVIDIA libraries that
    libtorch_cuda.so needs to load (import torch loads it even when no GPU is used)."""
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        lines = z.read(meta).decode().splitlines()
    out = []
    for line in lines:
        if not line.startswith("Requires-Dist: "):
            continue
        req = line[len("Requires-Dist: ") :]
        spec, _, marker = req.partition(";")
        if "extra ==" in marker or "Windows" in marker or "Darwin" in marker:
            continue
        spec = spec.strip().replace(" ", "")
        if spec.startswith("cuda-toolkit"):
            out.append("nvidia-cufile")  # the one toolkit library a system CUDA often lacks
        elif spec.startswith(("cuda-bindings", "nvidia-cudnn", "triton")):
            continue  # loaded lazily or only for GPU work
        else:
            out.append(spec)
    return out


def prepare(cache: str) -> dict:
    wheel = fetch_wheel(cache)
    venv = os.path.join(cache, "torch-venv-" + _python_tag())
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    check = subprocess.run([python, "-c", "import torch"], capture_output=True, text=True)
    if check.returncode != 0:
        pip = [python, "-m", "pip", "install", "--no-deps", "-q"]
        subprocess.run(pip + [wheel], check=True)
        subprocess.run(pip + _requirements(wheel) + ["mpmath", "MarkupSafe"], check=True)
    with zipfile.ZipFile(wheel) as z:
        version = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA")).split("-")[1].split(".dist")[0]
    site = glob.glob(os.path.join(venv, "lib", "python*", "site-packages"))[0]
    return {
        "wheel": wheel,
        "version": version,
        "venv": venv,
        "python": python,
        "torch_lib_dir": os.path.join(site, "torch", "lib"),
        "include_dir": os.path.join(site, "torch", "include"),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_live = sub.add_parser("live", help="print the live registry as glassbox-registry JSON")
    p_live.add_argument("--ops", help="operators whose name matches this regex")
    p_live.add_argument(
        "--torch-dir",
        help="a torch folder (include/, lib/): where `import torch` fails, its registry "
        "is read by a C++ reader built against its headers",
    )
    p_live.add_argument(
        "--reader",
        choices=["auto", "python", "c++"],
        default="auto",
        help="auto: import torch, else the C++ reader (with --torch-dir)",
    )
    p_live.add_argument("--timeout", type=int, default=300, help="seconds the C++ reader may take to load torch")
    p_live.add_argument("--cache", default=os.environ.get("GLASSBOX_CACHE", DEFAULT_CACHE))
    p_prep = sub.add_parser("prepare", help="fetch the torch wheel and make a venv that imports it")
    p_prep.add_argument("--cache", default=os.environ.get("GLASSBOX_CACHE", DEFAULT_CACHE))
    args = parser.parse_args(argv)
    if args.command == "live":
        data = None
        if args.reader != "c++":
            try:
                data = live(args.ops)
            except ImportError as e:
                if args.reader == "python" or not args.torch_dir:
                    print("import torch failed: %s" % e, file=sys.stderr)
                    return 3
                print("import torch failed (%s): reading %s with the C++ reader" % (e, args.torch_dir), file=sys.stderr)
        if data is None:
            if not args.torch_dir:
                print("--reader c++ needs --torch-dir", file=sys.stderr)
                return 2
            try:
                data = live_from_reader(args.torch_dir, args.ops, args.cache, args.timeout)
            except ReaderError as e:
                print(str(e), file=sys.stderr)
                return 4
        json.dump(data, sys.stdout)
        sys.stdout.write("\n")
    else:
        json.dump(prepare(args.cache), sys.stdout, indent=1)
        sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
