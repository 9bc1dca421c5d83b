"""linalg_nn operators of the op table."""
OPS: list = []
