# Type stubs for cuplug (the module's own docstrings say what each call does).
# ctest's python.stubtest checks them against the module (mypy's stubtest).
from typing import (Any, Callable, Iterable, Literal, Mapping, NamedTuple, Optional, Sequence,
                    Tuple, Union, final, overload)

_Code = Union[str, bytes, "Artifact", Tuple[str, bytes], Tuple[int, str, bytes]]
_Signature = Union[str, "Type"]
_Text = Union[str, bytes, bytearray, memoryview]
_IR = Union[_Text, Sequence[_Text]]
# numba-cuda's cc: (major, minor), or (major, minor, "a" or "f" or "")
_CC = Union[Tuple[int, int], Tuple[int, int, str]]
_Opt = Union[bool, int, None]
_Bounds = Union[int, Sequence[int], None]
_HostFunction = Union[int, Any, None]  # an int address, or a ctypes function
_Backend = Optional[Literal["libnvvm", "llvm"]]  # None: by the IR's dialect

__version__: str

class CuplugError(Exception):
    code: int
    name: str
    message: str
    log: str
    symbol: Optional[str]
    def __init__(self, code: int, name: str, message: str, log: str = ...,
                 symbol: Optional[str] = ...) -> None: ...

class ArgumentError(CuplugError, ValueError): ...
class ArgumentTypeError(CuplugError, TypeError): ...
class TypeSyntaxError(CuplugError, ValueError): ...
class IRError(CuplugError, ValueError): ...
class OptionError(CuplugError, ValueError): ...
class ToolkitError(CuplugError): ...
class ToolkitCrash(ToolkitError): ...
class ToolkitTimeout(ToolkitError, TimeoutError): ...
class LinkError(ToolkitError): ...
class RegistryError(CuplugError, ValueError): ...
class GPUError(CuplugError): ...
class LaunchArgumentError(GPUError, TypeError): ...
class LaunchConfigError(GPUError, ValueError): ...

class KernelException(GPUError):
    exception_code: Optional[int]
    tid: Optional[Tuple[int, int, int]]
    ctaid: Optional[Tuple[int, int, int]]
    def __init__(self, code: int, name: str, message: str, log: str = ...,
                 symbol: Optional[str] = ...) -> None: ...

class KernelFault(GPUError): ...
class TypingError(CuplugError, TypeError): ...
class LimitError(CuplugError, ValueError): ...
class HostError(CuplugError): ...

class CuplugWarning(UserWarning):
    code: int
    name: str
    message: str
    symbol: Optional[str]
    def __init__(self, code: int, name: str, message: str,
                 symbol: Optional[str] = ...) -> None: ...

@final
class Type:
    name: str
    kind: int
    element: Optional[Type]
    ndim: int
    layout: str
    restype: Optional[Type]
    args: Tuple[Type, ...]
    size: int
    literal_value: int
    align: int
    fields: Optional[Tuple[Tuple[str, Type, Optional[int]], ...]]
    text: Optional[str]

@final
class Artifact:
    output: int
    data: Union[str, bytes]
    symbol: str
    log: str
    link_log: str
    cc: _CC
    kind: int
    signature: Optional[Type]
    cooperative: bool
    parts: list[Tuple[int, str, Union[str, bytes]]]
    ir: list[Tuple[str, str]]
    stages: list[Tuple[str, float]]
    debug: bool
    cache: str
    backend: Optional[str]

@final
class Kernel:
    name: str
    signature: Type
    def __getitem__(self, config: Tuple[Any, ...]) -> Callable[..., None]: ...

@final
class Library:
    def get_kernel(self, name: Optional[str] = ..., signature: Optional[_Signature] = ...,
                   debug: bool = ..., cooperative: bool = ...) -> Kernel: ...
    def call(self, *args: Any, name: Optional[str] = ...,
             signature: Optional[_Signature] = ...) -> Any: ...
    def address(self, name: Optional[str] = ...) -> int: ...
    def close(self) -> None: ...

@final
class Registry:
    def __init__(self, builtins: bool = ...) -> None: ...
    def declare_device(self, name: str, signature: _Signature, abi: Optional[str] = ...,
                       link: Optional[Sequence[_Code]] = ..., cooperative: bool = ..., *,
                       host_function: Optional[int] = ..., host_owner: Any = ...) -> None: ...
    def register_template(self, key: str, signature: Optional[_Signature] = ...,
                          typer: Optional[Callable[[str, Tuple[Type, ...]], Any]] = ...,
                          description: Optional[str] = ...) -> None: ...
    def register_lowering(self, key: str, kind: int, signature: Optional[_Signature] = ...,
                          symbol: Optional[str] = ..., source: Optional[Union[str, bytes]] = ...,
                          lowerer: Optional[Callable[..., str]] = ...,
                          abi: Optional[str] = ...) -> None: ...
    def resolve(self, key: str, argtypes: Sequence[_Signature],
                strict: bool = ...) -> Tuple[Type, str, str, str, Tuple[str, ...]]: ...
    def list(self, prefix: Optional[str] = ...) -> list[Tuple[str, Type, str, str, bool]]: ...
    def const_array(self, dtype: _Signature, shape: Tuple[int, ...],
                    data: Any) -> Tuple[Type, str, str, str]: ...

@final
class Session:
    registry: Registry
    def __init__(self, cuda_home: Optional[str] = ..., default_cc: Optional[Tuple[int, int]] = ...,
                 registry: Optional[Registry] = ..., trusted: bool = ...,
                 time_limit_ms: int = ..., *, cache: bool = ...,
                 cache_dir: Optional[str] = ..., cache_max_bytes: int = ...,
                 cache_memory_bytes: int = ..., cache_remote: Optional[str] = ...,
                 cache_remote_key: Optional[str] = ..., cache_remote_timeout_ms: int = ...,
                 cache_remote_ttl_s: int = ...) -> None: ...
    def compile(self, modules: Union[_Text, Sequence[Union[_Text, Tuple[Optional[str], _Text]]]],
                entry: str, signature: Optional[_Signature], **options: Any) -> Artifact: ...
    def link(self, code: Sequence[_Code] = ..., artifacts: Sequence[Artifact] = ...,
             **options: Any) -> Artifact: ...
    def load(self, artifact_or_cubin: Union[Artifact, bytes]) -> Library: ...
    def mem_alloc(self, nbytes: int) -> int: ...
    def mem_free(self, address: int) -> None: ...
    def to_device(self, address: int, data: Any) -> None: ...
    def to_host(self, address: int, nbytes: int) -> bytes: ...
    def synchronize(self) -> None: ...
    def cache_info(self) -> dict[str, Union[str, int]]: ...
    def cache_clear(self) -> None: ...

class Resolution(NamedTuple):
    signature: Type
    symbol: str
    abi: str
    declaration: str
    conversions: Tuple[str, ...]

class DeclaredFunction(NamedTuple):
    name: str
    signature: Type
    abi: str

class Module:
    def __init__(self, library: Library) -> None: ...
    def get_kernel(self, name: Optional[str] = ..., sig: Optional[_Signature] = ..., *,
                   debug: bool = ..., cooperative: bool = ...) -> Kernel: ...
    def call(self, *args: Any, name: Optional[str] = ...,
             signature: Optional[_Signature] = ...) -> Any: ...
    def address(self, name: Optional[str] = ...) -> int: ...
    def close(self) -> None: ...
    def __enter__(self) -> Module: ...
    def __exit__(self, *exc: Any) -> None: ...

def info() -> dict[str, Any]: ...
def typeof(name: _Signature) -> Type: ...
def literal(n: int) -> Type: ...
def default_session() -> Session: ...

# compile's code by output: PTX is text, LTO-IR and a cubin are bytes, and
# output="host" gives the Artifact to load() in place of code
_Restype = Optional[Type]

@overload
def compile(ir: _IR, sig: Optional[_Signature] = ..., *, entry: str, entry_abi: str = ...,
            device: bool = ..., abi: str = ...,
            abi_info: Optional[Mapping[str, Optional[str]]] = ...,
            output: Literal["ptx"] = ..., cc: Optional[_CC] = ..., opt: _Opt = ...,
            debug: Optional[bool] = ..., lineinfo: bool = ..., fastmath: bool = ...,
            forceinline: bool = ..., launch_bounds: _Bounds = ..., link: Iterable[_Code] = ...,
            include_paths: Union[str, Sequence[str]] = ...,
            session: Optional[Session] = ..., max_registers: Optional[int] = ...,
            time_limit_ms: int = ...,
            backend: _Backend = ...) -> Tuple[str, _Restype]: ...
@overload
def compile(ir: _IR, sig: Optional[_Signature] = ..., *, entry: str, entry_abi: str = ...,
            device: bool = ..., abi: str = ...,
            abi_info: Optional[Mapping[str, Optional[str]]] = ...,
            output: Literal["ltoir", "cubin"], cc: Optional[_CC] = ..., opt: _Opt = ...,
            debug: Optional[bool] = ..., lineinfo: bool = ..., fastmath: bool = ...,
            forceinline: bool = ..., launch_bounds: _Bounds = ..., link: Iterable[_Code] = ...,
            include_paths: Union[str, Sequence[str]] = ...,
            session: Optional[Session] = ..., max_registers: Optional[int] = ...,
            time_limit_ms: int = ...,
            backend: _Backend = ...) -> Tuple[bytes, _Restype]: ...
@overload
def compile(ir: _IR, sig: Optional[_Signature] = ..., *, entry: str, entry_abi: str = ...,
            device: bool = ..., abi: str = ...,
            abi_info: Optional[Mapping[str, Optional[str]]] = ...,
            output: Literal["host"], cc: Optional[_CC] = ..., opt: _Opt = ...,
            debug: Optional[bool] = ..., lineinfo: bool = ..., fastmath: bool = ...,
            forceinline: bool = ..., launch_bounds: _Bounds = ..., link: Iterable[_Code] = ...,
            include_paths: Union[str, Sequence[str]] = ...,
            session: Optional[Session] = ..., max_registers: Optional[int] = ...,
            time_limit_ms: int = ...,
            backend: _Backend = ...) -> Tuple[Artifact, _Restype]: ...
@overload
def compile(ir: _IR, sig: Optional[_Signature] = ..., *, entry: str, entry_abi: str = ...,
            device: bool = ..., abi: str = ...,
            abi_info: Optional[Mapping[str, Optional[str]]] = ...,
            output: str = ..., cc: Optional[_CC] = ..., opt: _Opt = ...,
            debug: Optional[bool] = ..., lineinfo: bool = ..., fastmath: bool = ...,
            forceinline: bool = ..., launch_bounds: _Bounds = ..., link: Iterable[_Code] = ...,
            include_paths: Union[str, Sequence[str]] = ...,
            session: Optional[Session] = ..., max_registers: Optional[int] = ...,
            time_limit_ms: int = ...,
            backend: _Backend = ...) -> Tuple[Union[str, bytes, Artifact], _Restype]: ...
def compile_ptx(ir: _IR, sig: Optional[_Signature] = ..., *, entry: str, entry_abi: str = ...,
                device: bool = ..., abi: str = ...,
                abi_info: Optional[Mapping[str, Optional[str]]] = ..., cc: Optional[_CC] = ...,
                opt: _Opt = ..., debug: Optional[bool] = ..., lineinfo: bool = ...,
                fastmath: bool = ..., launch_bounds: _Bounds = ..., link: Iterable[_Code] = ...,
                include_paths: Union[str, Sequence[str]] = ...,
                session: Optional[Session] = ..., max_registers: Optional[int] = ...,
                time_limit_ms: int = ...,
                backend: _Backend = ...) -> Tuple[str, _Restype]: ...
@overload
def compile_for_current_device(
        ir: _IR, sig: Optional[_Signature] = ..., *, entry: str, entry_abi: str = ...,
        device: bool = ..., abi: str = ...,
        abi_info: Optional[Mapping[str, Optional[str]]] = ...,
        output: Literal["ptx"] = ..., opt: _Opt = ..., debug: Optional[bool] = ...,
        lineinfo: bool = ..., fastmath: bool = ..., forceinline: bool = ...,
        launch_bounds: _Bounds = ..., link: Iterable[_Code] = ...,
        include_paths: Union[str, Sequence[str]] = ...,
        session: Optional[Session] = ..., max_registers: Optional[int] = ...,
        time_limit_ms: int = ...,
        backend: _Backend = ...) -> Tuple[str, _Restype]: ...
@overload
def compile_for_current_device(
        ir: _IR, sig: Optional[_Signature] = ..., *, entry: str, entry_abi: str = ...,
        device: bool = ..., abi: str = ...,
        abi_info: Optional[Mapping[str, Optional[str]]] = ...,
        output: Literal["ltoir", "cubin"], opt: _Opt = ..., debug: Optional[bool] = ...,
        lineinfo: bool = ..., fastmath: bool = ..., forceinline: bool = ...,
        launch_bounds: _Bounds = ..., link: Iterable[_Code] = ...,
        include_paths: Union[str, Sequence[str]] = ...,
        session: Optional[Session] = ..., max_registers: Optional[int] = ...,
        time_limit_ms: int = ...,
        backend: _Backend = ...) -> Tuple[bytes, _Restype]: ...
@overload
def compile_for_current_device(
        ir: _IR, sig: Optional[_Signature] = ..., *, entry: str, entry_abi: str = ...,
        device: bool = ..., abi: str = ...,
        abi_info: Optional[Mapping[str, Optional[str]]] = ...,
        output: Literal["host"], opt: _Opt = ..., debug: Optional[bool] = ...,
        lineinfo: bool = ..., fastmath: bool = ..., forceinline: bool = ...,
        launch_bounds: _Bounds = ..., link: Iterable[_Code] = ...,
        include_paths: Union[str, Sequence[str]] = ...,
        session: Optional[Session] = ..., max_registers: Optional[int] = ...,
        time_limit_ms: int = ...,
        backend: _Backend = ...) -> Tuple[Artifact, _Restype]: ...
@overload
def compile_for_current_device(
        ir: _IR, sig: Optional[_Signature] = ..., *, entry: str, entry_abi: str = ...,
        device: bool = ..., abi: str = ...,
        abi_info: Optional[Mapping[str, Optional[str]]] = ...,
        output: str = ..., opt: _Opt = ..., debug: Optional[bool] = ...,
        lineinfo: bool = ..., fastmath: bool = ..., forceinline: bool = ...,
        launch_bounds: _Bounds = ..., link: Iterable[_Code] = ...,
        include_paths: Union[str, Sequence[str]] = ...,
        session: Optional[Session] = ..., max_registers: Optional[int] = ...,
        time_limit_ms: int = ...,
        backend: _Backend = ...) -> Tuple[Union[str, bytes, Artifact], _Restype]: ...
def compile_ptx_for_current_device(
        ir: _IR, sig: Optional[_Signature] = ..., *, entry: str, entry_abi: str = ...,
        device: bool = ..., abi: str = ...,
        abi_info: Optional[Mapping[str, Optional[str]]] = ..., opt: _Opt = ...,
        debug: Optional[bool] = ..., lineinfo: bool = ..., fastmath: bool = ...,
        launch_bounds: _Bounds = ..., link: Iterable[_Code] = ...,
        include_paths: Union[str, Sequence[str]] = ...,
        session: Optional[Session] = ..., max_registers: Optional[int] = ...,
        time_limit_ms: int = ...,
        backend: _Backend = ...) -> Tuple[str, _Restype]: ...
def compile_all(ir: _IR, sig: Optional[_Signature] = ..., *, entry: str, entry_abi: str = ...,
                device: bool = ..., abi: str = ...,
                abi_info: Optional[Mapping[str, Optional[str]]] = ...,
                output: Literal["ptx", "ltoir"] = ..., cc: Optional[_CC] = ..., opt: _Opt = ...,
                debug: Optional[bool] = ..., lineinfo: bool = ..., fastmath: bool = ...,
                forceinline: bool = ..., launch_bounds: _Bounds = ...,
                link: Iterable[_Code] = ..., include_paths: Union[str, Sequence[str]] = ...,
                session: Optional[Session] = ..., max_registers: Optional[int] = ...,
                time_limit_ms: int = ...,
                backend: _Backend = ...) -> Tuple[list[Union[str, bytes]], _Restype]: ...
def declare_device(name: str, sig: _Signature,
                   link: Optional[Union[_Code, Sequence[_Code]]] = ...,
                   use_cooperative: bool = ..., abi: str = ..., *,
                   host_function: _HostFunction = ..., session: Optional[Session] = ...,
                   registry: Optional[Registry] = ...) -> DeclaredFunction: ...
def register_typing(key: str, sigs_or_callable: Union[_Signature, Sequence[_Signature],
                                                      Callable[[str, Tuple[Type, ...]], Any]],
                    *, description: Optional[str] = ..., session: Optional[Session] = ...,
                    registry: Optional[Registry] = ...) -> None: ...
def register_lowering(key: str, sig: Optional[_Signature] = ..., *, ir: Optional[str] = ...,
                      cuda: Optional[str] = ..., callable: Optional[Callable[..., str]] = ...,
                      symbol: Optional[str] = ..., abi: str = ...,
                      session: Optional[Session] = ...,
                      registry: Optional[Registry] = ...) -> None: ...
def resolve_call(key: str, argtypes: Union[str, Type, Iterable[_Signature]], *,
                 strict: bool = ..., session: Optional[Session] = ...,
                 registry: Optional[Registry] = ...) -> Resolution: ...
def link(codes: Union[_Code, Sequence[_Code]], cc: Optional[_CC] = ..., lto: bool = ...,
         max_registers: Optional[int] = ..., *, debug: bool = ..., lineinfo: bool = ...,
         include_paths: Union[str, Sequence[str]] = ..., use_cooperative: bool = ...,
         session: Optional[Session] = ..., time_limit_ms: int = ...) -> bytes: ...
def load(cubin: Union[bytes, Artifact], *, session: Optional[Session] = ...) -> Module: ...
