"""What a type checker makes of calls through cuplug/__init__.pyi: ctest's
python.stubtest runs mypy on this file (it is never run).  Each
assert_type is the type a caller gets."""
from typing import Any, Optional, Tuple, Union, assert_type

import cuplug

IR = "define i32 @f() {\n  ret i32 0\n}\n"

assert_type(cuplug.compile(IR, "int32()", entry="f"), Tuple[str, Optional[cuplug.Type]])
assert_type(cuplug.compile(IR, "int32()", entry="f", output="ptx"),
            Tuple[str, Optional[cuplug.Type]])
assert_type(cuplug.compile(IR, "int32()", entry="f", output="ltoir"),
            Tuple[bytes, Optional[cuplug.Type]])
assert_type(cuplug.compile(IR, "int32()", entry="f", output="cubin", cc=(9, 0, "a")),
            Tuple[bytes, Optional[cuplug.Type]])
art, restype = cuplug.compile(IR, "int32()", entry="f", output="host")
assert_type(art, cuplug.Artifact)
assert_type(art.cc, Union[Tuple[int, int], Tuple[int, int, str]])
module = cuplug.load(art)
assert_type(module.call(1, 2), Any)
assert_type(module.address(), int)
output: str = "ptx"
assert_type(cuplug.compile(IR, "int32()", entry="f", output=output),
            Tuple[Union[str, bytes, cuplug.Artifact], Optional[cuplug.Type]])
assert_type(cuplug.compile_for_current_device(IR, "int32()", entry="f", output="host"),
            Tuple[cuplug.Artifact, Optional[cuplug.Type]])
# modern IR: the backend by name, bitcode as bytes, a kernel's signature from the IR
assert_type(cuplug.compile(IR, "int32()", entry="f", backend="llvm"),
            Tuple[str, Optional[cuplug.Type]])
assert_type(cuplug.compile_ptx(b"BC\xc0\xde", entry="k"), Tuple[str, Optional[cuplug.Type]])
assert_type(art.backend, Optional[str])
assert_type(cuplug.resolve_call("math.pow", "float32, int32"), cuplug.Resolution)
assert_type(cuplug.__version__, str)
try:
    cuplug.compile(IR, "int32()", entry="f")
except cuplug.HostError as e:
    assert_type(e.symbol, Optional[str])
