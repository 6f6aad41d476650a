// kernels.mlir - a kernel in MLIR's gpu dialect, as a compiler built on
// MLIR writes one.  mlir-opt-22 lowers it to the LLVM and NVVM dialects
// (convert-gpu-to-nvvm), mlir-translate-22 makes LLVM IR of the gpu.module,
// and the host (host.c) hands that IR to cuplug as it is (CMakeLists.txt).
//
// softplus_sums(x, y, sums, n), over n threads in blocks of at most 128
// (a multiple of 32):
//   y[i] = log1p(exp(x[i]))             math.exp, math.log1p: libdevice's
//                                       __nv_expf and __nv_log1pf
//   sums[16] += i, for every i < n      a warp's total by gpu.shuffle xor,
//                                       one atomic add a warp
//   sums[b] += i, for every i < n       the block's i in workgroup memory,
//     with i % 16 == b                  a gpu.barrier, then 16 threads each
//                                       add one residue class: one atomic
//                                       add a bin a block
// A memref argument arrives as its descriptor, five parameters: the
// allocated and aligned pointers, the offset, the size and the stride.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @softplus_sums(%x: memref<?xf32>, %y: memref<?xf32>, %sums: memref<17xi32>,
                            %n: index)
        workgroup(%tile: memref<128xi32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %zero = arith.constant 0 : i32
      %width = arith.constant 32 : i32
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %xv = memref.load %x[%i] : memref<?xf32>
        %e = math.exp %xv : f32
        %s = math.log1p %e : f32
        memref.store %s, %y[%i] : memref<?xf32>
      }
      // every thread of the block takes part below, those past n with 0
      %i32 = arith.index_cast %i : index to i32
      %v = arith.select %in, %i32, %zero : i32
      memref.store %v, %tile[%tid] : memref<128xi32, #gpu.address_space<workgroup>>
      %o16 = arith.constant 16 : i32
      %o8 = arith.constant 8 : i32
      %o4 = arith.constant 4 : i32
      %o2 = arith.constant 2 : i32
      %o1 = arith.constant 1 : i32
      %p16, %ok16 = gpu.shuffle xor %v, %o16, %width : i32
      %s16 = arith.addi %v, %p16 : i32
      %p8, %ok8 = gpu.shuffle xor %s16, %o8, %width : i32
      %s8 = arith.addi %s16, %p8 : i32
      %p4, %ok4 = gpu.shuffle xor %s8, %o4, %width : i32
      %s4 = arith.addi %s8, %p4 : i32
      %p2, %ok2 = gpu.shuffle xor %s4, %o2, %width : i32
      %s2 = arith.addi %s4, %p2 : i32
      %p1, %ok1 = gpu.shuffle xor %s2, %o1, %width : i32
      %warp = arith.addi %s2, %p1 : i32
      %lane = arith.remui %tid, %c32 : index
      %first = arith.cmpi eq, %lane, %c0 : index
      scf.if %first {
        %old = memref.atomic_rmw addi %warp, %sums[%c16] : (i32, memref<17xi32>) -> i32
      }
      gpu.barrier
      %bin_thread = arith.cmpi ult, %tid, %c16 : index
      scf.if %bin_thread {
        %bin = scf.for %k = %tid to %bdim step %c16 iter_args(%acc = %zero) -> i32 {
          %t = memref.load %tile[%k] : memref<128xi32, #gpu.address_space<workgroup>>
          %a = arith.addi %acc, %t : i32
          scf.yield %a : i32
        }
        %old = memref.atomic_rmw addi %bin, %sums[%tid] : (i32, memref<17xi32>) -> i32
      }
      gpu.return
    }
  }
}
