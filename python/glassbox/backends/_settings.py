"""The properties of gb.backends' modules: each reads and writes one of the engine's switches."""

from .. import _C


def engine_switch(name, doc=None):
    """A property over the engine's switch `name`: read by _C._cuda.<name>(), written (as a bool) by
    _C._cuda.set_<name>()."""
    return property(
        lambda self: getattr(_C._cuda, name)(),
        lambda self, value: getattr(_C._cuda, "set_" + name)(bool(value)),
        doc=doc,
    )
