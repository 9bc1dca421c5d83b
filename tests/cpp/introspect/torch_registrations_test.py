"""`glassbox ops` on real PyTorch: the PyPI wheel (fetched into the cache when missing, reused).

    python torch_registrations_test.py --cli build/bin/glassbox --reader python/glassbox/introspect_torch.py

Checks that the live table of aten::add.Tensor and aten::empty.memory_format equals PyTorch's own
_dispatch_dump_table slot for slot, that the binary alone finds the CPU kernels, how far it agrees
with the live registry over all aten operators (printed), and that bad input gets a clear message.
Exits 0 when every check passes; prints each failure.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

FAILURES = []
# What the binary alone must reach against the live registry, over all aten operators (in %).
MIN_PAIR_AGREEMENT = 95.0
MIN_TRIPLE_AGREEMENT = 95.0


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        FAILURES.append(what)


def run(argv, timeout=900):
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)


def table_section(text, op):
    """The slots printed under "dispatch table of OP:" by glassbox ops --dispatch-table."""
    lines = text.splitlines()
    start = lines.index("dispatch table of %s:" % op) + 1
    out = []
    for line in lines[start:]:
        if line.startswith("dispatch table of "):
            break
        if line:
            out.append(line)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--reader", required=True)
    parser.add_argument(
        "--cache", default=os.environ.get("GLASSBOX_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "glassbox"))
    )
    args = parser.parse_args()
    cli = args.cli

    prepared = run([sys.executable, args.reader, "prepare", "--cache", args.cache], timeout=3600)
    if prepared.returncode != 0:
        print(prepared.stdout, prepared.stderr)
        print("FAIL the torch wheel could not be fetched or installed")
        return 1
    info = json.loads(prepared.stdout)
    python, lib_dir = info["python"], info["torch_lib_dir"]
    print("torch %s from %s" % (info["version"], info["wheel"]))

    # The live table, slot for slot, against PyTorch's own text.
    for op in ("aten::add.Tensor", "aten::empty.memory_format"):
        ours = run([cli, "ops", "--torch", python, "--op", "^%s$" % re.escape(op), "--dispatch-table", "--no-binary"])
        check(ours.returncode == 0, "%s: glassbox ops --torch runs (%s)" % (op, ours.stderr.strip()[-300:]))
        theirs = run([python, "-c", "import torch, sys; sys.stdout.write(torch._C._dispatch_dump_table(%r))" % op])
        expected = [line for line in theirs.stdout.splitlines() if line]
        got = table_section(ours.stdout, op) if ours.returncode == 0 else []
        check(len(expected) > 10, "%s: PyTorch prints %d slots" % (op, len(expected)))
        check(
            got == expected,
            "%s: the live table equals _dispatch_dump_table slot for slot (%d of %d)"
            % (op, sum(a == b for a, b in zip(got, expected)), len(expected)),
        )
        if got != expected:
            for a, b in zip(got, expected):
                if a != b:
                    print("  glassbox: %s\n  torch:    %s" % (a, b))
                    break

    # Live and binary joined: the CPU kernel of add.Tensor, its symbol and library.
    joined = run([cli, "ops", "--torch", python, "--op", r"^aten::add\.Tensor$", "--format", "json"])
    check(joined.returncode == 0, "add.Tensor: JSON of live + binary")
    rows = json.loads(joined.stdout)["rows"] if joined.returncode == 0 else []
    cpu = [r for r in rows if r["key"] == "CPU"]
    check(
        len(cpu) == 1
        and cpu[0]["kernel"].endswith("wrapper_CPU_add_Tensor")
        and cpu[0]["inferred"]
        and cpu[0]["library"] == "libtorch_cpu.so"
        and cpu[0]["kernel_symbol"].startswith("_Z")
        and cpu[0]["kernel_size"] > 0
        and "RegisterCPU" in cpu[0]["registered_at"]
        and cpu[0]["found_in"] == "registry,binary",
        "add.Tensor CPU: wrapper_CPU_add_Tensor (inferred), its symbol and size, libtorch_cpu.so, RegisterCPU site",
    )

    # The graph operator -> schema -> registration -> key -> kernel -> library.
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "add.png")
        drawn = run([cli, "ops", "--torch", python, "--op", r"^aten::add\.Tensor$", "-o", png])
        check(drawn.returncode == 0 and os.path.getsize(png) > 10000, "add.Tensor: the graph is drawn")
        dot = run([cli, "ops", "--torch", python, "--op", r"^aten::add\.Tensor$", "--format", "dot"])
        check(
            "wrapper_CPU_add_Tensor" in dot.stdout
            and "libtorch_cpu.so" in dot.stdout
            and "RegisterCPU_0.cpp" in dot.stdout,
            "add.Tensor: the graph reaches kernel and library",
        )

    # The binary alone: no Python, no loading.
    alone = run(
        [cli, "ops", "--torch-lib", lib_dir, "--op", r"^aten::(add\.Tensor|empty\.memory_format)$", "--format", "json"]
    )
    check(alone.returncode == 0, "binary alone runs")
    rows = json.loads(alone.stdout)["rows"] if alone.returncode == 0 else []
    keys = {(r["operator"], r["key"]) for r in rows}
    check(
        ("aten::add.Tensor", "CPU") in keys
        and ("aten::add.Tensor", "Autograd") in keys
        and ("aten::empty.memory_format", "CPU") in keys
        and all(r["inferred"] for r in rows)
        and all(r["found_in"] == "binary" for r in rows),
        "binary alone: add.Tensor CPU and Autograd, empty.memory_format CPU, all inferred (%d rows)" % len(rows),
    )

    # All aten operators: how far the binary alone agrees with the live registry.
    everything = run([cli, "ops", "--torch", python], timeout=1800)
    line = next((l for l in everything.stdout.splitlines() if l.startswith("binary alone vs live registry")), "")
    print(line)
    m = re.search(r"triples agree \(([\d.]+)%\); \(operator, key\) pairs \d+ of \d+ \(([\d.]+)%\)", line)
    check(m is not None, "all operators: the agreement is printed")
    if m:
        triples, pairs = float(m.group(1)), float(m.group(2))
        check(
            pairs >= MIN_PAIR_AGREEMENT,
            "all aten operators: (operator, key) pairs agree %.1f%% >= %.0f%%" % (pairs, MIN_PAIR_AGREEMENT),
        )
        check(
            triples >= MIN_TRIPLE_AGREEMENT,
            "all aten operators: (operator, key, kernel) triples agree %.1f%% >= %.0f%%"
            % (triples, MIN_TRIPLE_AGREEMENT),
        )

    # Bad input: a clear message, never a crash or a hang.
    missing = run([cli, "ops", "--torch", "/nonexistent/python", "--op", "add"])
    check(missing.returncode == 1 and "cannot be run" in missing.stderr, "a missing interpreter is named")
    no_torch = run(
        [
            cli,
            "ops",
            "--torch",
            shutil.which("python3") or "/usr/bin/python3",
            "--op",
            "add",
            "--torch-reader",
            args.reader,
        ]
    )
    check(
        no_torch.returncode != 0 and "import torch failed" in no_torch.stderr or no_torch.returncode == 0,
        "a Python without torch: the import error is shown",
    )
    slow = run([cli, "ops", "--torch", python, "--timeout", "1", "--op", "add"], timeout=120)
    check(slow.returncode == 1 and "was stopped" in slow.stderr, "the time limit stops the child")
    fallback = run(
        [cli, "ops", "--torch", "/nonexistent/python", "--torch-lib", lib_dir, "--op", r"^aten::add\.Tensor$"]
    )
    check(
        fallback.returncode == 0
        and "the binaries alone are read" in fallback.stderr
        and "wrapper_CPU_add_Tensor" in fallback.stdout,
        "without a live registry the binaries alone still answer",
    )
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "libtorch_cpu.so"), "w") as f:
            f.write("not a library")
        junk = run([cli, "ops", "--torch-lib", tmp, "--op", "add"])
        check(junk.returncode == 0 and "not an ELF file" in junk.stdout, "a damaged libtorch_cpu.so is named")
        empty = os.path.join(tmp, "empty")
        os.mkdir(empty)
        none = run([cli, "ops", "--torch-lib", empty])
        check(none.returncode == 1 and "no libtorch_cpu.so" in none.stderr, "a folder without libtorch_cpu.so is named")
        stripped = os.path.join(tmp, "stripped")
        os.mkdir(stripped)
        c10 = os.path.join(lib_dir, "libc10.so")  # small: a stripped copy stands for a stripped libtorch_cpu.so
        subprocess.run(["strip", "-o", os.path.join(stripped, "libtorch_cpu.so"), c10], check=True)
        bare = run([cli, "ops", "--torch-lib", stripped, "--op", "add"])
        check(
            bare.returncode == 0 and "no .symtab (stripped)" in bare.stdout, "a stripped binary: what is lost is said"
        )

    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
