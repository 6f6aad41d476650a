"""cuplug: numba-cuda's CUDA compile backend, for any Python JIT.

Compile the NVVM IR a front end emits to PTX, LTO-IR or a cubin (with
numba-cuda's names and defaults), link CUDA C++ and other device code with
nvJitLink, type calls through a registry of numba-cuda's built-ins and your
own functions, and load and launch kernels on arrays of CuPy, PyTorch or
numba-cuda::

    import cuplug
    ptx, restype = cuplug.compile(ir, "float32(float32, float32)", entry="_ZN...")
    cubin = cuplug.link([ltoir, "ext.cu"])
    kernel = cuplug.load(cubin).get_kernel("k", "void(float32[::1], float32)")
    kernel[blocks, threads](x, 2.0)

Everything goes through the plugin's C ABI (libcuplug.so beside this
package, or $CUPLUG_LIBRARY).  Calls that compile, link or launch release
the GIL.  Every error the package raises is a CuplugError, carrying the
plugin's code and the toolkit's log (and also a ValueError or a TypeError
where the caller is at fault); the plugin's warnings are Python warnings
(CuplugWarning) that point at the caller's line.
"""

import functools as _functools
import operator as _operator
import os as _os
import re as _re
import sys as _sys
import warnings as _warnings
from collections import namedtuple as _namedtuple
from collections.abc import Mapping as _Mapping

from . import _cuplug
from ._names import shorten as _shorten
from ._cuplug import Artifact, Kernel, Library, Registry, Session, Type, info, literal, typeof

__all__ = [
    "CuplugError", "CuplugWarning", "ArgumentError", "ArgumentTypeError", "TypeSyntaxError",
    "IRError", "OptionError", "ToolkitError", "ToolkitCrash", "ToolkitTimeout", "LinkError",
    "RegistryError", "GPUError",
    "LaunchArgumentError", "LaunchConfigError", "KernelException", "KernelFault", "TypingError",
    "LimitError", "HostError",
    "Type", "Session", "Registry", "Artifact", "Library", "Kernel", "Module",
    "Resolution", "DeclaredFunction",
    "info", "typeof", "literal", "default_session",
    "compile", "compile_ptx", "compile_for_current_device", "compile_ptx_for_current_device",
    "compile_all", "declare_device", "register_typing", "register_lowering", "resolve_call",
    "link", "load",
]

# ---- errors and warnings --------------------------------------------------


class CuplugError(Exception):
    """An error the cuplug plugin or this package reported.

    code: the plugin's status number; name: its name ("CUPLUG_ERR_IR_PARSE");
    message: one line naming the culprit; log: the toolkit's log ("" when
    there is none); symbol: the whole mangled name of the first symbol the
    message names, which the message gives in short ("__main__::add_i32"),
    or None."""

    def __init__(self, code, name, message, log="", symbol=None):
        super().__init__(message)
        self.code = code
        self.name = name
        self.message = message
        self.log = log
        self.symbol = symbol

    def __str__(self):
        return "%s: %s" % (self.name, self.message)


class ArgumentError(CuplugError, ValueError):
    """A call's arguments are wrong (CUPLUG_ERR_INVALID_ARGUMENT, _ABI_FIELD, _IO):
    also a value out of its range, or a closed module."""


class ArgumentTypeError(CuplugError, TypeError):
    """An argument of the wrong type, or a wrong number of them
    (CUPLUG_ERR_INVALID_ARGUMENT, where Python raises TypeError)."""


class TypeSyntaxError(CuplugError, ValueError):
    """A type or signature that does not parse, or cannot be (10 to 12)."""


class IRError(CuplugError, ValueError):
    """IR that is empty, does not parse, is not valid, or lacks its entry; bitcode
    from an LLVM newer than cuplug's (20 to 25, 94)."""


class OptionError(CuplugError, ValueError):
    """An option numba-cuda's rules refuse, a backend that cannot serve the
    compile, or a remote cache URL or setting cuplug cannot use (30 to 42)."""


class ToolkitError(CuplugError):
    """The CUDA toolkit is missing, or refused the work (see .log)."""


class ToolkitCrash(ToolkitError):
    """libNVVM, NVRTC or nvJitLink crashed in its helper process; this one goes on."""


class ToolkitTimeout(ToolkitError, TimeoutError):
    """A toolkit call ran past the time limit and was stopped."""


class LinkError(ToolkitError):
    """Code that cannot be linked, or a link that failed (60 to 62)."""


class RegistryError(CuplugError, ValueError):
    """A name registered twice, or IR that declares a registered function
    otherwise than it was registered (CUPLUG_ERR_DUPLICATE, _DECLARATION_MISMATCH)."""


class GPUError(CuplugError):
    """Loading or launching failed (53 to 55, 70 to 73)."""


class LaunchArgumentError(GPUError, TypeError):
    """Arguments of a launch or of Library.call that do not match the
    signature: their number, an array's dtype or dimensions, a value that
    does not fit; or a grid or block of the wrong type (CUPLUG_ERR_LAUNCH_ARGS)."""


class LaunchConfigError(GPUError, ValueError):
    """A grid, block, stream or shared memory size that no launch can have
    (a dimension of 0), or beyond the device (CUPLUG_ERR_LAUNCH_CONFIG)."""


class KernelException(GPUError):
    """A debug kernel raised an exception: exception_code (the front end's
    number for it), tid and ctaid (the thread that raised it, as numba-cuda
    lists them), also in the message."""

    def __init__(self, code, name, message, log="", symbol=None):
        super().__init__(code, name, message, log, symbol)
        m = _re.search(r"raised exception (-?\d+): tid=\[(\d+), (\d+), (\d+)\] "
                       r"ctaid=\[(\d+), (\d+), (\d+)\]", message)
        self.exception_code = int(m.group(1)) if m else None
        self.tid = tuple(int(m.group(i)) for i in (2, 3, 4)) if m else None
        self.ctaid = tuple(int(m.group(i)) for i in (5, 6, 7)) if m else None


class KernelFault(GPUError):
    """A kernel faulted: the CUDA context is lost (see Session.device_reset)."""


class TypingError(CuplugError, TypeError):
    """A call the registry cannot type or lower, or a callback that failed (80 to 85)."""


class LimitError(CuplugError, ValueError):
    """An input beyond cuplug's limits (CUPLUG_ERR_LIMIT)."""


class HostError(CuplugError):
    """Device code on the CPU: a construct the host cannot run, a barrier not
    every thread reaches, no libcuplug-host.so, or a launch stopped by Ctrl-C
    whose SIGINT handler raised nothing (100 to 103)."""


class CuplugWarning(UserWarning):
    """A warning the plugin attached to a result (code, name, message;
    symbol as CuplugError has it)."""

    def __init__(self, code, name, message, symbol=None):
        super().__init__("%s: %s" % (name, message))
        self.code = code
        self.name = name
        self.message = message
        self.symbol = symbol


def _error_class(code, type_error=False):
    if code == 2:
        return MemoryError
    if code == 1 and type_error:
        return ArgumentTypeError
    if code in (1, 3, 4):
        return ArgumentError
    if 10 <= code <= 12:
        return TypeSyntaxError
    if 20 <= code <= 25 or code == 94:
        return IRError
    if 30 <= code <= 42:
        return OptionError
    if 60 <= code <= 62:
        return LinkError
    if code in (63, 64):
        return RegistryError
    if code == 72:
        return LaunchArgumentError
    if code == 74:
        return KernelException
    if code == 75:
        return KernelFault
    if code == 73:
        return LaunchConfigError
    if code in (53, 54, 55) or 70 <= code <= 72:
        return GPUError
    if 80 <= code <= 85:
        return TypingError
    if code == 90:
        return ToolkitCrash
    if code == 91:
        return ToolkitTimeout
    if code == 93:
        return LimitError
    if 100 <= code <= 103:
        return HostError
    return ToolkitError


def _make_error(code, name, message, log, type_error=False):
    """The exception for a status: the plugin's errors, and the module's own
    (type_error: one Python would raise as a TypeError)."""
    cls = _error_class(code, type_error)
    if cls is MemoryError:
        return MemoryError("%s: %s" % (name, message))
    text, symbol = _shorten(message)
    return cls(code, name, text, log, symbol)


def _argument_error(message, type_error=False):
    """The package's own ArgumentError, or ArgumentTypeError."""
    return _make_error(1, "CUPLUG_ERR_INVALID_ARGUMENT", message, "", type_error)


def _type_error(what, expected, got):
    return _argument_error("%s must be %s, not %s" % (what, expected, type(got).__name__), True)


_PACKAGE = _os.path.dirname(__file__) + _os.sep


def _caller_stacklevel():
    """The stacklevel, for _warn's warnings.warn, of the first frame outside
    this package: the caller's line, however deep in the package (and in
    the extension, which has no frames) the warning was made."""
    frame, level = _sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def _warn(code, name, message):
    text, symbol = _shorten(message)
    _warnings.warn(CuplugWarning(code, name, text, symbol), stacklevel=_caller_stacklevel())


def _raised_here(tb):
    """Whether the innermost frame of traceback tb is this package's: the
    package raised the exception, or Python did on its behalf (a call with
    a keyword it lacks, iterating an int), not the caller's own code."""
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_filename.startswith(_PACKAGE)


def _own_errors(fn):
    """fn, whose TypeErrors, ValueErrors and OverflowErrors are the
    package's own ArgumentTypeError and ArgumentError, with the same words
    (the extension does the same for its own calls).  One that the caller's
    code raised (an __index__ that fails) stays as it is."""

    @_functools.wraps(fn)
    def call(*args, **kw):
        try:
            return fn(*args, **kw)
        except (TypeError, ValueError, OverflowError) as e:
            if type(e) not in (TypeError, ValueError, OverflowError) or \
                    not _raised_here(e.__traceback__):
                raise
            raise _argument_error(str(e), type(e) is TypeError) from None

    return call


def _plugin_path():
    env = _os.environ.get("CUPLUG_LIBRARY")
    if env:
        return env
    here = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "libcuplug.so")
    if _os.path.exists(here):
        return here
    raise ImportError("the cuplug plugin is not there: %s is missing (set CUPLUG_LIBRARY to "
                      "a libcuplug.so)" % here)


_cuplug._load(_plugin_path(), _make_error, _warn)


def __getattr__(name):
    # __version__, the plugin's, asked of it on first use only: info() also
    # probes the toolkit and the driver, which import should not wait for
    if name == "__version__":
        version = globals()["__version__"] = info()["version"]
        return version
    raise AttributeError("module 'cuplug' has no attribute %r" % name)

# ---- sessions --------------------------------------------------------------

_default = None


def default_session():
    """The session the module-level calls use when given none (made on first use)."""
    global _default
    if _default is None:
        _default = Session()
    return _default


def _session(session):
    return session if session is not None else default_session()


# ---- compiling -------------------------------------------------------------

_OUTPUTS = {"ptx": 1, "ltoir": 2, "cubin": 3, "host": 4}


def _modules(ir):
    if isinstance(ir, (str, bytes, bytearray, memoryview)):
        return [("module0", ir)]
    if isinstance(ir, (list, tuple)):
        if not ir:
            raise _argument_error("ir: give at least one module")
        out = []
        for i, m in enumerate(ir):
            if not isinstance(m, (str, bytes, bytearray, memoryview)):
                raise _type_error("ir[%d]" % i, "text or bytes", m)
            out.append(("module%d" % i, m))
        return out
    raise _type_error("ir", "text, bytes, or a list of them", ir)


def _abi_name(abi_info):
    """abi_info's abi_name: a dict (or any mapping) or None, as numba-cuda takes it."""
    if abi_info is None:
        return None
    if not isinstance(abi_info, _Mapping):
        raise _type_error("abi_info", "a dict such as {'abi_name': 'add'}, or None", abi_info)
    name = abi_info.get("abi_name")
    if name is not None and not isinstance(name, str):
        raise _type_error("abi_info['abi_name']", "a str", name)
    return name


def _opt(opt):
    if opt is None or opt is True:
        return 0  # the plugin's default: 3
    if opt is False or opt == 0:
        return -1  # CUPLUG_OPT_NONE
    try:
        return _operator.index(opt)
    except TypeError:
        raise _type_error("opt", "True, False, None or a level 0 to 3", opt) from None


_CODE_LIST = "a list of code: paths, bytes, (name, bytes) or Artifacts"


def _items(value, what, expected):
    """value's items as a tuple; a value that has none is refused by name."""
    try:
        items = iter(value)
    except TypeError:
        raise _type_error(what, expected, value) from None
    return tuple(items)


def _bounds(launch_bounds):
    if launch_bounds is None:
        return None
    if isinstance(launch_bounds, int):
        return (launch_bounds,)
    return _items(launch_bounds, "launch_bounds", "an int or a sequence of 1 to 3 ints")


def _code(c):
    """Code to link: an Artifact's parts, a path, bytes, or (name, bytes)."""
    if isinstance(c, Artifact):
        return [(k, n, d) for k, n, d in c.parts]
    return [c]


def _codes(codes):
    out = []
    for c in _items(codes or (), "link", _CODE_LIST):
        out.extend(_code(c))
    return out


def _output_error(output, outputs):
    return _make_error(30, "CUPLUG_ERR_OPTION_OUTPUT",
                       "Unsupported output type: %s (%s)" % (output, outputs), "")


def _include_paths(include_paths):
    if isinstance(include_paths, str):  # one folder, not one per character
        include_paths = (include_paths,)
    return _items(include_paths, "include_paths", "a list of folders")


def _artifact(ir, sig, entry, entry_abi, device, abi, abi_info, output, cc, opt, debug, lineinfo,
              fastmath, forceinline, launch_bounds, link, session, max_registers, time_limit_ms,
              current_device, all_, backend, include_paths, keep_ir=False):
    """The compile's Artifact, and the signature's return type."""
    if not isinstance(output, str) or output not in _OUTPUTS:
        raise _output_error(output, "ptx, ltoir, cubin or host")
    if not isinstance(entry, str):
        raise _type_error("entry", "a str (the entry's symbol in the IR)", entry)
    abi_name = _abi_name(abi_info)
    sig_t = typeof(sig) if isinstance(sig, str) else sig
    art = _session(session).compile(
        _modules(ir), entry, sig_t, entry_abi=entry_abi, kind=0 if device else 1,
        abi=abi if device else "numba", abi_name=abi_name, output=_OUTPUTS[output],
        cc=cc, current_device=current_device, opt=_opt(opt), debug=bool(debug),
        lineinfo=lineinfo, fastmath=fastmath, forceinline=forceinline,
        launch_bounds=_bounds(launch_bounds), max_registers=max_registers or 0,
        link=_codes(link), include_paths=_include_paths(include_paths),
        time_limit_ms=time_limit_ms, all=all_, backend=backend, keep_ir=keep_ir)
    if sig_t is None:  # the IR's, which the artifact holds
        sig_t = art.signature
    return art, sig_t.restype if isinstance(sig_t, Type) else None


def _compile(ir, sig, entry, entry_abi, device, abi, abi_info, output, cc, opt, debug, lineinfo,
             fastmath, forceinline, launch_bounds, link, session, max_registers, time_limit_ms,
             current_device, all_, backend, include_paths):
    art, restype = _artifact(ir, sig, entry, entry_abi, device, abi, abi_info, output, cc, opt,
                             debug, lineinfo, fastmath, forceinline, launch_bounds, link, session,
                             max_registers, time_limit_ms, current_device, all_, backend,
                             include_paths)
    if output == "host":  # no code: the Artifact, for load()
        return art, restype
    if all_:
        return [d for _, _, d in art.parts], restype
    return art.data, restype


@_own_errors
def compile(ir, sig=None, *, entry, entry_abi="numba", device=True, abi="c", abi_info=None,
            output="ptx", cc=None, opt=None, debug=None, lineinfo=False, fastmath=False,
            forceinline=False, launch_bounds=None, link=(), include_paths=(), session=None,
            max_registers=None, time_limit_ms=0, backend=None):
    """Compile a host JIT's NVVM IR: numba-cuda's compile().

    ir: the IR as text or bytes, or a list of modules: numba-cuda's typed
    NVVM IR, modern (opaque-pointer) text, or LLVM bitcode (bytes).  sig: the
    entry's signature ("float32(float32, int32)" or a Type); None for a
    kernel that modern IR marks ptx_kernel, whose parameters the IR gives
    (the plugin says when one is needed).  entry: its symbol in the
    IR, whose ABI is entry_abi ("numba": status return and return slot, or
    "c").  A device function is exported under abi ("c": R name(args), named
    abi_info["abi_name"] or the entry's name; or "numba"); device=False makes
    a kernel.  output: "ptx", "ltoir" or "cubin" (linked with `link` and the
    declared functions it calls), or "host" (for this CPU: load() the
    Artifact returned in place of code).  include_paths: folders (or one)
    where the CUDA C++ it links (.cu paths, or (name, bytes) from memory)
    finds its headers, searched before the toolkit's.  cc: (major, minor),
    or with "a" or "f" third (numba-cuda's arch-specific and family
    ccs); None: the default rule.  backend: what makes the GPU code, "libnvvm" or "llvm"
    (LLVM's NVPTX backend: PTX and cubins, no LTO-IR); None: libNVVM for
    numba-cuda's typed IR, LLVM for modern IR and bitcode.  Returns (code,
    restype): PTX as str, LTO-IR or a cubin as bytes (the Artifact for
    "host"), and the signature's return type."""
    return _compile(ir, sig, entry, entry_abi, device, abi, abi_info, output, cc, opt, debug,
                    lineinfo, fastmath, forceinline, launch_bounds, link, session,
                    max_registers, time_limit_ms, False, False, backend, include_paths)


@_own_errors
def _compile_keeping_ir(ir, sig=None, *, entry, entry_abi="numba", device=True, abi="c",
                        abi_info=None, output="ptx", cc=None, opt=None, debug=None,
                        lineinfo=False, fastmath=False, forceinline=False, launch_bounds=None,
                        link=(), include_paths=(), session=None, max_registers=None,
                        time_limit_ms=0, backend=None):
    """compile() for cuplug.numba's inspect_llvm and NUMBA_DUMP_LLVM:
    (code, ir, restype), ir the modules as cuplug handed them to libNVVM
    after its fix-up, [(name, text)] (Artifact.ir)."""
    art, restype = _artifact(ir, sig, entry, entry_abi, device, abi, abi_info, output, cc, opt,
                             debug, lineinfo, fastmath, forceinline, launch_bounds, link,
                             session, max_registers, time_limit_ms, False, False, backend,
                             include_paths, keep_ir=True)
    return art.data, art.ir, restype


@_own_errors
def compile_ptx(ir, sig=None, *, entry, entry_abi="numba", device=False, abi="numba",
                abi_info=None, cc=None, opt=None, debug=None, lineinfo=False, fastmath=False,
                launch_bounds=None, link=(), include_paths=(), session=None, max_registers=None,
                time_limit_ms=0, backend=None):
    """numba-cuda's compile_ptx: a kernel (device=False) to PTX by default.
    Returns (ptx, restype)."""
    return _compile(ir, sig, entry, entry_abi, device, abi, abi_info, "ptx", cc, opt, debug,
                    lineinfo, fastmath, False, launch_bounds, link, session, max_registers,
                    time_limit_ms, False, False, backend, include_paths)


@_own_errors
def compile_for_current_device(ir, sig=None, *, entry, entry_abi="numba", device=True,
                               abi="c", abi_info=None, output="ptx", opt=None, debug=None,
                               lineinfo=False, fastmath=False, forceinline=False,
                               launch_bounds=None, link=(), include_paths=(), session=None,
                               max_registers=None, time_limit_ms=0, backend=None):
    """compile() for the compute capability of the current GPU."""
    return _compile(ir, sig, entry, entry_abi, device, abi, abi_info, output, None, opt, debug,
                    lineinfo, fastmath, forceinline, launch_bounds, link, session,
                    max_registers, time_limit_ms, True, False, backend, include_paths)


@_own_errors
def compile_ptx_for_current_device(ir, sig=None, *, entry, entry_abi="numba", device=False,
                                   abi="numba", abi_info=None, opt=None, debug=None,
                                   lineinfo=False, fastmath=False, launch_bounds=None, link=(),
                                   include_paths=(), session=None, max_registers=None,
                                   time_limit_ms=0, backend=None):
    """compile_ptx() for the compute capability of the current GPU."""
    return _compile(ir, sig, entry, entry_abi, device, abi, abi_info, "ptx", None, opt, debug,
                    lineinfo, fastmath, False, launch_bounds, link, session, max_registers,
                    time_limit_ms, True, False, backend, include_paths)


@_own_errors
def compile_all(ir, sig=None, *, entry, entry_abi="numba", device=True, abi="c",
                abi_info=None, output="ltoir", cc=None, opt=None, debug=None, lineinfo=False,
                fastmath=False, forceinline=False, launch_bounds=None, link=(), include_paths=(),
                session=None, max_registers=None, time_limit_ms=0, backend=None):
    """numba-cuda's compile_all: the compile's own code (LTO-IR by default),
    then each .cu it links compiled by NVRTC (headers from include_paths,
    then the toolkit's), then the other code as given.  Returns (codes,
    restype)."""
    if output not in ("ptx", "ltoir"):
        raise _output_error(output, "ptx or ltoir")
    return _compile(ir, sig, entry, entry_abi, device, abi, abi_info, output, cc, opt, debug,
                    lineinfo, fastmath, forceinline, launch_bounds, link, session,
                    max_registers, time_limit_ms, False, True, backend, include_paths)


# ---- typing and lowering ---------------------------------------------------

Resolution = _namedtuple("Resolution", "signature symbol abi declaration conversions")
Resolution.__doc__ = """How a call types: convert the arguments to signature.args,
call symbol under abi ("c" or "numba"), declared in the IR as declaration;
conversions says what each argument needs ("exact", "promote", "safe" or
"unsafe"), so that a front end can warn of an unsafe one."""

DeclaredFunction = _namedtuple("DeclaredFunction", "name signature abi")
DeclaredFunction.__doc__ = "A CUDA C++ function declared with declare_device."


def _registry(session, registry):
    return registry if registry is not None else _session(session).registry


def _address(function, what):
    """A C function as an address: an int, or a ctypes function (CFUNCTYPE)."""
    if function is None or (isinstance(function, int) and not isinstance(function, bool)):
        return function
    import ctypes  # only when one is given: importing it costs

    if isinstance(function, (ctypes._CFuncPtr, ctypes.c_void_p)):
        return ctypes.cast(function, ctypes.c_void_p).value or 0
    raise _type_error(what, "a ctypes function (ctypes.CFUNCTYPE(...)(f)) or an int address",
                      function)


@_own_errors
def declare_device(name, sig, link=None, use_cooperative=False, abi="numba", *,
                   host_function=None, session=None, registry=None):
    """numba-cuda's declare_device: the external function `name`, of
    signature sig, under abi ("numba" or "c"), defined by the code in `link`
    (paths, bytes, or (name, bytes)), linked into every cubin whose IR calls
    it.  It is also a key resolve_call answers for.

    host_function: what code compiled with output="host" calls for it,
    since CUDA C++ cannot run on the CPU: a C function of the same ABI
    (numba: int f(R *ret, args...) returning 0; c: R f(args...)), as a
    ctypes function (kept alive with the registry) or an int address (to
    keep valid while such code is loaded)."""
    if link is None:
        link = ()
    elif isinstance(link, (str, bytes)):
        link = (link,)
    sig_t = typeof(sig) if isinstance(sig, str) else sig
    _registry(session, registry).declare_device(
        name, sig_t, abi, _items(link, "link", _CODE_LIST), bool(use_cooperative),
        host_function=_address(host_function, "host_function"),
        host_owner=None if isinstance(host_function, int) else host_function)
    return DeclaredFunction(name, sig_t, abi)


@_own_errors
def register_typing(key, sigs_or_callable, *, description=None, session=None, registry=None):
    """Typing templates for `key`: concrete signatures (a signature, or a
    list of them), or a callable typer(key, argtypes) -> signature or None
    (no match), run with the GIL held.  An exception in the typer becomes the
    resolve's TypingError, with the exception as its __cause__."""
    r = _registry(session, registry)
    if callable(sigs_or_callable):
        r.register_template(key, typer=sigs_or_callable, description=description)
        return
    sigs = sigs_or_callable
    if isinstance(sigs, (str, Type)):
        sigs = [sigs]
    for s in _items(sigs, "sigs_or_callable", "a signature, a list of them, or a callable"):
        r.register_template(key, signature=s)


@_own_errors
def register_lowering(key, sig=None, *, ir=None, cuda=None, callable=None, symbol=None, abi="c",
                      session=None, registry=None):
    """How `key` is lowered for sig: NVVM IR text that defines `symbol`
    (ir=), CUDA C++ that defines it (cuda=, as extern "C"), or a callable
    lower(key, signature, symbol, abi) -> IR text, run the first time a
    compile needs it (sig None: every signature the key's templates give).
    symbol: the function the code defines, which ir= and cuda= need; a
    callable is given one cuplug names when it is None."""
    given = [x is not None for x in (ir, cuda, callable)]
    if sum(given) != 1:
        raise _argument_error("register_lowering: give exactly one of ir=, cuda= and callable=",
                              True)
    if symbol is None and callable is None:
        raise _make_error(40, "CUPLUG_ERR_OPTION_NAME",
                          "register_lowering %s: give symbol=, the name of the function the %s "
                          "code defines" % (key, "ir=" if ir is not None else "cuda="), "")
    kind = 1 if ir is not None else 2 if cuda is not None else 3
    _registry(session, registry).register_lowering(
        key, kind, signature=sig, symbol=symbol, source=ir if ir is not None else cuda,
        lowerer=callable, abi=abi)


def _argtypes(argtypes):
    """resolve_call's argtypes: types, a Type, or text: one type or several
    ("float32, int32"; a comma inside brackets or parentheses is the type's)."""
    if isinstance(argtypes, Type):
        return (argtypes,)
    if not isinstance(argtypes, str):
        return _items(argtypes, "argtypes", "a list of types, or one str")
    if not argtypes.strip():
        return ()
    out, depth, start = [], 0, 0
    for i, ch in enumerate(argtypes):
        depth += (ch in "([") - (ch in ")]")
        if ch == "," and depth == 0:
            out.append(argtypes[start:i].strip())
            start = i + 1
    out.append(argtypes[start:].strip())
    return tuple(out)


@_own_errors
def resolve_call(key, argtypes, *, strict=False, session=None, registry=None):
    """How a call of `key` with arguments of argtypes types, numba-cuda's
    way (ties to the first declared signature, an unsafe conversion as the
    last resort; strict=True refuses both): a Resolution(signature, symbol,
    abi, declaration, conversions).  argtypes: a list of types or type
    names, or one str ("float32" or "float32, int32")."""
    return Resolution(*_registry(session, registry).resolve(key, _argtypes(argtypes), strict))


# ---- linking, loading, launching ------------------------------------------


@_own_errors
def link(codes, cc=None, lto=True, max_registers=None, *, debug=False, lineinfo=False,
         include_paths=(), use_cooperative=False, session=None, time_limit_ms=0):
    """Link device code into a cubin (bytes) with nvJitLink: Artifacts,
    paths (.cu compiled by NVRTC, .ptx, .ltoir, .cubin, .fatbin, .o, .a),
    bytes, or (name, bytes).  LTO unless lto=False or debug.  include_paths:
    folders (or one) where the .cu code finds its headers, searched before
    the toolkit's."""
    art = _link(codes, cc, lto, max_registers, debug, lineinfo, include_paths, use_cooperative,
                session, time_limit_ms)
    return art.data


def _link(codes, cc, lto, max_registers, debug, lineinfo, include_paths, use_cooperative,
          session, time_limit_ms):
    if isinstance(codes, (str, bytes, Artifact)):
        codes = [codes]
    codes = _items(codes, "codes", _CODE_LIST)
    arts = [c for c in codes if isinstance(c, Artifact)]
    rest = [c for c in codes if not isinstance(c, Artifact)]
    return _session(session).link(code=rest, artifacts=arts, cc=cc, no_lto=not lto,
                                  max_registers=max_registers or 0, debug=debug,
                                  lineinfo=lineinfo, cooperative=use_cooperative,
                                  include_paths=_include_paths(include_paths),
                                  time_limit_ms=time_limit_ms)


class Module:
    """A loaded cubin: get_kernel(name, sig) gives its kernels.  close() (or
    leaving a with block) unloads it.  Loaded from a host artifact
    (compile(..., output="host")) it runs on the CPU: its kernels take NumPy
    arrays and other buffers, and call() and address() reach its C-ABI
    functions."""

    def __init__(self, library):
        self._library = library

    @_own_errors
    def get_kernel(self, name=None, sig=None, *, debug=False, cooperative=False):
        """The kernel `name` (None: the only kernel of a cuplug cubin), whose
        arguments are packed by sig (None: the signature cuplug compiled it
        with).  kernel[grid, block, stream, shared_mem](*args) launches it.
        debug: it has the exception store (a debug compile's kernel, given as
        bytes); cooperative: launch it cooperatively, for it synchronises its
        grid (a cubin cuplug linked with cooperative code knows so itself)."""
        if self._library is None:
            raise _argument_error("the module is closed")
        return self._library.get_kernel(name, sig, debug, cooperative)

    @_own_errors
    def call(self, *args, name=None, signature=None):
        """Calls a host module's C-ABI function (name None: the compiled one)
        with Python values; returns its result."""
        if self._library is None:
            raise _argument_error("the module is closed")
        return self._library.call(*args, name=name, signature=signature)

    @_own_errors
    def address(self, name=None):
        """A host module's function as an address, for ctypes or cffi."""
        if self._library is None:
            raise _argument_error("the module is closed")
        return self._library.address(name)

    def close(self):
        if self._library is not None:
            self._library.close()
        self._library = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@_own_errors
def load(cubin, *, session=None):
    """Load a cubin (bytes, or an Artifact from link or a cubin compile) on
    the GPU: a Module.  An Artifact of compile(..., output="host") loads on
    the CPU instead (LLVM's JIT; no GPU needed)."""
    return Module(_session(session).load(cubin))
