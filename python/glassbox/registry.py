"""The operator registry: what is registered, where (file:line), and how calls dispatch.

>>> import glassbox as gb
>>> print(gb.registry.dump_table("glassbox::add.Tensor"))      # doctest: +SKIP
CPU: registered at engine/cpu/binary.cpp:42 [kernel]
"""

import contextlib
import json as _json

from . import _C

_r = _C._registry


def operators():
    """Names of every registered operator, sorted ("ns::name.overload")."""
    return _r.operators()


def dump(op):
    """Schema, where it was defined, and every kernel registered for `op`, per dispatch key."""
    return _r.dump(op)


def dump_table(op):
    """The computed dispatch table of `op`: one line per runtime key, with provenance."""
    return _r.dump_table(op)


def registrations(key):
    """Every kernel registered for one dispatch key (e.g. "CPU"), and that key's fallback."""
    return _r.dump_registrations(key)


def to_json(indent=2):
    """The whole registry as JSON text (operators, schemas, tags, kernels, tables, fallbacks)."""
    return _r.to_json(indent)


def info():
    """The whole registry as Python data (the parsed to_json())."""
    return _json.loads(_r.to_json(0))


def operator_info(op):
    """One operator as Python data: schema, tags, kernels per key, computed table."""
    return _json.loads(_r.operator_to_json(op, 0))


def warnings():
    """Registration warnings so far (e.g. a kernel that replaced another for the same key)."""
    return _r.warnings()


def parse_schema(schema):
    """Canonical text of a schema; raises ValueError pointing at the offending column."""
    return _r.parse_schema(schema)


def dispatch_keys():
    """Runtime keys (lowest priority first), then the alias keys."""
    return _r.dispatch_keys()


def set_dispatch_trace(on):
    """Print every dispatcher call and redispatch to stderr (like GLASSBOX_DISPATCH_TRACE=1)."""
    _r.set_dispatch_trace(bool(on))


@contextlib.contextmanager
def trace_calls():
    """Prints the dispatch trace of the calls made inside the block to stderr."""
    was_on = _r.dispatch_trace_enabled()
    _r.set_dispatch_trace(True)
    try:
        yield
    finally:
        _r.set_dispatch_trace(was_on)
