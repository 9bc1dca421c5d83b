"""factories_shape operators of the op table."""
OPS: list = []
