"""gdb helpers for glassbox: pretty-printers for the engine's types and commands that trace
operator registration and dispatch.

Loaded by scripts/gdb/glassbox.gdb, or automatically from libglassbox_core.so (its
.debug_gdb_scripts section names this file) once auto-loading is allowed, e.g.
    gdb -iex "add-auto-load-safe-path /path/to/glassbox" ...

Commands:
    gb-registrations [REGEX]        the live registry: operator, key, kernel kind, file:line
    gb-trace-registration [REGEX]   print every def/impl/fallback as it registers, and go on
    gb-break-dispatch OP [KEY]      stop when OP is dispatched (to KEY); show keys and kernel
    gb-bt                           backtrace with the dispatcher's own frames folded
"""

import json
import re

import gdb

# ---------------------------------------------------------------------------------------------
# Reading libstdc++ and glassbox values


def _enum_names(type_name, fallback):
    """Enumerator names of a C++ enum by value, from the debug info when it has them."""
    try:
        t = gdb.lookup_type(type_name)
        return {int(f.enumval): f.name.split("::")[-1] for f in t.fields()}
    except gdb.error:
        return dict(enumerate(fallback))


_KEY_FALLBACK = [
    "Undefined",
    "CPU",
    "CUDA",
    "Meta",
    "AutogradCPU",
    "AutogradCUDA",
    "Trace",
    "Python",
    "Autograd",
    "CompositeImplicitAutograd",
    "CompositeExplicitAutograd",
]
_DTYPE_FALLBACK = ["Float32", "Float64", "Float16", "BFloat16", "Int64", "Int32", "Int16", "Int8", "UInt8", "Bool"]
_DTYPE_NAMES = {
    "Float32": "float32",
    "Float64": "float64",
    "Float16": "float16",
    "BFloat16": "bfloat16",
    "Int64": "int64",
    "Int32": "int32",
    "Int16": "int16",
    "Int8": "int8",
    "UInt8": "uint8",
    "Bool": "bool",
}
_DTYPE_READ = {
    "float32": ("float", None),
    "float64": ("double", None),
    "int64": ("long", None),
    "int32": ("int", None),
    "int16": ("short", None),
    "int8": ("signed char", None),
    "uint8": ("unsigned char", None),
    "bool": ("bool", None),
    "float16": ("unsigned short", "half"),
    "bfloat16": ("unsigned short", "bfloat16"),
}
_SCHEMA_TYPES = {
    "Tensor": "Tensor",
    "Int": "int",
    "SymInt": "SymInt",
    "Float": "float",
    "Bool": "bool",
    "Str": "str",
    "Scalar": "Scalar",
    "ScalarType": "ScalarType",
    "Device": "Device",
    "Layout": "Layout",
    "MemoryFormat": "MemoryFormat",
    "Generator": "Generator",
}


def key_names():
    return _enum_names("glassbox::DispatchKey", _KEY_FALLBACK)


def enum_name(value):
    """'CPU' for a DispatchKey value, 'Float32' for a ScalarType, ... (gdb prints 'ns::Enum::X')."""
    return str(value).split("::")[-1]


def std_string(v):
    try:
        return v["_M_dataplus"]["_M_p"].string(length=int(v["_M_string_length"]))
    except gdb.error:
        return str(v)


def std_vector(v):
    impl = v["_M_impl"]
    start, finish = impl["_M_start"], impl["_M_finish"]
    return [(start + i).dereference() for i in range(int(finish - start))]


def std_optional(v):
    """The contained value, or None."""
    payload = v["_M_payload"]
    if not bool(payload["_M_engaged"]):
        return None
    return payload["_M_payload"]["_M_value"]


def dim_vector(v):
    data, size = v["data_"], int(v["size_"])
    return [int((data + i).dereference()) for i in range(size)]


def key_set_names(bits):
    names = key_names()
    return [names.get(i, str(i)) for i in range(64) if (bits >> i) & 1]


def symbol_at(address):
    """'glassbox::native::add_cpu(...) at engine/cpu/div_mode_kernels.cpp:51' for a code address:
    the function that contains it (not a function inlined into it) and where it is defined."""
    address = int(address)
    if address == 0:
        return "null"
    function = None
    try:
        block = gdb.block_for_pc(address)
        while block is not None and not (block.is_global or block.is_static):
            if block.function is not None:
                function = block.function  # keeps the outermost: inlined callees sit inside it
            block = block.superblock
    except RuntimeError:
        pass
    if function is not None and function.symtab is not None:
        return "%s at %s:%d" % (function.print_name, function.symtab.filename, function.line)
    text = gdb.execute("info symbol 0x%x" % address, to_string=True).strip()
    return text.split(" in section")[0] if "No symbol" not in text else "0x%x" % address


# ---------------------------------------------------------------------------------------------
# Pretty-printers


class DispatchKeySetPrinter:
    def __init__(self, val):
        self.val = val

    def to_string(self):
        return "DispatchKeySet(%s)" % ", ".join(key_set_names(int(self.val["bits_"])))


class DispatchKeyPrinter:
    def __init__(self, val):
        self.val = val

    def to_string(self):
        return key_names().get(int(self.val), str(int(self.val)))


class OperatorNamePrinter:
    def __init__(self, val):
        self.val = val

    def to_string(self):
        return operator_name(self.val)


def operator_name(v):
    ns, name, overload = std_string(v["ns"]), std_string(v["name"]), std_string(v["overload"])
    return (ns + "::" if ns else "") + name + ("." + overload if overload else "")


def schema_type(t, alias):
    base = _SCHEMA_TYPES.get(enum_name(t["base"]), enum_name(t["base"]))
    text = base + alias
    if bool(t["is_list"]):
        if bool(t["element_optional"]):
            text += "?"
        size = std_optional(t["fixed_size"])
        text += "[%s]" % (int(size) if size is not None else "")
    if bool(t["optional"]):
        text += "?"
    return text


def alias_text(opt):
    a = std_optional(opt)
    if a is None:
        return ""
    before = "|".join(std_string(s) for s in std_vector(a["before_sets"]))
    after = "|".join(std_string(s) for s in std_vector(a["after_sets"]))
    return "(" + before + ("!" if bool(a["is_write"]) else "") + (" -> " + after if after else "") + ")"


def function_schema(v):
    args, kw = [], False
    for a in std_vector(v["arguments"]):
        if bool(a["kwarg_only"]) and not kw:
            args.append("*")
            kw = True
        text = schema_type(a["type"], alias_text(a["alias"])) + " " + std_string(a["name"])
        default = std_optional(a["default_value"])
        if default is not None:
            text += "=" + std_string(default["text"])
        args.append(text)
    if bool(v["is_vararg"]):
        args.append("...")
    rets = []
    for r in std_vector(v["returns"]):
        name = std_string(r["name"])
        rets.append(schema_type(r["type"], alias_text(r["alias"])) + (" " + name if name else ""))
    if bool(v["is_varret"]):
        rets.append("...")
    ret = rets[0] if len(rets) == 1 and " " not in rets[0] else "(" + ", ".join(rets) + ")"
    return "%s(%s) -> %s" % (operator_name(v["name"]), ", ".join(args), ret)


class FunctionSchemaPrinter:
    def __init__(self, val):
        self.val = val

    def to_string(self):
        return function_schema(self.val)


def entry_text(entry):
    schema = std_optional(entry["schema_"])
    if schema is not None:
        return function_schema(schema)
    return operator_name(entry["name_"]) + " (no schema yet)"


class OperatorEntryPrinter:
    def __init__(self, val):
        self.val = val

    def to_string(self):
        return "OperatorEntry(%s)" % entry_text(self.val)


class OperatorHandlePrinter:
    def __init__(self, val):
        self.val = val

    def to_string(self):
        entry = self.val["entry_"]
        if int(entry) == 0:
            return "OperatorHandle(null)"
        return "OperatorHandle(%s)" % entry_text(entry.dereference())


def kernel_text(k):
    boxed = int(k["boxed_"])
    if boxed == 0:
        return "KernelFunction(none)"
    boxed_name = symbol_at(boxed)
    if "fallthrough_boxed" in boxed_name:
        return "KernelFunction(fallthrough)"
    if int(k["fn_"]):
        kind = "unboxed" if int(k["unboxed_"]) else "boxed"
        target = symbol_at(k["fn_"])
        if "missing_kernel" in target:
            return "KernelFunction(missing)"
        return "KernelFunction(%s: %s)" % (kind, target)
    if int(k["unboxed_"]):
        return "KernelFunction(unboxed callable: %s)" % symbol_at(k["unboxed_"])
    return "KernelFunction(boxed callable: %s)" % boxed_name


class KernelFunctionPrinter:
    def __init__(self, val):
        self.val = val

    def to_string(self):
        return kernel_text(self.val)


def _device_text(d):
    kind = enum_name(d["type"]).lower()
    index = int(d["index"])
    return kind + (":%d" % index if index >= 0 else "")


def _half_to_float(bits):
    import struct

    return struct.unpack("<e", struct.pack("<H", bits))[0]


def _bfloat16_to_float(bits):
    import struct

    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def _format_number(x, dtype):
    if dtype == "bool":
        return "True" if x else "False"
    if dtype.startswith("float") or dtype == "bfloat16":
        return "%.4f" % x
    return str(int(x))


def tensor_impl_text(impl, max_items=8):
    sizes = dim_vector(impl["sizes_"])
    strides = dim_vector(impl["strides_"])
    dtype_enum = enum_name(impl["dtype_"])
    dtype = _DTYPE_NAMES.get(dtype_enum, dtype_enum.lower())
    device = _device_text(impl["device_"])
    numel = 1
    for s in sizes:
        numel *= s
    parts = ["size=(%s)" % ", ".join(str(s) for s in sizes), "dtype=%s" % dtype, "device=%s" % device]
    items = "..."
    storage = impl["storage_"]["p_"]
    if device == "cpu" and int(storage) != 0 and numel > 0:
        data = storage.dereference()["data_"]
        cpp_type, special = _DTYPE_READ[dtype]
        ptr = data.cast(gdb.lookup_type(cpp_type).pointer()) + int(impl["storage_offset_"])
        values = []
        for flat in range(min(numel, max_items)):
            offset, rest = 0, flat  # logical order: walk the sizes from the last dimension
            for s, st in zip(reversed(sizes), reversed(strides)):
                offset += (rest % s) * st
                rest //= s
            raw = (ptr + offset).dereference()
            if special == "half":
                value = _half_to_float(int(raw))
            elif special == "bfloat16":
                value = _bfloat16_to_float(int(raw))
            elif dtype == "bool":
                value = bool(raw)
            else:
                value = float(raw) if dtype.startswith("float") else int(raw)
            values.append(_format_number(value, dtype))
        items = ", ".join(values) + (", ..." if numel > max_items else "")
    elif int(storage) == 0:
        items = "no data"
    return "tensor([%s], %s)" % (items, ", ".join(parts))


class TensorImplPrinter:
    def __init__(self, val):
        self.val = val

    def to_string(self):
        return tensor_impl_text(self.val)


class TensorPrinter:
    def __init__(self, val):
        self.val = val

    def to_string(self):
        p = self.val["impl_"]["p_"]
        if int(p) == 0:
            return "tensor(undefined)"
        return tensor_impl_text(p.dereference())


class StoragePrinter:
    def __init__(self, val):
        self.val = val

    def to_string(self):
        v = self.val
        return "Storage(%d bytes on %s at 0x%x, version %d)" % (
            int(v["nbytes_"]),
            _device_text(v["device_"]),
            int(v["data_"]),
            int(v["version_"]["_M_i"]),
        )


def node_name(node):
    """An autograd Node's class name (MulBackward0), from its dynamic type."""
    t = node.dynamic_type.strip_typedefs()
    name = t.tag or t.name or "Node"
    return name.split("::")[-1]


def node_text(node):
    if node.type.code == gdb.TYPE_CODE_REF:
        node = node.referenced_value()
    node = node.cast(node.dynamic_type)
    edges = []
    for e in std_vector(node["next_edges_"]):
        fn = e["function"]["_M_ptr"]
        if int(fn) == 0:
            edges.append("None")
        else:
            edges.append("%s:%d" % (node_name(fn.dereference()), int(e["input_nr"])))
    return "%s(sequence_nr=%d, next_edges=[%s])" % (node_name(node), int(node["sequence_nr_"]), ", ".join(edges))


class NodePrinter:
    def __init__(self, val):
        self.val = val

    def to_string(self):
        return node_text(self.val)


class IntrusivePtrPrinter:
    def __init__(self, val):
        self.val = val

    def to_string(self):
        p = self.val["p_"]
        if int(p) == 0:
            return "null"
        return "%s" % p.dereference()


def _lookup(val):
    t = val.type.strip_typedefs()
    if t.code == gdb.TYPE_CODE_REF:
        t = t.target().strip_typedefs()
    name = t.unqualified().tag or t.unqualified().name
    if not name:
        return None
    if name == "glassbox::DispatchKeySet":
        return DispatchKeySetPrinter(val)
    if name == "glassbox::DispatchKey":
        return DispatchKeyPrinter(val)
    if name == "glassbox::OperatorName":
        return OperatorNamePrinter(val)
    if name == "glassbox::FunctionSchema":
        return FunctionSchemaPrinter(val)
    if name == "glassbox::OperatorEntry":
        return OperatorEntryPrinter(val)
    if name == "glassbox::OperatorHandle" or name.startswith("glassbox::TypedOperatorHandle<"):
        return OperatorHandlePrinter(val)
    if name == "glassbox::KernelFunction":
        return KernelFunctionPrinter(val)
    if name == "glassbox::Tensor":
        return TensorPrinter(val)
    if name == "glassbox::TensorImpl":
        return TensorImplPrinter(val)
    if name == "glassbox::StorageImpl":
        return StoragePrinter(val)
    if name.startswith("glassbox::intrusive_ptr<"):
        return IntrusivePtrPrinter(val)
    # autograd nodes: the base class and every generated backward node (MulBackward0, ...)
    if (
        name == "glassbox::autograd::Node"
        or name == "glassbox::autograd::AccumulateGrad"
        or (re.search(r"Backward\d+$", name) and "::" in name)
    ):
        return NodePrinter(val)
    return None


# ---------------------------------------------------------------------------------------------
# Commands


def in_plt_stub():
    """A pending breakpoint on a function also lands on its PLT entry; those hits are skipped."""
    frame = gdb.selected_frame()
    return (frame.name() or "").endswith("@plt")


def read_arg(name, depth=4):
    """An argument of the function a breakpoint stopped in. In optimised code the innermost frame
    can be a function inlined into it, so look a few frames out."""
    frame = gdb.selected_frame()
    for _ in range(depth):
        try:
            return frame.read_var(name)
        except ValueError:
            frame = frame.older()
            if frame is None:
                break
    raise ValueError("no argument '%s' in the frames at this stop" % name)


def _inferior_string(expression):
    return std_string(gdb.parse_and_eval(expression))


class RegistrationsCommand(gdb.Command):
    """gb-registrations [REGEX]: the live registry — every kernel registered, per operator."""

    def __init__(self):
        super().__init__("gb-registrations", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        pattern = re.compile(arg.strip()) if arg.strip() else None
        try:
            registry = json.loads(_inferior_string("glassbox::registry_to_json(0)"))
        except gdb.error as e:
            raise gdb.GdbError("gb-registrations needs a running process with libglassbox_core loaded (%s)" % e) from e
        shown = 0
        for op in registry["operators"]:
            if pattern and not pattern.search(op["name"]):
                continue
            shown += 1
            print("%s  %s" % (op["name"], op["schema"] or "(no schema)"))
            if op["defined_at"]:
                print("    def: %s" % op["defined_at"])
            for k in op["kernels"]:
                print(
                    "    %-28s %-11s %s%s"
                    % (k["key"], k["kind"], k["registered_at"], "" if k["active"] else " (replaced)")
                )
        for f in registry["fallbacks"]:
            if not pattern:
                print(
                    "fallback %-20s %s%s" % (f["key"], f["registered_at"], " (fallthrough)" if f["fallthrough"] else "")
                )
        print("%d operator(s)%s" % (shown, " matching " + arg.strip() if pattern else ""))


class _RegistrationBreakpoint(gdb.Breakpoint):
    def __init__(self, pattern):
        super().__init__("glassbox::detail::registration_event", internal=False)
        self.silent = True
        self.pattern = pattern

    def _arg(self, name):
        return read_arg(name)

    def stop(self):
        if in_plt_stub():
            return False
        try:
            kind = self._arg("kind").string()
            where = self._arg("where").string()
            key = key_names().get(int(self._arg("key")), "?")
            if kind == "def":
                schema = self._arg("schema").dereference()
                name = operator_name(schema["name"])
                text = "[registration] def %s at %s" % (function_schema(schema), where)
            elif kind == "impl":
                name = operator_name(self._arg("op").dereference())
                text = "[registration] impl %s key=%s kernel=%s at %s" % (
                    name,
                    key,
                    kernel_text(self._arg("kernel").dereference()),
                    where,
                )
            else:
                name = "fallback"
                text = "[registration] fallback key=%s kernel=%s at %s" % (
                    key,
                    kernel_text(self._arg("kernel").dereference()),
                    where,
                )
        except (gdb.error, ValueError) as e:
            print("[registration] (arguments unavailable: %s)" % e)
            return False
        if self.pattern is None or self.pattern.search(name):
            print(text)
        return False  # print and go on


class TraceRegistrationCommand(gdb.Command):
    """gb-trace-registration [REGEX]: print every def/impl/fallback registration (matching REGEX)
    with its file:line as it happens, and continue. Works before the library is loaded."""

    def __init__(self):
        super().__init__("gb-trace-registration", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        pattern = re.compile(arg.strip()) if arg.strip() else None
        gdb.execute("set breakpoint pending on", to_string=True)
        _RegistrationBreakpoint(pattern)


def _enable_dispatch_hook():
    gdb.execute("set var glassbox::detail::dispatch_debugger_hook._M_base._M_i = true", to_string=True)
    gdb.execute("set var glassbox::detail::dispatch_trace_active._M_base._M_i = true", to_string=True)


class _DispatchBreakpoint(gdb.Breakpoint):
    def __init__(self, op, key):
        super().__init__("glassbox::detail::dispatch_event", internal=False)
        self.silent = True
        self.op = op
        self.key = key

    def stop(self):
        if in_plt_stub():
            return False
        try:
            name = operator_name(read_arg("op").dereference())
            if name != self.op and name.split(".")[0] != self.op:
                return False
            bits = int(read_arg("keys")["bits_"])
            names = key_set_names(bits)
            key = names[-1] if names else "Undefined"
            if self.key and key != self.key:
                return False
            kernel = kernel_text(read_arg("kernel").dereference())
        except (gdb.error, ValueError) as e:
            print("[dispatch] (arguments unavailable: %s)" % e)
            return False
        print("[dispatch] %s keys=DispatchKeySet(%s) key=%s" % (name, ", ".join(names), key))
        print("           kernel: %s" % kernel)
        return True


class BreakDispatchCommand(gdb.Command):
    """gb-break-dispatch OP [KEY]: stop when operator OP (ns::name or ns::name.overload) is
    dispatched, optionally only to dispatch key KEY; show the key set and the chosen kernel."""

    def __init__(self):
        super().__init__("gb-break-dispatch", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        words = arg.split()
        if not words:
            raise gdb.GdbError("usage: gb-break-dispatch OP [KEY]  (e.g. gb-break-dispatch glassbox::add CPU)")
        gdb.execute("set breakpoint pending on", to_string=True)
        if gdb.selected_inferior().pid:
            _enable_dispatch_hook()
        else:  # not started yet: libglassbox_core turns the hook on when it loads
            gdb.execute("set environment GLASSBOX_DISPATCH_DEBUGGER 1", to_string=True)
        _DispatchBreakpoint(words[0], words[1] if len(words) > 1 else None)


_DISPATCHER_FRAMES = re.compile(
    r"glassbox::(TypedOperatorHandle<.*>::(call|redispatch)|KernelFunction::(call|call_boxed|call_function|"
    r"call_functor|boxed_from_unboxed|call_through_boxed)|OperatorHandle::(call_boxed|redispatch_boxed)|"
    r"DispatchTraceScope|detail::dispatch_event|\(anonymous namespace\)::dispatch_boxed|detail::fallthrough_boxed|ops::\w+::(call|redispatch))"
)


class FoldedBacktraceCommand(gdb.Command):
    """gb-bt: the backtrace with glassbox's dispatcher frames folded into one line each."""

    def __init__(self):
        super().__init__("gb-bt", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        frame, index, folded = gdb.newest_frame(), 0, []
        while frame is not None:
            name = frame.name() or "??"
            if _DISPATCHER_FRAMES.search(name):
                folded.append(name)
            else:
                if folded:
                    print("    [dispatcher: %d frame(s)]" % len(folded))
                    folded = []
                sal = frame.find_sal()
                where = " at %s:%d" % (sal.symtab.filename, sal.line) if sal.symtab else ""
                print("#%-3d %s%s" % (index, name, where))
            frame, index = frame.older(), index + 1
        if folded:
            print("    [dispatcher: %d frame(s)]" % len(folded))


def register(objfile=None):
    target = objfile if objfile is not None else gdb
    if not any(getattr(p, "__name__", "") == "glassbox" for p in getattr(target, "pretty_printers", [])):
        _lookup.__name__ = "glassbox"
        target.pretty_printers.append(_lookup)


if not getattr(gdb, "_glassbox_loaded", False):
    gdb._glassbox_loaded = True
    register()
    RegistrationsCommand()
    TraceRegistrationCommand()
    BreakDispatchCommand()
    FoldedBacktraceCommand()
