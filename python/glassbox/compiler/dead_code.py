"""Dead code: operators whose results nothing uses are dropped before fusion (an `empty` made for
an out= argument that capture turned into a functional call, a value computed and ignored).
Operators that draw random numbers stay (dropping them would change the generator's state), and so
do the checks of values Python read."""

_RANDOM = ("rand", "randn", "randint", "randperm", "bernoulli", "normal", "uniform", "dropout", "multinomial")


def draws_random_numbers(node):
    base = node.short_op.split(".", 1)[0].rstrip("_")
    return any(word in base for word in _RANDOM)


def eliminate(graph):
    """Removes unused nodes from graph (in place); returns the removed nodes."""
    removed = []
    changed = True
    while changed:
        changed = False
        used = {id(v) for v in graph.output_values()}
        for n in graph.nodes:
            used.update(id(v) for v in n.input_values())
        for n in reversed(graph.nodes):
            if n.kind != "read" and not any(id(v) in used for v in n.outputs) and not draws_random_numbers(n):
                graph.nodes.remove(n)
                removed.append(n)
                changed = True
    return removed
