; ModuleID = 'saxpy.c79a45c2d8233b02-cgu.0'
source_filename = "saxpy.c79a45c2d8233b02-cgu.0"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(readwrite, inaccessiblemem: none, target_mem0: none, target_mem1: none)
define ptx_kernel void @saxpy(i64 noundef %n, float noundef %a, ptr noundef %x, ptr noundef %y) unnamed_addr #0 {
start:
  %_8 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %_7 = zext nneg i32 %_8 to i64
  %_10 = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %_9 = zext nneg i32 %_10 to i64
  %_6 = mul nuw nsw i64 %_7, %_9
  %_12 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %_11 = zext nneg i32 %_12 to i64
  %i = add nuw nsw i64 %_6, %_11
  %_13 = icmp ult i64 %i, %n
  br i1 %_13, label %bb4, label %bb5

bb5:                                              ; preds = %bb4, %start
  ret void

bb4:                                              ; preds = %start
  %_16 = ptrtoint ptr %x to i64
  %_17 = shl nuw nsw i64 %i, 2
  %_15 = add i64 %_17, %_16
  %px = inttoptr i64 %_15 to ptr
  %_20 = ptrtoint ptr %y to i64
  %_19 = add i64 %_17, %_20
  %py = inttoptr i64 %_19 to ptr
  %_22 = load float, ptr %px, align 4, !noundef !2
  %_21 = fmul float %a, %_22
  %_23 = load float, ptr %py, align 4, !noundef !2
  %0 = fadd float %_21, %_23
  store float %0, ptr %py, align 4
  br label %bb5
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() unnamed_addr #1

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(readwrite, inaccessiblemem: none, target_mem0: none, target_mem1: none) "target-cpu"="sm_70" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0}
!llvm.ident = !{!1}

!0 = !{i32 8, !"PIC Level", i32 2}
!1 = !{!"rustc version 1.95.0 (59807616e 2026-04-14)"}
!2 = !{}
