"""What a compiled program calls besides operators: the check of a value that Python read while
the graph was captured (an `if` on a tensor, `.item()`). The graph holds the value it saw; when a
run reads another one, the program took another path, and gb.compile compiles that path too."""

# How each value read is written in a program, by the Tensor method that made it.
READ_TEXT = {
    "item": "{}.item()",
    "tolist": "{}.tolist()",
    "__bool__": "bool({})",
    "__float__": "float({})",
    "__int__": "int({})",
    "__index__": "operator.index({})",
}


class ValueGuardFailed(Exception):
    """A value read at run time differs from the one the graph was captured with."""

    def __init__(self, what, where, expected, got):
        self.what, self.where, self.expected, self.got = what, where, expected, got
        super().__init__("%s at %s: expected %r, got %r" % (what, where, expected, got))


def read_text(method, operand):
    return READ_TEXT[method].format(operand)


def check_value(got, expected, what, where):
    """Raises ValueGuardFailed unless got == expected."""
    if type(got) is not type(expected) or got != expected:
        raise ValueGuardFailed(what, where, expected, got)
