"""pointwise operators of the op table."""
OPS: list = []
