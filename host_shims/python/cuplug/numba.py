"""cuplug.numba: numba-cuda on cuplug.

numba-cuda types a Python function and lowers it to Numba-ABI NVVM IR
(numba.cuda.compiler.compile_cuda); cuplug does everything after: the
C-ABI wrapper, the kernel fix-up and exception store, libNVVM, and linking
the files of cuda.declare_device.

* compile(), compile_ptx(), compile_for_current_device(),
  compile_ptx_for_current_device() and compile_all() have the contract of
  numba.cuda's functions of those names.
* jit() is a decorator with cuda.jit's options: eager with a signature,
  lazy by argument types.  Its kernels compile, link and load through
  cuplug, and launch through cuplug (arrays with __cuda_array_interface__
  or __dlpack__; NumPy arrays are copied to the device and back, as
  numba-cuda does).  jit(target="host") runs them on this CPU instead
  (cuplug's host target: NumPy arrays and other buffers, in place), and
  that is the default where cuplug sees no GPU: numba-cuda's kernels run
  without one.
* install() makes numba-cuda's own @cuda.jit kernels and cuda.compile*
  compile through cuplug, and its kernels launch through cuplug's launcher
  with numba-cuda's semantics (cuplug/_numba_launch.py); uninstall()
  restores numba-cuda.  numba's types map onto cuplug's by numba-cuda's
  data model (cuplug/_numba_types.py); a function with a type that maps to
  nothing cuplug can lay out (none in numba-cuda's own suite) is left to
  numba-cuda, and counted by stats().

Supported: numba-cuda 0.30 (SUPPORTED); another version gets a clear
error rather than a silent mismatch.
"""

SUPPORTED = ("0.30",)

_installed = None  # what install() replaced, for uninstall()


def _numba_cuda():
    """numba-cuda's modules, after checking its version."""
    try:
        import numpy as np

        if not hasattr(np, "row_stack"):  # numpy 2.5 dropped it; numba-cuda 0.30 uses it
            np.row_stack = np.vstack
        import numba_cuda
        from numba import cuda  # noqa: F401
    except ImportError as e:
        raise ImportError("cuplug.numba needs numba-cuda: %s" % e) from e
    version = getattr(numba_cuda, "__version__", "unknown")
    if not any(version == v or version.startswith(v + ".") for v in SUPPORTED):
        raise RuntimeError("cuplug.numba supports numba-cuda %s; this is numba-cuda %s"
                           % (", ".join(SUPPORTED), version))
    from numba.cuda import compiler, dispatcher
    from numba.cuda import codegen
    from numba.cuda.cudadrv import nvvm
    return compiler, dispatcher, codegen, nvvm


import cuplug as _cuplug  # noqa: E402

from . import _numba_types  # noqa: E402
from ._numba_types import kind_of as _kind_of, signature_of, type_name  # noqa: E402,F401
from . import _numba_launch  # noqa: E402


_LINKABLE_KINDS = {"CUSource": 1, "PTXSource": 2, "LTOIR": 3, "Cubin": 4, "Fatbin": 5,
                   "Object": 6, "Archive": 7}


def link_code(library):
    """The files and code a numba library links (cuda.declare_device's
    link=, NRT, cudadevrt), as cuplug takes them."""
    out = []
    for f in library._linking_files:
        if isinstance(f, str):
            out.append(f)
        else:
            kind = _LINKABLE_KINDS.get(type(f).__name__, 0)
            data = f.data
            if kind == _LINKABLE_KINDS["CUSource"] and not data:
                continue  # an empty .cu (one that brings only module callbacks) adds nothing
            out.append((kind, f.name, data.encode() if isinstance(data, str) else data))
    if getattr(library, "needs_cudadevrt", False):
        from numba.cuda.cudadrv.libs import get_cudalib
        out.append(get_cudalib("cudadevrt", static=True))
    return out


_nvrtc_major = None  # cuplug's NVRTC's, asked once


def include_paths():
    """The folders numba-cuda's NVRTC takes the headers of the CUDA C++ it
    links from, but the toolkit's own (which cuplug adds after these):
    numba-cuda's include/<NVRTC's major version> (its cuda_fp16.h and kin),
    memory_management (NRT's memsys.cuh and nrt.cuh), then
    NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS."""
    global _nvrtc_major
    import os
    from numba import cuda
    from numba.cuda import config
    from numba.cuda.cudadrv import nvrtc  # noqa: F401 (sets the extra paths' default)
    if _nvrtc_major is None:
        _nvrtc_major = _cuplug.info()["nvrtc"][0]
    root = os.path.dirname(os.path.abspath(cuda.__file__))
    own = os.path.join(root, "include", str(_nvrtc_major))
    paths = [own] if os.path.isdir(own) else []
    paths.append(os.path.join(root, "memory_management"))
    extra = getattr(config, "CUDA_NVRTC_EXTRA_SEARCH_PATHS", "")
    return paths + (extra.split(":") if extra else [])


def _cc(cc):
    """numba-cuda's cc, (major, minor) or (major, minor, "a" or "f" or ""),
    as cuplug takes it."""
    if len(cc) > 2 and cc[2]:
        return (int(cc[0]), int(cc[1]), str(cc[2]))
    return (int(cc[0]), int(cc[1]))


def _device_cc(cc):
    """The cc numba-cuda builds a launched kernel for: a device's, arch-specific
    from 9.0 on (CUDACodeLibrary._ensure_cc)."""
    return (int(cc[0]), int(cc[1]), "a") if int(cc[0]) >= 9 else (int(cc[0]), int(cc[1]))


def c_abi_name(pyfunc, abi_info):
    """The C-ABI function's name as numba-cuda gives it: abi_info's
    "abi_name" as it is, else the function's name escaped to a symbol
    ("<lambda>" becomes "_3clambda_3e")."""
    if abi_info and "abi_name" in abi_info:
        return abi_info["abi_name"]
    from numba.cuda import itanium_mangler
    return itanium_mangler.escape_string(pyfunc.__qualname__.split(".")[-1])


# ---- compile() and friends --------------------------------------------------


def _lower(pyfunc, sig, debug, lineinfo, fastmath, cc, opt, device):
    """numba-cuda's front end: typing and lowering to Numba-ABI IR."""
    compiler, _, _, _ = _numba_cuda()
    from numba.cuda.core import config, sigutils
    from numba.cuda.core.compiler_lock import global_compiler_lock

    debug = config.CUDA_DEBUGINFO_DEFAULT if debug is None else debug
    opt = (config.OPT != 0) if opt is None else opt
    args, return_type = sigutils.normalize_signature(sig)
    cc = compiler._default_cc(cc)
    nvvm_options = {"fastmath": fastmath, "opt": 3 if opt else 0}
    if debug:
        nvvm_options["g"] = None
    with global_compiler_lock:
        cres = _original(compiler, "compile_cuda")(
            pyfunc, return_type, args, debug=debug, lineinfo=lineinfo, fastmath=fastmath,
            nvvm_options=nvvm_options, cc=cc, abi="numba")
    from numba.cuda import types
    resty = cres.signature.return_type
    if resty and not device and resty != types.void:
        raise TypeError("CUDA kernel must have void return type.")
    return cres, cc, bool(debug), bool(opt)


def _check(device, abi, output, forceinline):
    if output not in ("ptx", "ltoir"):
        raise NotImplementedError("Unsupported output type: %s" % output)
    if forceinline and output != "ltoir":
        raise ValueError("Can only designate forced inlining in LTO-IR")
    if abi not in ("numba", "c"):
        raise NotImplementedError("Unsupported ABI: %s" % abi)
    if abi == "c" and not device:
        raise NotImplementedError("The C ABI is not supported for kernels")
    if forceinline and not device:
        raise ValueError("Cannot force-inline kernels")


def _compile(pyfunc, sig, debug, lineinfo, device, fastmath, cc, opt, abi, abi_info, output,
             forceinline, launch_bounds, all_, session, current_device=False):
    _check(device, abi, output, forceinline)
    if current_device:
        cc = tuple(_cuplug.info()["device_cc"])
    cres, cc, debug, opt = _lower(pyfunc, sig, debug, lineinfo, fastmath, cc, opt, device)
    abi_name = c_abi_name(pyfunc, abi_info) if device and abi == "c" else None
    lib = cres.library
    compile_fn = _cuplug.compile_all if all_ else _cuplug.compile
    code, _ = compile_fn(
        lib.llvm_strs, signature_of(cres), entry=cres.fndesc.llvm_func_name,
        entry_abi="numba", device=device, abi=abi if device else "numba",
        abi_info={"abi_name": abi_name} if abi_name else None, output=output, cc=_cc(cc),
        opt=opt, debug=debug, lineinfo=lineinfo, fastmath=fastmath, forceinline=forceinline,
        launch_bounds=launch_bounds, link=link_code(lib) if all_ else (),
        include_paths=include_paths() if all_ else (), session=session)
    return code, cres.signature.return_type


def compile(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, cc=None,
            opt=None, abi="c", abi_info=None, output="ptx", forceinline=False,
            launch_bounds=None, *, session=None):
    """numba.cuda.compile through cuplug: (code, resty), resty numba's type."""
    return _compile(pyfunc, sig, debug, lineinfo, device, fastmath, cc, opt, abi, abi_info,
                    output, forceinline, launch_bounds, False, session)


def compile_for_current_device(pyfunc, sig, debug=None, lineinfo=False, device=True,
                               fastmath=False, opt=None, abi="c", abi_info=None, output="ptx",
                               forceinline=False, launch_bounds=None, *, session=None):
    """numba.cuda.compile_for_current_device through cuplug."""
    return _compile(pyfunc, sig, debug, lineinfo, device, fastmath, None, opt, abi, abi_info,
                    output, forceinline, launch_bounds, False, session, current_device=True)


def compile_ptx(pyfunc, sig, debug=None, lineinfo=False, device=False, fastmath=False, cc=None,
                opt=None, abi="numba", abi_info=None, launch_bounds=None, *, session=None):
    """numba.cuda.compile_ptx through cuplug: a kernel to PTX by default."""
    return _compile(pyfunc, sig, debug, lineinfo, device, fastmath, cc, opt, abi, abi_info,
                    "ptx", False, launch_bounds, False, session)


def compile_ptx_for_current_device(pyfunc, sig, debug=None, lineinfo=False, device=False,
                                   fastmath=False, opt=None, abi="numba", abi_info=None,
                                   launch_bounds=None, *, session=None):
    """numba.cuda.compile_ptx_for_current_device through cuplug."""
    return _compile(pyfunc, sig, debug, lineinfo, device, fastmath, None, opt, abi, abi_info,
                    "ptx", False, launch_bounds, False, session, current_device=True)


def compile_all(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, cc=None,
                opt=None, abi="c", abi_info=None, output="ltoir", forceinline=False,
                launch_bounds=None, *, session=None):
    """numba.cuda.compile_all through cuplug: (codes, resty)."""
    return _compile(pyfunc, sig, debug, lineinfo, device, fastmath, cc, opt, abi, abi_info,
                    output, forceinline, launch_bounds, True, session)


# ---- jit: kernels compiled, loaded and launched by cuplug ------------------


class _Configured:
    def __init__(self, dispatcher, config):
        self._dispatcher = dispatcher
        self._config = config

    def __call__(self, *args):
        return self._dispatcher._launch(self._config, args)


TARGETS = ("cuda", "host")

# the cc numba-cuda lowers for when the kernel runs on the host: the IR is
# the same for every cc, and no device need be asked
_HOST_CC = (7, 5)


class Dispatcher:
    """A kernel of cuplug.numba.jit: kernel[grid, block, stream, shared_mem](*args).
    target is "cuda" or "host"; None chooses "cuda" where cuplug sees a GPU
    and "host" where it sees none, when the first kernel is compiled."""

    def __init__(self, pyfunc, sigs, options):
        self.py_func = pyfunc
        self._options = options
        self._kernels = {}  # argument types -> cuplug.Kernel
        self._session = options.pop("session", None)
        self._target = options.pop("target", None)
        if self._target not in TARGETS + (None,):
            raise ValueError("cuplug.numba.jit: target must be one of %s, or None (the GPU "
                             "where there is one, else the host); got %r"
                             % (", ".join(TARGETS), self._target))
        for sig in sigs:
            self.compile(sig)

    @property
    def target(self):
        """Where the kernels run: "cuda" or "host"."""
        if self._target is None:
            self._target = "cuda" if _cuplug.info()["device_count"] else "host"
        return self._target

    def __getitem__(self, config):
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise TypeError("kernel[grid, block, stream, shared_mem]: give 2 to 4 values")
        return _Configured(self, config)

    def compile(self, sig):
        """Compile for a signature (argument types, or void(...)): a cuplug.Kernel."""
        _numba_cuda()
        from numba.cuda.core import sigutils
        args, _ = sigutils.normalize_signature(sig)
        return self._kernel_for(tuple(args))

    def _kernel_for(self, argtypes):
        kernel = self._kernels.get(argtypes)
        if kernel is not None:
            return kernel
        from numba.cuda import types
        o = self._options
        host = self.target == "host"
        cc = _HOST_CC if host else tuple(_cuplug.info()["device_cc"])
        cres, cc, debug, opt = _lower(self.py_func, types.void(*argtypes), o.get("debug"),
                                      o.get("lineinfo", False), o.get("fastmath", False), cc,
                                      o.get("opt"), device=False)
        lib = cres.library
        link = link_code(lib) + list(o.get("link") or ())
        sig = signature_of(cres)
        entry = cres.fndesc.llvm_func_name
        if host:  # for this CPU (cuplug's host target)
            if link:
                names = ", ".join(getattr(c, "name", None) or str(c) for c in link)
                raise NotImplementedError(
                    "cuplug.numba: %s links CUDA C++ (%s), which cannot run on the host: run "
                    "it on a GPU (target=\"cuda\")" % (self.py_func.__name__, names))
            code, _ = _cuplug.compile(
                lib.llvm_strs, sig, entry=entry, device=False, output="host", opt=opt,
                debug=debug, fastmath=o.get("fastmath", False), session=self._session)
        else:
            code, _ = _cuplug.compile(
                lib.llvm_strs, sig, entry=entry, device=False, output="cubin",
                cc=_device_cc(cc), opt=opt, debug=debug, lineinfo=o.get("lineinfo", False),
                fastmath=o.get("fastmath", False), launch_bounds=o.get("launch_bounds"),
                max_registers=o.get("max_registers"), link=link, include_paths=include_paths(),
                session=self._session)
        module = _cuplug.load(code, session=self._session)
        kernel = module.get_kernel(entry, sig, debug=debug)
        self._kernels[argtypes] = _Bound(kernel, module, cres.call_helper)
        return self._kernels[argtypes]

    def _argtypes(self, args):
        from numba.cuda.typing.typeof import Purpose, typeof
        return tuple(typeof(a, Purpose.argument) for a in args)

    def _launch(self, config, args):
        staged = []
        dev_args = list(args)
        if self.target == "cuda":  # NumPy arrays go to the device and back, as in numba-cuda
            import numpy as np
            from numba import cuda
            for i, a in enumerate(args):
                if isinstance(a, np.ndarray):
                    dev_args[i] = cuda.to_device(a)
                    staged.append((a, dev_args[i]))
        # (on the host, buffers are used in place: the kernel runs here)
        bound = self._kernel_for(self._argtypes(dev_args))
        try:
            bound.kernel[config](*dev_args)
        except _cuplug.KernelException as e:
            raise bound.exception(e) from None
        for host, dev in staged:
            dev.copy_to_host(host)


class _Bound:
    """A kernel with the module it lives in and numba-cuda's table of the
    exceptions it may raise."""

    def __init__(self, kernel, module, call_helper):
        self.kernel = kernel
        self.module = module
        self.call_helper = call_helper

    def __getitem__(self, config):
        return self.kernel[config]

    def exception(self, e):
        """The exception numba-cuda raises for cuplug's KernelException e:
        the kernel's own class and arguments, the thread's position first."""
        return _numba_launch.numba_exception(self.call_helper, e)


def jit(func_or_sig=None, *sigs, **options):
    """cuda.jit's decorator, compiling through cuplug:
    @jit, @jit("void(float32[::1])"), @jit(debug=True, link=["ext.cu"]),
    @jit(target="host") (on this CPU; the default where there is no GPU)."""
    if options.get("device"):
        raise NotImplementedError("cuplug.numba.jit makes kernels; use numba.cuda.jit(device="
                                  "True) for device functions, which kernels may call")

    def wrap(fn, signatures):
        return Dispatcher(fn, signatures, dict(options))

    if callable(func_or_sig):
        return wrap(func_or_sig, sigs)
    signatures = [] if func_or_sig is None else (
        list(func_or_sig) if isinstance(func_or_sig, list) else [func_or_sig])
    return lambda fn: wrap(fn, signatures + list(sigs))


# ---- install(): numba-cuda's own kernels and compile* through cuplug ------
#
# numba-cuda still types and lowers (to its own ABI); what it would hand to
# libNVVM and its linker, a library hands to cuplug instead: the kernel
# fix-up and exception store, the C-ABI wrapper, libNVVM, NVRTC and
# nvJitLink; its kernels launch through cuplug (_numba_launch).  A function
# whose signature has a type that maps to nothing cuplug can lay out is
# left to numba-cuda whole; stats() counts both.

_stats = {"cuplug": 0, "numba-cuda": 0, "reasons": {}}


def _original(owner, name):
    """owner.name as numba-cuda has it, install() or not."""
    for o, n, value in _installed or ():
        if o is owner and n == name:
            return value
    return getattr(owner, name)


def stats():
    """Since install(): how many functions cuplug compiled, how many it left
    to numba-cuda, and why ({reason: count}); what cuplug's result cache
    (its default session's) found: {"memory_hits", "disk_hits", "misses",
    "remote_hits", "remote_misses", "remote_stores", "remote_refused",
    "remote_errors"} (the remote tier's, zero without one);
    and "launches": how many overloads launch through cuplug, how many
    numba-cuda launches itself and why, and how many launches cuplug's
    launcher refused and handed back to numba-cuda ("fallbacks")."""
    c = _cuplug.default_session().cache_info()
    return {"cuplug": _stats["cuplug"], "numba-cuda": _stats["numba-cuda"],
            "reasons": dict(_stats["reasons"]), "types": dict(_numba_types.unmapped),
            "cache": {k: c[k] for k in ("memory_hits", "disk_hits", "misses", "remote_hits",
                                        "remote_misses", "remote_stores", "remote_refused",
                                        "remote_errors")},
            "launches": _numba_launch.stats()}


def _left_to_numba(reason):
    _stats["numba-cuda"] += 1
    _stats["reasons"][reason] = _stats["reasons"].get(reason, 0) + 1


def _object_code(cubin, name):
    """A cubin as numba-cuda's linker returns it (cuda.core's ObjectCode)."""
    try:
        from cuda.core import ObjectCode
    except ImportError:  # cuda.core before 1.0
        from cuda.core.experimental import ObjectCode
    return ObjectCode.from_cubin(cubin, name=name)


def _make_library_class(base):
    class CuplugCodeLibrary(base):
        """numba-cuda's code library, compiling and linking through cuplug
        when its entry is cuplug's (else as numba-cuda does)."""

        def _cuplug_args(self, cc):
            entry = getattr(self, "_cuplug_entry", None)
            if entry is None:
                return None
            name, sig, abi, abi_name = entry
            kernel = self._entry_name == name
            opts = self._nvvm_options
            fn = self.get_function(name)
            args = dict(entry=name, entry_abi="numba", device=not kernel,
                        abi="numba" if kernel else abi,
                        abi_info={"abi_name": abi_name} if abi_name and not kernel else None,
                        cc=_cc(self._ensure_cc(cc)), opt=3 if opts.get("opt", 3) else False,
                        debug="g" in opts, fastmath=bool(opts.get("fastmath")),
                        launch_bounds=getattr(fn, "_cuplug_launch_bounds", None)
                        if kernel else None)
            return args, sig

        def _cuplug_compile(self, output, cc, keep_ir=False, **extra):
            """cuplug's code for this library.  With keep_ir, and for a
            kernel's first compile under NUMBA_DUMP_LLVM, the IR cuplug
            handed libNVVM after its fix-up is kept for get_llvm_str (and
            dumped, as numba-cuda's kernel_fixup dumps its own)."""
            kw, sig = self._cuplug_args(cc)
            from numba.cuda.core import config
            dump = (not kw["device"] and config.DUMP_LLVM
                    and not getattr(self, "_cuplug_dumped", False))
            if not (keep_ir or dump):
                code, _ = _cuplug.compile(self.llvm_strs, sig, output=output, **kw, **extra)
                return code
            code, ir, _ = _cuplug._compile_keeping_ir(self.llvm_strs, sig, output=output,
                                                      **kw, **extra)
            text = "\n\n".join(t for _, t in ir)
            if not hasattr(self, "_cuplug_ir"):
                self._cuplug_ir = {}
            self._cuplug_ir[self._ensure_cc(cc)] = text
            if dump:
                self._cuplug_dumped = True
                print(("LLVM DUMP: Post kernel fixup %s" % kw["entry"]).center(80, "-"))
                print(text)
                print("=" * 80)
            return code

        def get_llvm_str(self):
            """A kernel's IR as cuplug handed it to libNVVM, after cuplug's
            fix-up (numba-cuda shows its kernels after its own fix-up);
            a device function's, and a library cuplug does not compile,
            as numba-cuda has it."""
            entry = getattr(self, "_cuplug_entry", None)
            if entry is None or self._entry_name != entry[0]:
                return super().get_llvm_str()
            key = self._ensure_cc(None)
            if key not in getattr(self, "_cuplug_ir", {}):
                self._cuplug_compile("ptx", None, keep_ir=True)
            return self._cuplug_ir[key]

        def get_asm_strs(self, cc=None):
            if getattr(self, "_cuplug_entry", None) is None:
                return super().get_asm_strs(cc=cc)
            key = self._ensure_cc(cc)
            if key not in self._ptx_cache:
                code = self._cuplug_compile("ptx", cc)
                self._ptx_cache[key] = [code.strip("\x00").strip()]
                from numba.cuda.core import config
                if config.DUMP_ASSEMBLY:  # as numba-cuda prints it
                    print(("ASSEMBLY %s" % self._name).center(80, "-"))
                    print(self._ptx_cache[key][0])
                    print("=" * 80)
            return self._ptx_cache[key]

        def get_ltoir(self, cc=None):
            if getattr(self, "_cuplug_entry", None) is None:
                return super().get_ltoir(cc=cc)
            key = self._ensure_cc(cc)
            if key not in self._ltoir_cache:
                self._ltoir_cache[key] = self._cuplug_compile("ltoir", cc)
            return self._ltoir_cache[key]

        def _numba_link_error(self, cc, error):
            """Raises the error numba-cuda's own linker gives for the code
            this library links (a .cu that does not compile, a file of no
            known kind, a missing file: numba-cuda's tests and users catch
            its exception classes), or cuplug's where numba-cuda's links."""
            try:
                super().get_cubin(cc=cc)
            except Exception as numba_error:
                raise numba_error from error
            # numba-cuda's cubin lacks cuplug's fix-up: never keep it
            self._cubin_cache.pop(self._ensure_cc(cc), None)
            self._linkerinfo_cache.pop(self._ensure_cc(cc), None)
            raise error

        def _link_ptx(self, cc):
            """Without LTO, numba-cuda links the PTX it already made (its
            _Kernel asks for the PTX first): so does this, rather than
            running libNVVM a second time for a cubin.  Its linker compiles
            .cu code with neither -G nor -lineinfo, whatever the kernel's."""
            ptx = ("%s.ptx" % self._name, self.get_asm_strs(cc=cc)[0].encode())
            return _cuplug.link([(_LINKABLE_KINDS["PTXSource"],) + ptx] + link_code(self),
                                cc=_cc(self._ensure_cc(cc)), lto=False,
                                max_registers=self._max_registers,
                                include_paths=include_paths())

        def get_cubin(self, cc=None):
            if getattr(self, "_cuplug_entry", None) is None:
                return super().get_cubin(cc=cc)
            key = self._ensure_cc(cc)
            if key not in self._cubin_cache:
                # numba-cuda's runtime (NRT) and other .cu code find their
                # headers in numba-cuda's folders, as its own NVRTC does
                try:
                    code = self._link_ptx(cc) if not self._lto else self._cuplug_compile(
                        "cubin", cc, link=link_code(self), include_paths=include_paths(),
                        max_registers=self._max_registers)
                except (_cuplug.LinkError, _cuplug.ArgumentError) as e:
                    self._numba_link_error(cc, e)
                self._cubin_cache[key] = _object_code(code, self._name)
                self._linkerinfo_cache[key] = ""
            return self._cubin_cache[key]

    return CuplugCodeLibrary


def install():
    """Make numba-cuda's own @cuda.jit kernels and cuda.compile* compile
    through cuplug: numba-cuda types and lowers, cuplug fixes kernels up,
    wraps C-ABI functions, runs libNVVM and links; and make its kernels
    launch through cuplug's launcher, with numba-cuda's semantics
    (_numba_launch).  uninstall() undoes it."""
    global _installed
    if _installed:
        return
    compiler, dispatcher, codegen, nvvm = _numba_cuda()
    original_compile_cuda = compiler.compile_cuda
    original_kernel_fixup = compiler.kernel_fixup
    original_set_launch_bounds = nvvm.set_launch_bounds

    def compile_cuda(pyfunc, return_type, args, *a, abi="numba", abi_info=None, **kw):
        # numba-cuda lowers under its own ABI; cuplug makes the C ABI
        cres = original_compile_cuda(pyfunc, return_type, args, *a, abi="numba", **kw)
        try:
            sig = signature_of(cres)
        except NotImplementedError as e:
            _left_to_numba(_kind_of(str(e).split("numba type ", 1)[-1]))
            if abi == "c":  # numba-cuda's own C ABI, then
                return original_compile_cuda(pyfunc, return_type, args, *a, abi="c",
                                             abi_info=abi_info, **kw)
            return cres
        _stats["cuplug"] += 1
        abi_name = c_abi_name(pyfunc, abi_info) if abi == "c" else None
        cres.library._cuplug_entry = (cres.fndesc.llvm_func_name, sig, abi, abi_name)
        cres.library.get_function(cres.fndesc.llvm_func_name)._cuplug = True
        return cres

    def kernel_fixup(kernel, debug):
        if not getattr(kernel, "_cuplug", False):  # numba-cuda compiles it
            return original_kernel_fixup(kernel, debug)
        # cuplug fixes the kernel up when it compiles it

    def set_launch_bounds(kernel, launch_bounds):
        if not getattr(kernel, "_cuplug", False):
            return original_set_launch_bounds(kernel, launch_bounds)
        kernel._cuplug_launch_bounds = launch_bounds

    _installed = [
        (compiler, "compile_cuda", compiler.compile_cuda),
        (dispatcher, "compile_cuda", dispatcher.compile_cuda),
        (compiler, "kernel_fixup", compiler.kernel_fixup),
        (dispatcher, "kernel_fixup", dispatcher.kernel_fixup),
        (nvvm, "set_launch_bounds", nvvm.set_launch_bounds),
        (codegen.JITCUDACodegen, "_library_class", codegen.JITCUDACodegen._library_class),
    ]
    compiler.compile_cuda = dispatcher.compile_cuda = compile_cuda
    compiler.kernel_fixup = dispatcher.kernel_fixup = kernel_fixup
    nvvm.set_launch_bounds = set_launch_bounds
    codegen.JITCUDACodegen._library_class = _make_library_class(codegen.CUDACodeLibrary)
    _installed.extend(_numba_launch.install(dispatcher))


def uninstall():
    """Restore numba-cuda's own compilation and launches."""
    global _installed
    if not _installed:
        return
    _numba_launch.restore(_installed)
    _installed = None


def installed():
    """Is cuplug compiling numba-cuda's kernels?"""
    return bool(_installed)
