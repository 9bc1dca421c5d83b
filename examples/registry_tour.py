"""The registry and the dispatcher behind `a + b`, on glassbox's real operators.

    .venv/bin/python examples/registry_tour.py [--json out/registry.json]

Shows what `gb.registry` knows of glassbox::add.Tensor (its schema, each kernel and where it was
registered, the computed dispatch table), then the route one call takes through that table with
and without autograd, each hop with the kernel it reached.
"""

import argparse
import collections

import glassbox as gb

OP = "glassbox::add.Tensor"


def heading(text):
    print("\n-- %s --" % text)


def show_route(title, fn):
    heading(title)
    with gb.trace() as t:
        fn()
    for e in t.events:
        print("%-48s -> %s at %s" % (e, e.kernel or "?", e.registered_at or "?"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="also write the whole registry as JSON to this file")
    args = parser.parse_args()

    ops = gb.registry.info()["operators"]
    per_key = collections.Counter(kernel["key"] for op in ops for kernel in op["kernels"])
    print(
        "%d operators registered; kernels per key: %s"
        % (len(ops), ", ".join("%s %d" % kv for kv in sorted(per_key.items(), key=lambda kv: -kv[1])))
    )

    heading("gb.registry.dump(%r): the schema and every kernel registered for it" % OP)
    print(gb.registry.dump(OP).rstrip())
    heading("gb.registry.dump_table(%r): the computed table, one slot per runtime key" % OP)
    print(gb.registry.dump_table(OP).rstrip())

    a, b = gb.ones(2, 3), gb.ones(2, 3)
    w = gb.ones(2, 3, requires_grad=True)
    m, n = gb.ones(2, 3, device="meta"), gb.ones(3, device="meta")
    show_route(
        "a + b: every CPU tensor carries the AutogradCPU key; nothing requires grad, so its kernel "
        "records nothing and redispatches to CPU",
        lambda: a + b,
    )
    result = []
    show_route(
        "w + b: w requires grad; the same route, and the autograd kernel records a node", lambda: result.append(w + b)
    )
    print("(w + b).grad_fn = %s" % result[0].grad_fn)
    show_route(
        "m + n on the Meta device: the front end alone (shapes, dtypes, broadcasting), no data",
        lambda: result.append(m + n),
    )
    print("(m + n) = %r" % (result[1],))

    if args.json:
        with open(args.json, "w") as f:
            f.write(gb.registry.to_json())
        print("\nwrote the whole registry to %s" % args.json)


if __name__ == "__main__":
    main()
