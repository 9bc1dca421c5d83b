"""DLPack both ways: NumPy round trips for every dtype, shared memory proven by writes, strided and
0-d tensors, storage offsets, lifetimes (the producer may go first; the deleter runs exactly once),
the capsule protocol, and errors for what cannot be exchanged."""

import ctypes
import gc
import sys

import numpy as np
import pytest

import glassbox as gb

NUMPY_DTYPES = [
    (gb.float32, np.float32),
    (gb.float64, np.float64),
    (gb.float16, np.float16),
    (gb.int64, np.int64),
    (gb.int32, np.int32),
    (gb.int16, np.int16),
    (gb.int8, np.int8),
    (gb.uint8, np.uint8),
    (gb.bool, np.bool_),
]


# ---- reading a capsule from Python, to check what glassbox writes into it -----------------------


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


VDELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [
    ("version", DLPackVersion),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", VDELETER),
    ("flags", ctypes.c_uint64),
    ("dl_tensor", DLTensor),
]

_api = ctypes.pythonapi
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


def capsule_name(capsule):
    return _api.PyCapsule_GetName(capsule).decode()


def managed(capsule, versioned=False):
    name = capsule_name(capsule).encode()
    kind = DLManagedTensorVersioned if versioned else DLManagedTensor
    return ctypes.cast(_api.PyCapsule_GetPointer(capsule, name), ctypes.POINTER(kind)).contents


class Producer:
    """A foreign DLPack tensor made by hand: any device, dtype and flags; counts its deleter calls."""

    def __init__(self, array, device_type=1, code=None, bits=None, versioned=False, flags=0, version=(1, 0)):
        self.array = array  # the memory
        self.shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
        self.strides = (ctypes.c_int64 * max(array.ndim, 1))(*[s // array.itemsize for s in array.strides])
        self.deleted = 0
        kind, deleter_type = (DLManagedTensorVersioned, VDELETER) if versioned else (DLManagedTensor, DELETER)
        self.m = kind()
        t = self.m.dl_tensor
        t.data = array.ctypes.data
        t.device = DLDevice(device_type, 0)
        t.ndim = array.ndim
        t.dtype = DLDataType(2 if code is None else code, array.itemsize * 8 if bits is None else bits, 1)
        t.shape = self.shape
        t.strides = self.strides
        if versioned:
            self.m.version = DLPackVersion(*version)
            self.m.flags = flags

        def deleter(_):
            self.deleted += 1

        self.deleter = deleter_type(deleter)
        self.m.deleter = self.deleter
        self.name = b"dltensor_versioned" if versioned else b"dltensor"

    def capsule(self):  # no capsule destructor: the test checks who calls the deleter
        return _api.PyCapsule_New(ctypes.addressof(self.m), self.name, None)


# ---- round trips ----------------------------------------------------------------------------------


@pytest.mark.parametrize("gb_dtype,np_dtype", NUMPY_DTYPES, ids=lambda d: str(d))
def test_numpy_round_trip_every_dtype(gb_dtype, np_dtype):
    a = (np.arange(12).reshape(3, 4) % 3).astype(np_dtype)
    t = gb.from_dlpack(a)
    assert t.dtype == gb_dtype and t.shape == (3, 4)
    assert t.tolist() == a.tolist()
    b = np.from_dlpack(t)
    assert b.dtype == np_dtype and b.shape == (3, 4)
    np.testing.assert_array_equal(b, a)
    assert b.ctypes.data == a.ctypes.data == t.data_ptr()  # the same memory, three times


def test_bfloat16_round_trips_through_a_capsule():
    t = gb.tensor([1.5, -2.0, 3.25]).to(gb.bfloat16)
    capsule = t.__dlpack__()
    m = managed(capsule)
    assert (m.dl_tensor.dtype.code, m.dl_tensor.dtype.bits, m.dl_tensor.dtype.lanes) == (4, 16, 1)
    u = gb.from_dlpack(capsule)
    assert u.dtype == gb.bfloat16 and u.data_ptr() == t.data_ptr()
    assert u.to(gb.float32).tolist() == [1.5, -2.0, 3.25]


def test_writes_are_seen_both_ways():
    a = np.zeros((2, 3), np.float32)
    t = gb.from_dlpack(a)
    a[1, 2] = 7.0
    assert t.tolist()[1][2] == 7.0
    t.add_(1.0)
    np.testing.assert_array_equal(a, np.array([[1, 1, 1], [1, 1, 8]], np.float32))
    b = np.from_dlpack(gb.zeros(4))
    t2 = gb.from_dlpack(b)
    t2.mul_(0.0).add_(5.0)
    np.testing.assert_array_equal(b, np.full(4, 5.0, np.float32))


def test_strided_views_and_storage_offsets():
    base = gb.arange(24, dtype=gb.float32).reshape([4, 6])
    view = base.transpose(0, 1)[1:, 2:]  # non-contiguous, storage offset 2*1 + 1*6... > 0
    assert not view.is_contiguous() and view.storage_offset() > 0
    capsule = view.__dlpack__()
    m = managed(capsule)
    assert m.dl_tensor.data == view.data_ptr() and m.dl_tensor.byte_offset == 0
    assert [m.dl_tensor.strides[i] for i in range(2)] == list(view.stride())
    b = np.from_dlpack(gb.from_dlpack(capsule))
    np.testing.assert_array_equal(b, np.arange(24, dtype=np.float32).reshape(4, 6).T[1:, 2:])
    assert b.strides == tuple(s * 4 for s in view.stride())

    a = np.arange(30, dtype=np.int64).reshape(5, 6)[1::2, ::3]  # NumPy's own strided view
    t = gb.from_dlpack(a)
    assert t.stride() == (12, 3) and t.tolist() == a.tolist()


def test_zero_dim_and_empty_tensors():
    t = gb.tensor(3.5)
    b = np.from_dlpack(t)
    assert b.shape == () and b[()] == 3.5
    u = gb.from_dlpack(np.array(2.5, np.float64))
    assert u.shape == () and u.item() == 2.5
    e = gb.from_dlpack(np.zeros((0, 3), np.float32))
    assert e.shape == (0, 3) and e.numel() == 0
    assert np.from_dlpack(gb.zeros([2, 0])).shape == (2, 0)


def test_versioned_and_unversioned_capsules():
    t = gb.ones(3)
    old = t.__dlpack__()
    assert capsule_name(old) == "dltensor"
    new = t.__dlpack__(max_version=(1, 0))
    assert capsule_name(new) == "dltensor_versioned"
    m = managed(new, versioned=True)
    assert (m.version.major, m.version.minor, m.flags) == (1, 0, 0)
    assert t.__dlpack__(max_version=(0, 8)).__class__.__name__ == "PyCapsule"
    assert capsule_name(t.__dlpack__(max_version=(0, 8))) == "dltensor"
    assert t.__dlpack_device__() == (1, 0)
    copied = t.__dlpack__(max_version=(1, 0), copy=True)
    assert managed(copied, versioned=True).flags & 2  # IS_COPIED
    assert managed(copied, versioned=True).dl_tensor.data != t.data_ptr()
    for capsule in (old, new):
        assert gb.from_dlpack(capsule).data_ptr() == t.data_ptr()


# ---- lifetimes --------------------------------------------------------------------------------


def test_the_producer_may_die_first():
    a = np.arange(6, dtype=np.float64)
    t = gb.from_dlpack(a)
    del a
    gc.collect()
    np.testing.assert_array_equal(np.asarray(t), np.arange(6, dtype=np.float64))

    t = gb.arange(5, dtype=gb.int32)
    b = np.from_dlpack(t)
    del t
    gc.collect()
    assert b.tolist() == [0, 1, 2, 3, 4]


def test_memory_is_released_exactly_once():
    # The NumPy array's refcount counts owners of its memory: it goes back to where it started
    # when the last tensor and array over it are gone (no leak), and never below (no double free).
    a = np.arange(8, dtype=np.float32)
    start = sys.getrefcount(a)
    t = gb.from_dlpack(a)
    assert sys.getrefcount(a) > start
    b = np.from_dlpack(t)  # glassbox -> NumPy again, over the same memory
    del t
    gc.collect()
    assert sys.getrefcount(a) > start
    b[0] = 42.0
    assert a[0] == 42.0
    del b
    gc.collect()
    assert sys.getrefcount(a) == start

    capsule = gb.from_numpy(a).__dlpack__()  # never consumed: the capsule's destructor releases it
    assert sys.getrefcount(a) > start
    del capsule
    gc.collect()
    assert sys.getrefcount(a) == start


def test_foreign_deleter_runs_once_when_the_last_view_dies():
    p = Producer(np.arange(6, dtype=np.float32).reshape(2, 3))
    capsule = p.capsule()
    t = gb.from_dlpack(capsule)
    assert capsule_name(capsule) == "used_dltensor"
    view = t[1]
    del t
    gc.collect()
    assert p.deleted == 0 and view.tolist() == [3.0, 4.0, 5.0]
    del view
    gc.collect()
    assert p.deleted == 1

    pv = Producer(np.ones(2, np.int16), code=0, versioned=True)
    capsule = pv.capsule()
    assert gb.from_dlpack(capsule).tolist() == [1, 1]
    gc.collect()
    assert capsule_name(capsule) == "used_dltensor_versioned" and pv.deleted == 1


# ---- errors -----------------------------------------------------------------------------------


def test_a_capsule_is_consumed_once():
    capsule = gb.ones(2).__dlpack__()
    gb.from_dlpack(capsule)
    with pytest.raises(ValueError, match="already consumed .*'used_dltensor'"):
        gb.from_dlpack(capsule)


def test_unsupported_devices_and_dtypes():
    with pytest.raises(BufferError, match="a meta tensor has no data to share through DLPack"):
        gb.empty([2], device="meta").__dlpack__()
    with pytest.raises(BufferError, match="a meta tensor"):
        np.from_dlpack(gb.empty([2], device="meta"))
    p = Producer(np.zeros(2, np.float32), device_type=4)  # memory of an OpenCL device
    with pytest.raises(BufferError, match="imports CPU and CUDA memory through DLPack; .* on opencl:0"):
        gb.from_dlpack(p.capsule())
    if not gb.cuda.is_available():
        p = Producer(np.zeros(2, np.float32), device_type=2)  # "memory on cuda:0", where there is no GPU
        capsule = p.capsule()
        with pytest.raises(RuntimeError, match="from_dlpack: CUDA is not available"):
            gb.from_dlpack(capsule)
        assert capsule_name(capsule) == "dltensor" and p.deleted == 0
    p = Producer(np.zeros(2, np.complex64), code=5)
    capsule = p.capsule()
    with pytest.raises(BufferError, match="DLPack dtype complex64 is not supported"):
        gb.from_dlpack(capsule)
    assert capsule_name(capsule) == "dltensor" and p.deleted == 0  # refused, so not consumed
    with pytest.raises(BufferError, match="complex"):
        gb.from_dlpack(np.zeros(2, np.complex128))
    p = Producer(np.zeros(2, np.float32), versioned=True, version=(2, 0))
    with pytest.raises(BufferError, match="DLPack version 2.0 is not supported"):
        gb.from_dlpack(p.capsule())
    p = Producer(np.zeros(4, np.float32)[::-1].copy())
    p.strides[0] = -1
    with pytest.raises(BufferError, match="negative strides"):
        gb.from_dlpack(p.capsule())


def test_bad_arguments():
    with pytest.raises(TypeError, match="expected an object with __dlpack__ or a DLPack capsule, got list"):
        gb.from_dlpack([1, 2])
    with pytest.raises(ValueError, match="stream must be None for a CPU tensor"):
        gb.ones(1).__dlpack__(stream=1)
    with pytest.raises(BufferError, match="cannot export a cpu tensor to cuda:0"):
        gb.ones(1).__dlpack__(dl_device=(2, 0))
    other = _api.PyCapsule_New(ctypes.addressof(ctypes.c_int(0)), b"something_else", None)
    with pytest.raises(TypeError, match="named 'dltensor' or 'dltensor_versioned', got one named 'something_else'"):
        gb.from_dlpack(other)


def test_read_only_memory_is_copied_or_refused():
    a = np.arange(3, dtype=np.float32)
    a.flags.writeable = False
    t = gb.from_dlpack(a)  # NumPy marks it read-only: glassbox takes a copy
    assert t.tolist() == [0.0, 1.0, 2.0] and t.data_ptr() != a.ctypes.data
    with pytest.raises(BufferError, match="read-only"):
        gb.from_dlpack(a, copy=False)
    b = np.arange(3, dtype=np.float32)
    assert gb.from_dlpack(b, copy=True).data_ptr() != b.ctypes.data


def test_torch_round_trip():
    torch = pytest.importorskip("torch")
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    t = gb.from_dlpack(x)
    assert t.shape == (2, 3) and t.data_ptr() == x.data_ptr()
    t.add_(1.0)
    assert x.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    y = torch.from_dlpack(gb.ones(3).to(gb.bfloat16))
    assert y.dtype == torch.bfloat16 and y.tolist() == [1.0, 1.0, 1.0]
