"""reductions operators of the op table."""
OPS: list = []
