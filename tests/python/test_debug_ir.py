"""A debug kernel's IR as cuplug hands it to libNVVM (keep_ir, what
cuplug.numba's inspect_llvm() shows): numba-cuda's debug metadata kept, the
kernel fixed up as numba-cuda fixes it, read with the patterns of
numba-cuda's own tests (test_debuginfo.py)."""
import re

import cuplug

# `def f(x, y): z = x + y` (debug=True, opt=False), hand-written as numba-cuda
# 0.30.4 lowers it and llvmlite spells it: the return slot first, then x and y
F_DEBUG = """\
define i32 @"_ZN8__main__1fB2v1Eii"(i8** %".ret", i32 %"x", i32 %"y") noinline !dbg !14
{
entry:
  %"z" = alloca i64, !dbg !16
  call void @"llvm.dbg.declare"(metadata i64* %"z", metadata !18, metadata !DIExpression()), !dbg !16
  %".5" = sext i32 %"x" to i64, !dbg !19
  %".6" = sext i32 %"y" to i64, !dbg !19
  %".7" = add nsw i64 %".5", %".6", !dbg !19
  store i64 %".7", i64* %"z", !dbg !19
  store i8* null, i8** %".ret", !dbg !20
  ret i32 0, !dbg !20
}
declare void @"llvm.dbg.declare"(metadata %".1", metadata %".2", metadata %".3")
!llvm.dbg.cu = !{ !2 }
!llvm.module.flags = !{ !0, !1 }
!nvvmir.version = !{ !21 }
!0 = !{ i32 7, !"Dwarf Version", i32 4 }
!1 = !{ i32 2, !"Debug Info Version", i32 3 }
!2 = distinct !DICompileUnit(emissionKind: FullDebug, file: !3, isOptimized: false, language: DW_LANG_C_plus_plus, producer: "clang (Numba)", runtimeVersion: 0)
!3 = !DIFile(directory: "/tmp", filename: "f.py")
!4 = !DIBasicType(encoding: DW_ATE_unsigned, name: "i8", size: 8)
!5 = !DIDerivedType(baseType: !4, size: 64, tag: DW_TAG_pointer_type)
!6 = !DIDerivedType(baseType: !5, size: 64, tag: DW_TAG_pointer_type)
!7 = !DIBasicType(encoding: DW_ATE_signed, name: "int32", size: 32)
!8 = !{ !6, !7, !7 }
!9 = !DISubroutineType(types: !8)
!14 = distinct !DISubprogram(file: !3, isDefinition: true, isLocal: false, isOptimized: false, line: 1, linkageName: "_ZN8__main__1fB2v1Eii", name: "f", scope: !3, scopeLine: 1, type: !9, unit: !2)
!15 = !DIBasicType(encoding: DW_ATE_signed, name: "int64", size: 64)
!16 = !DILocation(column: 1, line: 1, scope: !14)
!18 = !DILocalVariable(file: !3, line: 2, name: "z", scope: !14, type: !15)
!19 = !DILocation(column: 5, line: 2, scope: !14)
!20 = !DILocation(column: 5, line: 2, scope: !14)
!21 = !{ i32 2, i32 0, i32 3, i32 1 }
"""
F = "_ZN8__main__1fB2v1Eii"


def kept_ir(**options):
    art = cuplug.Session(cache=False).compile(
        F_DEBUG, F, cuplug.typeof("void(int32, int32)"), kind=1, output=1, cc=(9, 0),
        opt=-1, keep_ir=True, **options)
    (_, text), = art.ir
    return text


def test_kernel_keeps_its_argument_names():
    ir = kept_ir(debug=True)
    assert re.search(r'define void @.*\(i32 %"x", i32 %"y"\)', ir)
    assert '%"arg.x"' not in ir


def test_subroutine_type_returns_void():
    """numba-cuda's test_kernel_args_types: the first subroutine type's list
    is null (void), then the two int32 parameters."""
    ir = kept_ir(debug=True)
    ids = re.search(r"!DISubroutineType\(types:\s+!(\d+)\)", ir).group(1)
    m = re.search(r"!%s\s+=\s+!{\s+null,\s+!(\d+),\s+!(\d+)\s+}" % ids, ir)
    assert m, ir
    for node in m.groups():
        assert re.search(r'!%s\s+=\s+!DIBasicType\(.*DW_ATE_signed,\s+name:\s+"int32"' % node, ir)
    assert ir.count("!DISubroutineType(") == 1


def test_local_variable_and_kernel_annotation_kept():
    for options in ({"debug": True}, {"lineinfo": True}):
        ir = kept_ir(**options)
        assert '!18 = !DILocalVariable(file: !3, line: 2, name: "z", scope: !14, type: !15)' in ir
        assert 'call void @"llvm.dbg.declare"(metadata i64* %"z", metadata !18' in ir
        assert re.search(r'!\{void \(i32, i32\)\* @"%s", !"kernel", i32 1\}' % F, ir)
        assert "!8 = !{ null, !7, !7 }" in ir
