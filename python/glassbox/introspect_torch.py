"""Real PyTorch's operator registry, read live, for `glassbox ops --torch`.

Run as a script (it imports neither glassbox nor anything outside the standard library until it
imports torch), so that the `glassbox` CLI can run it in a child process with a time limit:

    python introspect_torch.py live [--ops REGEX]     # the registry as glassbox-registry JSON
    python introspect_torch.py prepare [--cache DIR]  # fetch the PyPI wheel, make a venv, print paths

`live` reads every operator through PyTorch's own dump functions (torch._C._dispatch_dump and
_dispatch_dump_table: the kernels per dispatch key with their `registered at FILE:LINE`, and the
computed dispatch table) and writes them in the format glassbox's registry uses
(registry/registry_dump.cpp), so that the same table, graph and JSON come out for both.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
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
    return debug[len("registered at "):] if debug.startswith("registered at ") else debug


def parse_dump(text: str) -> dict:
    """One operator's _dispatch_dump text: name, schema, where it is defined, its kernels per key."""
    op = {"kernels": []}
    for line in text.splitlines():
        if line.startswith("name: "):
            op["name"] = line[len("name: "):]
        elif line.startswith("schema: "):
            op["schema"] = line[len("schema: "):]
        elif line.startswith("debug: "):
            op["defined_at"] = _registered_at(line[len("debug: "):])
        elif line.startswith("alias analysis kind: "):
            op["alias_analysis"] = line[len("alias analysis kind: "):]
        else:
            m = _KERNEL_LINE.match(line)
            if not m:
                continue
            rest = m["rest"]
            fallthrough = rest.startswith("fallthrough ")
            if fallthrough:
                rest = rest[len("fallthrough "):]
            signature = ""
            if " :: " in rest:
                rest, signature = rest.split(" :: ", 1)
                signature = re.sub(r"\s*\[[^\]]*\]$", "", signature)
            op["kernels"].append({"key": m["key"], "alias": bool(m["alias"]), "registered_at": _registered_at(rest),
                                  "kind": "fallthrough" if fallthrough else "kernel", "cpp_signature": signature,
                                  "active": not m["inactive"]})
    return op


def parse_table(text: str) -> list:
    """An operator's _dispatch_dump_table text: one slot per runtime key that has an entry."""
    slots = []
    for line in text.splitlines():
        m = _TABLE_LINE.match(line)
        if m:
            slots.append({"key": m["key"], "provenance": m["provenance"], "registered_at": _registered_at(m["debug"]),
                          "fallthrough": bool(m["fallthrough"])})
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
    names = sorted(C._dispatch_get_all_op_names())
    operators = []
    fallbacks = {}
    for name in names:
        if pattern and not pattern.search(name):
            continue
        op = parse_dump(C._dispatch_dump(name))
        op.setdefault("name", name)
        ns, _, rest = name.partition("::")
        base, _, overload = rest.partition(".")
        op.update({"namespace": ns, "base_name": base, "overload": overload})
        op["table"] = parse_table(C._dispatch_dump_table(name))
        _source_keys(op)
        for slot in op["table"]:
            if slot["provenance"] == "backend fallback":
                fallbacks.setdefault(slot["key"], {"key": slot["key"], "registered_at": slot["registered_at"],
                                                   "fallthrough": slot["fallthrough"]})
        operators.append(op)
    lib_dir = os.path.join(os.path.dirname(torch.__file__), "lib")
    return {"format": "glassbox-registry", "version": 1, "producer": "torch " + torch.__version__,
            "torch_lib_dir": lib_dir, "python": sys.version.split()[0],
            "fallbacks": sorted(fallbacks.values(), key=lambda f: f["key"]), "operators": operators}


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
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d",
                    os.path.join(cache, "wheels"), "torch"], check=True)
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
        req = line[len("Requires-Dist: "):]
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
    return {"wheel": wheel, "version": version, "venv": venv, "python": python,
            "torch_lib_dir": os.path.join(site, "torch", "lib"), "include_dir": os.path.join(site, "torch", "include")}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_live = sub.add_parser("live", help="print the live registry as glassbox-registry JSON")
    p_live.add_argument("--ops", help="operators whose name matches this regex")
    p_prep = sub.add_parser("prepare", help="fetch the torch wheel and make a venv that imports it")
    p_prep.add_argument("--cache", default=os.environ.get("GLASSBOX_CACHE", DEFAULT_CACHE))
    args = parser.parse_args(argv)
    if args.command == "live":
        try:
            data = live(args.ops)
        except ImportError as e:
            print("import torch failed: %s" % e, file=sys.stderr)
            return 3
        json.dump(data, sys.stdout)
        sys.stdout.write("\n")
    else:
        json.dump(prepare(args.cache), sys.stdout, indent=1)
        sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
