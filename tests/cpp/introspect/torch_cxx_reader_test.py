"""Real PyTorch's live registry without `import torch`: the C++ reader introspect_torch.py builds against
the PyPI wheel's own headers (fetched into the cache when missing; the reader is built once and reused).

    python torch_cxx_reader_test.py --cli build/bin/glassbox --reader python/glassbox/introspect_torch.py

Checks that, from an interpreter that cannot import torch, `live --torch-dir` falls back to the C++
reader; that its tables for aten::add.Tensor and aten::empty.memory_format equal PyTorch's own (read
through `import torch`) slot for slot, except the slots registered by what the reader does not load
(Python files; libtorch_cuda.so where it does not load); that a second run rebuilds nothing; that
`glassbox ops` uses it; and that bad input (no headers, a wheel for another architecture, no
compiler, a library that does not load) gets a clear message.
Exits 0 when every check passes; prints each failure.
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile

FAILURES = []
OPS = ("aten::add.Tensor", "aten::empty.memory_format")
OPS_REGEX = "^(%s)$" % "|".join(re.escape(op) for op in OPS)


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        FAILURES.append(what)


def run(argv, timeout=900, env=None):
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)


def not_loaded_by_reader(registered_at, cuda_loaded):
    """Registrations the reader cannot see: Python files' (and libtorch_cuda.so's where it did not load)."""
    unit = os.path.basename(registered_at.split(":")[0])
    return unit.endswith(".py") or (not cuda_loaded and ("CUDA" in unit or "Cuda" in unit or "cuda" in unit))


def aarch64_library(cache):
    """A small aarch64 extension module from PyPI (the same shape of problem as an aarch64 torch wheel)."""
    folder = os.path.join(cache, "wheels", "aarch64")
    found = glob.glob(os.path.join(folder, "markupsafe-*aarch64*.whl"))
    if not found:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--only-binary=:all:",
                "--platform",
                "manylinux2014_aarch64",
                "--python-version",
                "3.11",
                "-d",
                folder,
                "markupsafe",
            ],
            check=True,
        )
        found = glob.glob(os.path.join(folder, "markupsafe-*aarch64*.whl"))
    with zipfile.ZipFile(found[0]) as z:
        name = next(n for n in z.namelist() if n.endswith(".so"))
        return z.read(name)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--reader", required=True)
    parser.add_argument(
        "--cache", default=os.environ.get("GLASSBOX_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "glassbox"))
    )
    args = parser.parse_args()
    prepared = run([sys.executable, args.reader, "prepare", "--cache", args.cache], timeout=3600)
    if prepared.returncode != 0:
        print(prepared.stdout, prepared.stderr)
        print("FAIL the torch wheel could not be fetched or installed")
        return 1
    info = json.loads(prepared.stdout)
    python, lib_dir = info["python"], info["torch_lib_dir"]
    torch_dir = os.path.dirname(lib_dir)
    print("torch %s from %s" % (info["version"], info["wheel"]))

    # The reference: PyTorch's registry through `import torch`.
    theirs = run([python, args.reader, "live", "--ops", OPS_REGEX])
    check(theirs.returncode == 0, "the live registry through import torch (%s)" % theirs.stderr.strip()[-300:])
    reference = {op["name"]: op for op in json.loads(theirs.stdout)["operators"]} if theirs.returncode == 0 else {}

    # An interpreter that cannot import torch falls back to the C++ reader.
    no_torch = run([sys.executable, "-c", "import torch"]).returncode != 0
    reader_args = [] if no_torch else ["--reader", "c++"]
    ours = run(
        [sys.executable, args.reader, "live", "--ops", OPS_REGEX, "--torch-dir", torch_dir, "--cache", args.cache]
        + reader_args,
        timeout=1800,
    )
    check(ours.returncode == 0, "live --torch-dir runs (%s)" % ours.stderr.strip()[-600:])
    if no_torch:
        check(
            "import torch failed" in ours.stderr and "C++ reader" in ours.stderr,
            "without torch in this interpreter, the C++ reader is used and this is said",
        )
    data = json.loads(ours.stdout) if ours.returncode == 0 else {"operators": []}
    check(
        data.get("reader") == "c++" and "C++ reader" in data.get("producer", ""), "the JSON says which reader made it"
    )
    got = {op["name"]: op for op in data["operators"]}
    cuda_loaded = "libtorch_cuda.so" in data.get("producer", "")
    print(
        "the reader loaded %s"
        % (
            "libtorch_cpu.so and libtorch_cuda.so"
            if cuda_loaded
            else "libtorch_cpu.so only (%s)" % "; ".join(data.get("notes", []))
        )
    )
    for name in OPS:
        mine, ref = got.get(name), reference.get(name)
        check(mine is not None and ref is not None, "%s: read by both" % name)
        if mine is None or ref is None:
            continue
        check(mine["schema"] == ref["schema"], "%s: the same schema" % name)
        slots = {s["key"]: s for s in mine["table"]}
        comparable = [s for s in ref["table"] if not not_loaded_by_reader(s["registered_at"], cuda_loaded)]
        same = [s for s in comparable if slots.get(s["key"]) == s]
        check(
            len(comparable) > 20 and len(same) == len(comparable),
            "%s: the table equals PyTorch's slot for slot wherever a library the reader loads registered it (%d of "
            "%d; %d slots come from Python files%s)"
            % (
                name,
                len(same),
                len(comparable),
                len(ref["table"]) - len(comparable),
                "" if cuda_loaded else " or libtorch_cuda.so",
            ),
        )
        kernels = {(k["key"], k["registered_at"]) for k in ref["kernels"]}
        check(
            all((k["key"], k["registered_at"]) in kernels for k in mine["kernels"]) and len(mine["kernels"]) > 10,
            "%s: every kernel the reader lists is one PyTorch lists (%d)" % (name, len(mine["kernels"])),
        )

    # Built once: a second run configures and compiles nothing.
    sys.path.insert(0, os.path.dirname(os.path.abspath(args.reader)))
    import introspect_torch  # noqa: E402

    program = introspect_torch.build_reader(torch_dir, args.cache)
    before = os.stat(program).st_mtime_ns
    introspect_torch.build_reader(torch_dir, args.cache)
    check(os.stat(program).st_mtime_ns == before, "the built reader is reused from the cache")
    env = dict(os.environ, LD_LIBRARY_PATH=lib_dir)
    unloadable = run([program, "--also", "/nonexistent/libtorch_cuda.so", "aten::add.Tensor"], env=env)
    check(
        unloadable.returncode == 0
        and "@@note cannot load /nonexistent/libtorch_cuda.so" in unloadable.stdout
        and "@@operator aten::add.Tensor" in unloadable.stdout,
        "a library that does not load is named, and the rest is still read",
    )

    slow = run(
        [
            sys.executable,
            args.reader,
            "live",
            "--reader",
            "c++",
            "--torch-dir",
            torch_dir,
            "--cache",
            args.cache,
            "--timeout",
            "0",
        ],
        timeout=600,
    )
    check(
        slow.returncode == 4 and "was stopped" in slow.stderr,
        "the time limit stops the reader (%s)" % slow.stderr.strip(),
    )

    # glassbox ops: with --torch-lib, an interpreter without torch still gives the live table.
    if no_torch:
        cli = run(
            [
                args.cli,
                "ops",
                "--torch",
                sys.executable,
                "--torch-reader",
                args.reader,
                "--torch-lib",
                lib_dir,
                "--op",
                r"^aten::add\.Tensor$",
                "--dispatch-table",
                "--no-binary",
            ],
            timeout=1800,
        )
        check(
            cli.returncode == 0 and "dispatch table of aten::add.Tensor:" in cli.stdout and "C++ reader" in cli.stdout,
            "glassbox ops --torch (no torch there) --torch-lib: the live table through the C++ reader (%s)"
            % cli.stderr.strip()[-300:],
        )

    # Bad input: a clear message saying what is missing and what still works; never a crash or a hang.
    with tempfile.TemporaryDirectory() as tmp:
        headerless = os.path.join(tmp, "headerless")
        os.makedirs(os.path.join(headerless, "lib"))
        for lib in ("libc10.so", "libtorch_cpu.so"):
            os.symlink(os.path.join(lib_dir, lib), os.path.join(headerless, "lib", lib))
        r = run([sys.executable, args.reader, "live", "--reader", "c++", "--torch-dir", headerless, "--cache", tmp])
        check(
            r.returncode == 4
            and "lacks include/ATen/core/dispatch/Dispatcher.h" in r.stderr
            and "what still works" in r.stderr,
            "a torch folder without headers is named (%s)" % r.stderr.strip(),
        )

        foreign = os.path.join(tmp, "aarch64")
        os.makedirs(os.path.join(foreign, "lib"))
        os.symlink(os.path.join(torch_dir, "include"), os.path.join(foreign, "include"))
        code = aarch64_library(args.cache)
        for lib in ("libc10.so", "libtorch_cpu.so"):
            with open(os.path.join(foreign, "lib", lib), "wb") as f:
                f.write(code)
        r = run([sys.executable, args.reader, "live", "--reader", "c++", "--torch-dir", foreign, "--cache", tmp])
        check(
            r.returncode == 4
            and "is aarch64, and this machine runs x86_64" in r.stderr
            and "what still works" in r.stderr,
            "a wheel for another architecture is named (%s)" % r.stderr.strip(),
        )
        alone = run([args.cli, "ops", "--torch-lib", os.path.join(foreign, "lib"), "--op", "add"])
        check(
            alone.returncode == 0 and "a binary for aarch64" in alone.stdout,
            "the binaries alone of another architecture: what is not read is said (%s)" % alone.stdout.strip()[-300:],
        )
        if no_torch:
            both = run(
                [
                    args.cli,
                    "ops",
                    "--torch",
                    sys.executable,
                    "--torch-reader",
                    args.reader,
                    "--torch-lib",
                    os.path.join(foreign, "lib"),
                    "--op",
                    "add",
                ]
            )
            check(
                both.returncode == 0 and "is aarch64" in both.stderr and "the binaries alone are read" in both.stderr,
                "glassbox ops on another architecture's wheel falls back to the binaries alone, saying why",
            )

        bare_path = os.path.join(tmp, "bin")
        os.makedirs(bare_path)
        os.symlink(sys.executable, os.path.join(bare_path, "python3"))
        env = {"PATH": bare_path, "HOME": os.environ.get("HOME", "/root")}
        r = run(
            [sys.executable, args.reader, "live", "--reader", "c++", "--torch-dir", torch_dir, "--cache", tmp], env=env
        )
        check(
            r.returncode == 4
            and "not found: cmake, ninja, C++ compiler" in r.stderr
            and "what still works" in r.stderr,
            "no compiler or build tools: they are named (%s)" % r.stderr.strip(),
        )

    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
