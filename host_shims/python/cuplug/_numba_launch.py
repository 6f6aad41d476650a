"""install()'s launch path: numba-cuda's @cuda.jit kernels that cuplug
compiled launch through cuplug's launcher (cuplug.Kernel), with numba-cuda's
semantics.

Two hooks, and three that keep the first one honest:

* _Kernel.launch (one overload's launch, as numba-cuda's dispatcher calls
  it): the arguments prepared as numba-cuda's _prepare_args prepares them
  (NumPy arrays and records copied to the device on the launch's stream and
  back after it, device arrays as they are, __dlpack__ and
  __cuda_array_interface__ objects with numba-cuda's stream rules), then
  cuplug's launcher; a debug kernel's exception raised as numba-cuda raises
  it.  Every launch numba-cuda makes reaches it: a first launch, a
  specialized or launch-config-sensitive dispatcher, ForAll.
* CUDADispatcher.call (kernel[grid, block, stream, shared](*args)): numba-
  cuda types every argument (typeof) and resolves the overload on every
  call, which is most of its cost.  The overload it picks depends on the
  arguments' numba types alone, so a cache from cheap fingerprints of the
  arguments to the overload's launch skips both from the second call on.
  A fingerprint is a scalar's Python type (numba-cuda's dispatcher types
  every int as int64, a float as float64, a NumPy scalar by its dtype), a
  CuPy array's dtype, ndim and contiguity, and for any other object
  numba-cuda's own type of it, each of which gives one numba type.  The first call with a fingerprint goes
  through numba-cuda's call (typing, compiling, the launch above), and the
  overload it launched is remembered.
* add_overload, _reset_overloads and disable_compile change what numba-cuda
  would pick: each drops the dispatcher's cache.

A kernel cuplug did not compile, or whose launch needs what only numba-cuda's
loaded module has (setup callbacks, a shared memory carveout, NRT
statistics, argument extensions, parameter types cuplug's launcher cannot
pack: tuples, enums, datetimes), launches as numba-cuda launches it.  So
does a launch cuplug's launcher refuses before launching (an argument that
does not fit, a bad configuration, no CUDA context on this thread): numba-
cuda then gives its own result or its own error, never a different one.

Differences that change no result: a CuPy array is read by cuplug's
launcher, which waits for the device when CuPy's current stream is not the
launch's (numba-cuda makes the launch's stream wait on an event instead);
and the cubin is loaded twice, once by numba-cuda (its dispatcher binds
each overload) and once by cuplug, so a kernel's __device__ globals seen
through numba-cuda's module are not the ones cuplug's launches use."""

import operator as _operator
import sys as _sys
import threading as _threading
import types as _pytypes

import cuplug as _cuplug

from ._numba_types import type_name

# what an argument needs before cuplug's launcher takes it
_PASS = 0     # nothing: a scalar, a pointer as an int, a CuPy array
_DEVICE = 1   # a numba device array: its device view, made once
_PREPARE = 2  # numba-cuda's wrap_arg(...).to_device(): a copy, a view, a stream wait
_RECORD = 3   # the same, passed as the record's device address

# parameter kinds
_SCALAR, _ARRAY, _RECORD_PARAM = range(3)

_MAX_LAUNCHERS = 64  # configured launchers kept per overload and argument kinds

_nb = None      # numba-cuda's pieces, bound by install()
_token = None   # this install()'s: caches made under an earlier one are not used
_tls = _threading.local()
_keyers: dict = {}  # arguments' Python types -> ((index, fingerprint function), ...)
_stats = {"cuplug": 0, "numba-cuda": 0, "reasons": {}, "fallbacks": 0}
_MISSING = object()


def _bind(dispatcher):
    """The numba-cuda names the launch path uses."""
    import numpy as np
    from numba.cuda import types
    from numba.cuda.args import wrap_arg
    from numba.cuda.core import config
    from numba.cuda.cudadrv import devicearray, devices, driver
    from numba.cuda.np.numpy_support import strides_from_shape
    from numba.cuda.typing.typeof import Purpose, typeof

    return _pytypes.SimpleNamespace(
        np=np, types=types, wrap_arg=wrap_arg, config=config, devicearray=devicearray,
        to_core_stream=driver._to_core_stream, strides_from_shape=strides_from_shape,
        typeof=typeof, argument=Purpose.argument, get_context=devices.get_context,
        dispatcher=dispatcher)


# ---- numba-cuda's exception, from cuplug's KernelException ---------------


def numba_exception(call_helper, e):
    """The exception numba-cuda raises for cuplug's KernelException e: the
    kernel's own class and arguments (numba-cuda's call_helper knows them),
    the source position and the thread's first, as numba-cuda words them."""
    if e.exception_code is None:
        return e
    exccls, exc_args, loc = call_helper.get_exception(e.exception_code)
    prefix = "tid=%s ctaid=%s" % (list(e.tid), list(e.ctaid))
    if loc is not None:
        import os
        sym, path, line = loc
        prefix = "In function %r, file %s, line %s, %s" % (sym, os.path.abspath(path), line,
                                                            prefix)
    args = (("%s: %s" % (prefix, exc_args[0]),) + tuple(exc_args[1:])) if exc_args \
        else (prefix,)
    return exccls(*args)


# ---- arguments -------------------------------------------------------------


class _View:
    """A device array as cuplug's launcher reads one: its interface, with no
    stream (numba-cuda's preparation waited for what it had to), and what
    keeps its memory alive until the launch is made."""

    __slots__ = ("__cuda_array_interface__", "owner")

    def __init__(self, devary):
        nb = _nb
        shape = tuple(devary.shape)
        dtype = devary.dtype
        layout = devary._layout
        # the strides numba-cuda's _prepare_args passes for the same view
        strides = layout.strides_in_bytes or nb.strides_from_shape(
            shape=shape, itemsize=dtype.itemsize, c_contiguous=layout.is_contiguous_c,
            f_contiguous=layout.is_contiguous_f)
        self.__cuda_array_interface__ = {"shape": shape, "strides": tuple(strides),
                                         "typestr": dtype.str, "data": (devary.ptr or 0, False),
                                         "version": 3}
        self.owner = devary


def _device_view(a):
    """A numba device array's view, made once: numba-cuda passes its
    _strided_memory_view_shim, with no stream wait."""
    view = a.__dict__.get("_cuplug_view")
    if view is None:
        view = a.__dict__["_cuplug_view"] = _View(a._strided_memory_view_shim)
    return view


def _cupy_ndarray():
    cupy = _sys.modules.get("cupy")
    return getattr(cupy, "ndarray", None) if cupy is not None else None


def _action(kind, a):
    """What argument a of a parameter of kind `kind` needs (_PASS, ...)."""
    if kind == _SCALAR:
        return _PASS
    if kind == _RECORD_PARAM:
        return _RECORD
    da = _nb.devicearray
    if type(a) is _cupy_ndarray():
        return _PASS
    if isinstance(a, da.DeviceNDArrayBase) and not isinstance(a, da.DeviceRecord):
        return _DEVICE
    return _PREPARE


def _convert(action, a, stream, retr):
    if action == _DEVICE:
        return _device_view(a)
    devary = _nb.wrap_arg(a).to_device(retr, stream)
    return devary.ptr if action == _RECORD else _View(devary)


# ---- one overload's launch -------------------------------------------------


def _param(t):
    """(kind, type text to pack by) for a parameter of numba type t; None
    where cuplug's launcher cannot pack it as numba-cuda does."""
    types = _nb.types
    if isinstance(t, types.Literal):
        return None
    if isinstance(t, types.Record):  # numba-cuda passes the record's device address
        return _RECORD_PARAM, "CPointer(uint8)"
    if isinstance(t, types.Array):
        # cuplug's launcher reads arrays of numbers; one of records, strings
        # or datetimes it would refuse after numba-cuda's copy to the device
        if not isinstance(t.dtype, (types.Boolean, types.Integer, types.Float,
                                    types.Complex)):
            return None
        return _ARRAY, type_name(t)
    if isinstance(t, (types.CPointer, types.Boolean, types.Integer, types.Float,
                      types.Complex)):
        return _SCALAR, type_name(t)
    return None


def _why_not(k):
    """Why numba-cuda, not cuplug, launches the _Kernel k (None: cuplug can)."""
    lib = k._codelibrary
    if getattr(lib, "_cuplug_entry", None) is None:
        return "compiled by numba-cuda"
    if k.extensions:
        return "argument extensions"
    if getattr(k, "shared_memory_carveout", None) is not None:
        return "shared memory carveout"
    if lib._setup_functions or lib._teardown_functions:
        return "module setup callbacks"
    if _nb.config.CUDA_NRT_STATS and getattr(getattr(k, "target_context", None),
                                             "enable_nrt", False):
        return "NRT statistics"
    return None


class _Plan:
    """How one overload (a _Kernel that cuplug compiled) launches through
    cuplug: its cuplug.Kernel, the kind of each parameter, and what its
    debug exceptions are."""

    __slots__ = ("kernel", "kinds", "debug", "call_helper")

    def __init__(self, kernel, kinds, debug, call_helper):
        self.kernel = kernel
        self.kinds = kinds
        self.debug = debug
        self.call_helper = call_helper

    def actions(self, args):
        """Each argument's action; None when every one is _PASS."""
        acts = [_action(kind, a) for kind, a in zip(self.kinds, args)]
        return acts if any(acts) else None

    def run(self, launcher, args, actions, stream):
        """Launches with numba-cuda's preparation and write-back; False
        where cuplug launched nothing and numba-cuda must launch instead."""
        retr = None
        if self.debug:
            # numba-cuda's context current on this thread: an error of a
            # debug launch cannot be handed back (it may come after the
            # kernel ran), so none may come from a thread without one
            _nb.get_context()
        if actions is not None:
            retr = []
            args = [a if act == _PASS else _convert(act, a, stream, retr)
                    for a, act in zip(args, actions)]
        try:
            launcher(*args)
        except _cuplug.KernelException as e:
            raise numba_exception(self.call_helper, e) from None
        except Exception as e:
            # a debug kernel's launch has run when it reads its exception
            # store: an error there is the launch's own
            if self.debug and isinstance(e, _cuplug.GPUError) and not isinstance(
                    e, (_cuplug.LaunchArgumentError, _cuplug.LaunchConfigError)):
                raise
            _stats["fallbacks"] += 1
            return False
        if retr:  # after the debug check, as numba-cuda does
            for wb in retr:
                wb()
        return True


def _make_plan(k):
    why = _why_not(k)
    params = None
    if why is None:
        try:
            params = [_param(t) for t in k.argument_types]
        except NotImplementedError:
            params = [None]
        if None in params:
            why = "parameter types cuplug's launcher cannot pack"
    if why is None:
        lib = k._codelibrary
        code = getattr(lib.get_cubin(), "code", None)
        if not isinstance(code, bytes):
            why = "no cubin bytes"
    kernel = None
    if why is None:
        # one cuplug.Kernel for every context: the driver's cuLibrary loads
        # it into each context it is launched in
        sig = "void(%s)" % ", ".join(text for _, text in params)
        try:
            kernel = _cuplug.load(code).get_kernel(lib._cuplug_entry[0], sig,
                                                   debug=bool(k.debug),
                                                   cooperative=bool(k.cooperative))
        except _cuplug.CuplugError as e:
            why = "cuplug cannot load it: %s" % e.name
    if why is not None:
        _stats["numba-cuda"] += 1
        _stats["reasons"][why] = _stats["reasons"].get(why, 0) + 1
        return None
    _stats["cuplug"] += 1
    return _Plan(kernel, [kind for kind, _ in params], bool(k.debug), k.call_helper)


def _plan_of(k):
    """The _Kernel k's plan, made on its first launch; None: numba-cuda's launch."""
    plan = k.__dict__.get("_cuplug_plan", _MISSING)
    if plan is _MISSING:
        plan = k.__dict__["_cuplug_plan"] = _make_plan(k)
    return plan


def _launch(self, args, griddim, blockdim, stream=0, sharedmem=0):
    """_Kernel.launch: through cuplug where the plan allows, else numba-cuda's."""
    plan = _plan_of(self)
    if plan is not None and len(args) == len(plan.kinds):
        try:
            launcher = plan.kernel[griddim, blockdim, _nb.to_core_stream(stream), sharedmem]
        except Exception:
            launcher = None
        if launcher is not None and plan.run(launcher, args, plan.actions(args), stream):
            _tls.launched = self
            return None
    return _installed_original("launch")(self, args, griddim, blockdim, stream, sharedmem)


# ---- the dispatcher's cache ------------------------------------------------


def _typeof_key(a):
    """numba-cuda's dispatcher types a NumPy array (a mapped device array
    too) as an ndarray, another value by its _numba_type_ where it has one
    (a device array, cuda.In(...)), else by typeof."""
    t = None if isinstance(a, _nb.np.ndarray) else getattr(a, "_numba_type_", None)
    return t if t is not None else _nb.typeof(a, _nb.argument)


def _keyer_for(t):
    """The fingerprint function of values of type t (`type`: the type says
    all): with t, each of its results stands for one numba type (and one
    action) only."""
    np = _nb.np
    # numba-cuda's dispatcher types every int as intp (int64), whatever its
    # value; a NumPy scalar by its dtype, which its type gives
    if t in (int, float, complex, bool) or (
            issubclass(t, (np.number, np.bool_)) and not issubclass(t, np.timedelta64)):
        return type
    if t is _cupy_ndarray():
        # numba-cuda types it through DLPack: dtype, ndim, C if C-contiguous,
        # else F if F-contiguous, else A; never read-only
        if hasattr(t, "_c_contiguous") and hasattr(t, "_f_contiguous"):
            return _operator.attrgetter("dtype.num", "ndim", "_c_contiguous", "_f_contiguous")
        return _operator.attrgetter("dtype.num", "ndim", "flags.c_contiguous",
                                    "flags.f_contiguous")
    if t is _nb.devicearray.DeviceNDArray:
        return _operator.attrgetter("_numba_type_")  # what typeof reads, cached by the array
    return _typeof_key


def _fingerprint(args):
    """The arguments' Python types, and where a type does not say all, what
    the keyers of those arguments say."""
    kinds = tuple(map(type, args))
    keyers = _keyers.get(kinds)
    if keyers is None:
        keyers = [(i, _keyer_for(t)) for i, t in enumerate(kinds)]
        keyers = _keyers[kinds] = tuple((i, k) for i, k in keyers if k is not type)
    if not keyers:
        return kinds
    return (kinds, tuple([k(args[i]) for i, k in keyers]))


class _Entry:
    """A cached launch: the overload's plan, its arguments' actions, and its
    launchers by launch configuration (numba-cuda's configure() gives the
    same _LaunchConfiguration for the same grid, block, stream and shared
    memory)."""

    __slots__ = ("plan", "actions", "launchers")

    def __init__(self, plan, actions):
        self.plan = plan
        self.actions = actions
        self.launchers = {}

    def configure(self, config):
        """The launcher for config; None where cuplug refuses it."""
        try:
            launcher = self.plan.kernel[config.griddim, config.blockdim, config.stream,
                                        config.sharedmem]
        except Exception:
            return None
        if len(self.launchers) >= _MAX_LAUNCHERS:
            self.launchers.clear()
        self.launchers[config] = launcher
        return launcher


def _call(self, args, launch_config):
    """CUDADispatcher.call: the cached launch for the arguments'
    fingerprint, else numba-cuda's call (which launches through _launch)."""
    fast = self._cuplug_fast
    if (fast is not None and fast[0] is _token and not launch_config.pre_launch_callbacks
            and not getattr(self, "_launch_config_sensitive", False)):
        try:
            entry = fast[1].get(_fingerprint(args))
        except Exception:  # numba-cuda says what is wrong with the argument
            entry = None
        if entry is not None:
            launcher = entry.launchers.get(launch_config) or entry.configure(launch_config)
            if launcher is not None and entry.plan.run(launcher, args, entry.actions,
                                                       launch_config.stream):
                return None
    _tls.launched = None
    try:
        _installed_original("call")(self, args, launch_config)
        _remember(self, args, _tls.launched)
    finally:
        _tls.launched = None
    return None


def _remember(self, args, kernel):
    """After numba-cuda's call launched `kernel` through cuplug: its entry
    under the arguments' fingerprint, where numba-cuda would pick it again."""
    if kernel is None or getattr(self, "_launch_config_sensitive", False):
        return
    if not any(k is kernel for k in self.overloads.values()):
        return  # another dispatcher's (a launch-config specialization)
    try:
        key = _fingerprint(args)
    except Exception:
        return
    fast = self._cuplug_fast
    if fast is None or fast[0] is not _token:
        fast = self._cuplug_fast = (_token, {})
    plan = kernel.__dict__["_cuplug_plan"]
    fast[1][key] = _Entry(plan, plan.actions(args))


def _forgetting(name):
    """A dispatcher method that changes which overload numba-cuda picks:
    the original, then the dispatcher's cache dropped."""

    def method(self, *args, **kw):
        result = _installed_original(name)(self, *args, **kw)
        self._cuplug_fast = None
        return result

    method.__name__ = name
    return method


# ---- install -----------------------------------------------------------------

_originals: dict = {}  # the hooked methods as numba-cuda has them


def _installed_original(name):
    return _originals[name]


def install(dispatcher):
    """Hooks numba-cuda's dispatcher module; returns [(owner, name, value)]
    to restore (value _MISSING: the attribute was inherited, delete it)."""
    global _nb, _token
    _nb = _bind(dispatcher)
    _token = object()
    cls, kernel_cls = dispatcher.CUDADispatcher, dispatcher._Kernel
    _originals.update(call=cls.call, launch=kernel_cls.launch, add_overload=cls.add_overload,
                      _reset_overloads=cls._reset_overloads,
                      disable_compile=cls.disable_compile)
    hooks = [(cls, "call", _call), (kernel_cls, "launch", _launch),
             (cls, "_cuplug_fast", None)]
    hooks += [(cls, n, _forgetting(n)) for n in ("add_overload", "_reset_overloads",
                                                  "disable_compile")]
    saved = [(owner, name, owner.__dict__.get(name, _MISSING)) for owner, name, _ in hooks]
    for owner, name, value in hooks:
        setattr(owner, name, value)
    return saved


def restore(saved):
    for owner, name, value in saved:
        if value is _MISSING:
            delattr(owner, name)
        else:
            setattr(owner, name, value)


def stats():
    """Overloads launched through cuplug, overloads left to numba-cuda's
    launch (and why), and launches cuplug handed back to numba-cuda."""
    return {"cuplug": _stats["cuplug"], "numba-cuda": _stats["numba-cuda"],
            "reasons": dict(_stats["reasons"]), "fallbacks": _stats["fallbacks"]}
