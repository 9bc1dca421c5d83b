"""gb.add and the other gb.<op> functions are the generated typed bindings, not the boxed path of
gb.ops.<ns>.<op>: the boxed path counts its calls, and the typed functions leave the count alone."""

import glassbox as gb


def boxed_calls():
    return gb._C._ops.boxed_call_count()


def test_gb_add_does_not_take_the_boxed_path():
    a, b = gb.ones(1), gb.ones(1)
    before = boxed_calls()
    assert gb.add(a, b).tolist() == [2.0]
    assert (a + b).tolist() == [2.0]
    assert a.add(b, alpha=2).tolist() == [3.0]
    assert gb.sigmoid(a).numel() == 1
    assert boxed_calls() == before
    assert gb.ops.glassbox.add.Tensor(a, b).tolist() == [2.0]
    assert boxed_calls() == before + 1


def test_gb_add_is_the_generated_function():
    assert gb.add is gb._C._functions.add
    assert type(gb.add).__name__ == "builtin_function_or_method"
    # pybind11 writes the C++ parameter types of a typed binding into its docstring.
    assert "glassbox._C.Tensor" in gb.add.__doc__
