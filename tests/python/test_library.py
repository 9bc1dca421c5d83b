"""gb.library.Library: operators defined and kernels registered from Python, with this file's
lines in the registry, the C++ conflict errors, deregistration that restores the tables, errors
raised by Python kernels, autograd through math kernels, fallbacks and the Python key."""

import gc
import inspect
import os
import re

import numpy as np
import pytest

import glassbox as gb
from glassbox.library import Library, fallthrough_kernel, include_key

HERE = os.path.basename(__file__)


def here(offset=0):
    """ "test_library.py:N" of the caller's line plus offset."""
    return "%s:%d" % (HERE, inspect.currentframe().f_back.f_lineno + offset)


def registry_state():
    info = gb.registry.info()
    return info["libraries"], info["fallbacks"], gb.registry.operators()


def test_define_impl_call_and_dump_show_python_lines():
    lib = Library("t_py", "DEF")
    lib_line = here(-1)
    name = lib.define("scale(Tensor x, float factor) -> Tensor")
    def_line = here(-1)
    assert name == "t_py::scale"

    @lib.impl("scale", key="CPU")
    def scale(x, factor):
        return x * factor

    impl_line = here(-4)

    out = gb.ops.t_py.scale(gb.tensor([1.0, 2.0]), 3.0)
    assert out.tolist() == [3.0, 6.0]
    dump = gb.registry.dump("t_py::scale")
    assert "schema: t_py::scale(Tensor x, float factor) -> Tensor" in dump
    assert def_line in dump and impl_line in dump
    op = gb.registry.operator_info("t_py::scale")
    assert op["defined_at"].endswith(def_line)
    kernels = [k for k in op["kernels"] if k["key"] == "CPU"]
    assert len(kernels) == 1 and kernels[0]["kind"] == "boxed" and kernels[0]["registered_at"].endswith(impl_line)
    assert any(
        l["namespace"] == "t_py" and l["kind"] == "DEF" and l["defined_at"].endswith(lib_line)
        for l in gb.registry.info()["libraries"]
    )
    lib.close()


def test_close_with_and_garbage_collection_restore_the_registry():
    before = registry_state()
    lib = Library("t_py2", "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: x + 1, key="CPU")
    frag = Library("t_py2", "FRAGMENT")
    frag.define("g(Tensor x) -> Tensor")
    assert registry_state() != before
    frag.close()
    lib.close()
    lib.close()  # idempotent
    assert registry_state() == before
    with pytest.raises(RuntimeError, match="is closed"):
        lib.define("h(Tensor x) -> Tensor")

    with Library("t_py2", "DEF") as lib2:
        lib2.define("f(Tensor x) -> Tensor")
        assert "t_py2::f" in gb.registry.operators()
    assert registry_state() == before

    lib3 = Library("t_py2", "DEF")
    lib3.define("f(Tensor x) -> Tensor")
    lib3.impl("f", lambda x: x, key="CPU")
    del lib3
    gc.collect()
    assert registry_state() == before
    Library("t_py2", "DEF").close()  # the namespace is free again


def test_an_impl_library_adds_and_removes_one_kernel():
    with Library("t_py3", "DEF") as lib:
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", lambda x: x + 1, key="CPU")
        x = gb.ones(2)
        table_before = gb.registry.dump_table("t_py3::f")
        with Library("t_py3", "IMPL", "Meta") as meta:
            meta.impl("f", lambda x: gb.empty([5], device="meta"))
            assert gb.ops.t_py3.f(gb.empty([2], device="meta")).shape == (5,)
            assert gb.ops.t_py3.f(x).tolist() == [2.0, 2.0]
            assert re.search(r"Meta: registered at \S*%s:\d+ \[kernel\]" % HERE, gb.registry.dump_table("t_py3::f"))
        assert gb.registry.dump_table("t_py3::f") == table_before
        with pytest.raises(RuntimeError, match="no kernel for t_py3::f for dispatch key Meta; registered: CPU"):
            gb.ops.t_py3.f(gb.empty([2], device="meta"))


def test_conflicts_name_both_places():
    with Library("t_py4", "DEF") as lib:
        first = here(-1)
        with pytest.raises(RuntimeError) as e:
            Library("t_py4", "DEF")
        second = here(-1)
        assert "defined twice" in str(e.value) and first in str(e.value) and second in str(e.value)

        lib.define("f(Tensor x) -> Tensor")
        def_line = here(-1)
        with pytest.raises(RuntimeError) as e:
            lib.define("f(Tensor x, int n) -> Tensor")
        again = here(-1)
        assert "operator t_py4::f is defined twice" in str(e.value)
        assert def_line in str(e.value) and again in str(e.value)

        def two_args(a, b):
            return a

        with pytest.raises(RuntimeError) as e:
            lib.impl("f", two_args, key="CPU")
        impl_line = here(-1)
        text = str(e.value)
        assert "does not fit the schema t_py4::f(Tensor x) -> Tensor" in text
        assert impl_line in text and def_line in text

        with pytest.raises(RuntimeError, match="outside the namespace"):
            lib.define("other::g(Tensor x) -> Tensor")

    # A kernel registered before its def is checked when the def arrives.
    with Library("t_py5", "IMPL", "CPU") as impl:
        impl.impl("f", lambda: None)
        with Library("t_py5", "DEF") as lib:
            with pytest.raises(RuntimeError, match="does not fit the schema t_py5::f\\(Tensor x\\)"):
                lib.define("f(Tensor x) -> Tensor")

    # A def that clashes with a C++ one names the generated registration too.
    with Library("glassbox", "FRAGMENT") as frag:
        with pytest.raises(RuntimeError) as e:
            frag.define("add.Tensor(Tensor self, Tensor other) -> Tensor")
        assert "RegisterSchema.cpp:" in str(e.value) and HERE in str(e.value)

    with Library("t_py6", "DEF") as lib:
        with pytest.raises(RuntimeError, match="IMPL libraries only register kernels"):
            Library("t_py6", "IMPL", "CPU").define("g(Tensor x) -> Tensor")
        with pytest.raises(ValueError, match="kind must be"):
            Library("t_py6", "DEFINE")
        with pytest.raises(ValueError, match="needs a dispatch key"):
            Library("t_py6", "IMPL")
        with pytest.raises(RuntimeError, match="unknown dispatch key 'GPU'"):
            Library("t_py6", "IMPL", "GPU")
        with pytest.raises(RuntimeError, match="schema error at column"):
            lib.define("g(Tensor x Tensor y) -> Tensor")
        with pytest.raises(TypeError, match="not callable"):
            lib.impl("g", 42)


def test_errors_inside_a_python_kernel_reach_the_caller():
    with Library("t_py7", "DEF") as lib:
        lib.define("boom(Tensor x) -> Tensor")
        lib.define("wrong(Tensor x) -> Tensor")
        lib.define("pair(Tensor x) -> (Tensor, Tensor)")

        @lib.impl("boom", key="CPU")
        def boom(x):
            raise ValueError("boom at %d elements" % x.numel())

        @lib.impl("wrong", key="CPU")
        def wrong(x):
            return "not a tensor"

        wrong_line = here(-4)

        lib.impl("pair", lambda x: (x, x * 2), key="CPU")
        with pytest.raises(ValueError, match="boom at 3 elements"):
            gb.ops.t_py7.boom(gb.ones(3))
        with pytest.raises(TypeError) as e:
            gb.ops.t_py7.wrong(gb.ones(3))
        assert "t_py7::wrong: the Python kernel registered at" in str(e.value) and wrong_line in str(e.value)
        assert "expected Tensor but got str" in str(e.value)
        a, b = gb.ops.t_py7.pair(gb.ones(2))
        assert a.tolist() == [1.0, 1.0] and b.tolist() == [2.0, 2.0]


def test_keyword_only_arguments_and_defaults():
    with Library("t_py8", "DEF") as lib:
        lib.define("axpy(Tensor x, Tensor y, *, float alpha=2.0) -> Tensor")
        lib.impl("axpy", lambda x, y, *, alpha: x * alpha + y, key="CPU")
        x, y = gb.tensor([1.0, 2.0]), gb.tensor([10.0, 20.0])
        assert gb.ops.t_py8.axpy(x, y).tolist() == [12.0, 24.0]
        assert gb.ops.t_py8.axpy(x, y, alpha=-1.0).tolist() == [9.0, 18.0]


def test_a_math_kernel_is_differentiated_by_autograd():
    with Library("t_py9", "DEF") as lib:
        lib.define("softplus2(Tensor x) -> Tensor")
        lib.impl("softplus2", lambda x: (gb.exp(x) + 1).log() * 2)  # CompositeImplicitAutograd
        assert "CompositeImplicitAutograd" in gb.registry.dump("t_py9::softplus2")
        xs = np.array([-1.0, 0.5, 2.0])
        x = gb.tensor(xs.tolist(), dtype=gb.float64, requires_grad=True)
        y = gb.ops.t_py9.softplus2(x)
        assert y.grad_fn is not None
        np.testing.assert_allclose(y.tolist(), 2 * np.log1p(np.exp(xs)), rtol=1e-6)
        y.sum().backward()
        np.testing.assert_allclose(x.grad.tolist(), 2 / (1 + np.exp(-xs)), rtol=1e-6)
        # exactly what the same operations give when called directly
        x2 = gb.tensor(xs.tolist(), dtype=gb.float64, requires_grad=True)
        ((gb.exp(x2) + 1).log() * 2).sum().backward()
        assert x.grad.tolist() == x2.grad.tolist()


def test_python_operators_show_in_the_trace():
    with Library("t_py10", "DEF") as lib:
        lib.define("double(Tensor x) -> Tensor")
        lib.impl("double", lambda x: x * 2, key="CPU")
        impl_line = here(-1)
        x = gb.ones(2)
        with gb.trace() as t:
            gb.ops.t_py10.double(x)
    first = t.events[0]
    assert (first.kind, first.op, first.key, first.depth) == ("call", "t_py10::double", "CPU", 0)
    assert first.kernel == "kernel" and first.registered_at.endswith(impl_line)
    # the kernel's own calls, nested below it
    assert [(e.op, e.key, e.depth) for e in t.events[1:]] == [
        ("glassbox::mul.Scalar", "AutogradCPU", 1),
        ("glassbox::mul.Tensor", "AutogradCPU", 2),
        ("glassbox::mul.Tensor", "CPU", 3),
    ]


def test_fallthrough_and_fallbacks():
    with Library("t_py11", "DEF") as lib:
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", lambda x: x + 1, key="CPU")
        lib.impl("f", lambda x: x * 100, key="AutogradCPU")
        assert gb.ops.t_py11.f(gb.ones(1)).tolist() == [100.0]
        with Library("t_py11", "IMPL", "AutogradCPU") as skip:
            skip.impl("f", fallthrough_kernel)  # replaces the AutogradCPU kernel while open
            assert gb.ops.t_py11.f(gb.ones(1)).tolist() == [2.0]
        assert gb.ops.t_py11.f(gb.ones(1)).tolist() == [100.0]

    with pytest.raises(RuntimeError) as e:
        Library("_", "IMPL", "AutogradCPU").fallback(lambda call: None)
    fallback_line = here(-1)
    assert re.search(
        r"a fallback for dispatch key AutogradCPU is already registered at \S*registry/builtin_fallbacks.cpp:\d+",
        str(e.value),
    )
    assert fallback_line in str(e.value)

    # A Python-key fallback: a mode that sees every call on the thread, then lets it go on.
    seen = []
    x = gb.tensor([1.0, 2.0])
    with Library("_", "IMPL", "Python") as mode:

        @mode.fallback
        def log(call):
            seen.append((call.op, call.key, len(call.args)))
            return call.redispatch()

        assert (x + x).tolist() == [2.0, 4.0] and not seen  # no tensor carries the Python key
        with include_key("Python"):
            y = gb.ops.glassbox.mul(x, 3)
            z = x + y
        assert z.tolist() == [4.0, 8.0]
        assert ("glassbox::mul.Scalar", "Python", 2) in seen and ("glassbox::add.Tensor", "Python", 3) in seen
    assert "Python" not in [f["key"] for f in gb.registry.info()["fallbacks"]]


def test_the_python_key_is_reached_only_when_included():
    with Library("t_py12", "DEF") as lib:
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", lambda x: x + 1, key="CPU")
        lib.impl("f", lambda x: x - 1, key="Python")  # x - 1 runs below the Python key
        x = gb.ones(1)
        assert gb.ops.t_py12.f(x).tolist() == [2.0]
        with include_key("Python"):
            assert gb.ops.t_py12.f(x).tolist() == [0.0]
            with pytest.raises(RuntimeError, match="no kernel for glassbox::ones.* for dispatch key Python"):
                gb.ones(1)  # nothing serves the Python key for ones


def test_gb_ops_sees_overloads_come_and_go():
    with Library("t_py13", "DEF") as lib:
        lib.define("f.int(Tensor x, int n) -> Tensor")
        lib.impl("f.int", lambda x, n: x + n, key="CPU")
        f = gb.ops.t_py13.f
        assert f(gb.ones(1), 2).tolist() == [3.0]
        with Library("t_py13", "FRAGMENT") as frag:
            frag.define("f.float(Tensor x, float s) -> Tensor")
            frag.impl("f.float", lambda x, s: x * s, key="CPU")
            assert gb.ops.t_py13.f(gb.ones(1), 2.5).tolist() == [2.5]
            assert f(gb.ones(1), 2.5).tolist() == [2.5]  # a packet held from before finds it too
        with pytest.raises(RuntimeError, match="no overload accepts these arguments"):
            gb.ops.t_py13.f(gb.ones(1), 2.5)
    with pytest.raises(AttributeError, match="no operator t_py13::f"):
        gb.ops.t_py13.f
