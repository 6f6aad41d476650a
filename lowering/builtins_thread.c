/* builtins_thread.c - threads, warps, barriers and bits.
 *
 * numba-cuda's cuda.threadIdx.x ... cuda.gridDim.z, laneid, warpsize,
 * grid(), gridsize(), syncthreads and its _count/_and/_or forms, syncwarp,
 * the threadfences, the warp shuffles and votes, activemask, lanemask_lt,
 * popc, clz, ffs, brev, fma, cbrt and nanosleep, with numba-cuda's types
 * and its intrinsics; and two cuplug adds, clock64 and globaltimer (marked
 * as extensions in registry_list). */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/types.h"
#include "lowering/builtins.h"

#define SIGS(...) ((const char *const[]){__VA_ARGS__, NULL})

static bool is_int(const cuplug_type *t) {
  return cuplug__type_is_integer(t) || t->kind == CUPLUG_TYPE_INT_LITERAL;
}

/* ---- special registers ---- */

static cuplug_error *lower_sreg(const cuplug__builtin *b, const cuplug_type *sig,
                                const char *symbol, cuplug__buf *out) {
  char callee[64];
  snprintf(callee, sizeof callee, "llvm.nvvm.read.ptx.sreg.%s", b->name);
  cuplug__bi_forward(out, sig, symbol, callee, NULL);
  return NULL;
}

/* A value of PTX read with inline assembly (registers NVVM has no
 * intrinsic for); `sideeffect` keeps it in place. */
static cuplug_error *lower_asm(const cuplug__builtin *b, const cuplug_type *sig,
                               const char *symbol, cuplug__buf *out) {
  cuplug__bi_begin(out, sig, symbol);
  if (sig->restype->kind == CUPLUG_TYPE_VOID) {
    cuplug__buf_printf(out, "  call void asm sideeffect \"%s\", \"r\"(i32 %%p0)\n  ret void\n}\n",
                       b->name);
  } else {
    const char *ty = cuplug__bi_ir(sig->restype);
    cuplug__buf_printf(out, "  %%v = call %s asm sideeffect \"%s\", \"=%s\"()\n  ret %s %%v\n}\n",
                       ty, b->name, strcmp(ty, "i64") == 0 ? "l" : "r", ty);
  }
  return NULL;
}

/* ---- grid(n), gridsize(n) ---- */

static cuplug_error *type_grid(const cuplug__builtin *b, const cuplug_type *const *args,
                               size_t n, const cuplug_type **sig) {
  (void)b;
  *sig = NULL;
  if (n != 1 || args[0]->kind != CUPLUG_TYPE_INT_LITERAL || args[0]->value < 1 ||
      args[0]->value > 3)
    return NULL;
  const cuplug_type *i64 = cuplug__type_scalar(CUPLUG_TYPE_INT64), *restype = i64;
  if (args[0]->value > 1) {
    const cuplug_type *elems[3] = {i64, i64, i64};
    CUPLUG__TRY(cuplug__type_tuple(elems, (size_t)args[0]->value, &restype));
  }
  return cuplug__bi_sig(sig, restype, 1, cuplug__type_scalar(CUPLUG_TYPE_INT32));
}

/* grid: ntid * ctaid + tid per dimension; gridsize: ntid * nctaid. */
static cuplug_error *lower_grid(const cuplug__builtin *b, const cuplug_type *sig,
                                const char *symbol, cuplug__buf *out) {
  bool size = b->op == 1;
  size_t n = sig->restype->kind == CUPLUG_TYPE_TUPLE ? sig->restype->nargs : 1;
  static const char dims[] = "xyz";
  cuplug__bi_begin(out, sig, symbol);
  for (size_t d = 0; d < n; d++) {
    char c = dims[d];
    cuplug__buf_printf(out,
                       "  %%ntid.%c = call i32 @llvm.nvvm.read.ptx.sreg.ntid.%c()\n"
                       "  %%other.%c = call i32 @llvm.nvvm.read.ptx.sreg.%s.%c()\n"
                       "  %%ntid64.%c = sext i32 %%ntid.%c to i64\n"
                       "  %%other64.%c = sext i32 %%other.%c to i64\n"
                       "  %%prod.%c = mul i64 %%ntid64.%c, %%other64.%c\n",
                       c, c, c, size ? "nctaid" : "ctaid", c, c, c, c, c, c, c, c);
    if (size) {
      cuplug__buf_printf(out, "  %%r.%c = add i64 %%prod.%c, 0\n", c, c);
    } else {
      cuplug__buf_printf(out,
                         "  %%tid.%c = call i32 @llvm.nvvm.read.ptx.sreg.tid.%c()\n"
                         "  %%tid64.%c = sext i32 %%tid.%c to i64\n"
                         "  %%r.%c = add i64 %%prod.%c, %%tid64.%c\n",
                         c, c, c, c, c, c, c);
    }
  }
  if (n == 1) {
    cuplug__buf_puts(out, "  ret i64 %r.x\n}\n");
  } else {
    cuplug__buf_printf(out, "  %%t0 = insertvalue [%zu x i64] undef, i64 %%r.x, 0\n", n);
    for (size_t d = 1; d < n; d++)
      cuplug__buf_printf(out, "  %%t%zu = insertvalue [%zu x i64] %%t%zu, i64 %%r.%c, %zu\n", d,
                         n, d - 1, dims[d], d);
    cuplug__buf_printf(out, "  ret [%zu x i64] %%t%zu\n}\n", n, n - 1);
  }
  for (size_t d = 0; d < n; d++) {
    cuplug__buf_printf(out, "declare i32 @llvm.nvvm.read.ptx.sreg.ntid.%c()\n", dims[d]);
    cuplug__buf_printf(out, "declare i32 @llvm.nvvm.read.ptx.sreg.%s.%c()\n",
                       size ? "nctaid" : "ctaid", dims[d]);
    if (!size) cuplug__buf_printf(out, "declare i32 @llvm.nvvm.read.ptx.sreg.tid.%c()\n", dims[d]);
  }
  return NULL;
}

/* ---- barriers and fences ---- */

static cuplug_error *lower_forward(const cuplug__builtin *b, const cuplug_type *sig,
                                   const char *symbol, cuplug__buf *out) {
  cuplug__bi_forward(out, sig, symbol, b->name, NULL);
  return NULL;
}

/* syncthreads_count/_and/_or(predicate): numba-cuda takes any integer. */
static cuplug_error *type_sync_predicate(const cuplug__builtin *b,
                                         const cuplug_type *const *args, size_t n,
                                         const cuplug_type **sig) {
  (void)b;
  *sig = NULL;
  if (n != 1 || !is_int(args[0])) return NULL;
  const cuplug_type *i32 = cuplug__type_scalar(CUPLUG_TYPE_INT32);
  return cuplug__bi_sig(sig, i32, 1, i32);
}

static cuplug_error *lower_syncwarp(const cuplug__builtin *b, const cuplug_type *sig,
                                    const char *symbol, cuplug__buf *out) {
  (void)b;
  cuplug__bi_begin(out, sig, symbol);
  cuplug__buf_printf(out,
                     "  call void @llvm.nvvm.bar.warp.sync(i32 %s)\n  ret void\n}\n"
                     "declare void @llvm.nvvm.bar.warp.sync(i32)\n",
                     sig->nargs ? "%p0" : "-1");
  return NULL;
}

/* ---- shuffles and votes ---- */

/* shfl_*sync(mask, value, lane): value int32, int64, float32 or float64. */
static cuplug_error *type_shfl(const cuplug__builtin *b, const cuplug_type *const *args,
                               size_t n, const cuplug_type **sig) {
  (void)b;
  *sig = NULL;
  if (n != 3 || !is_int(args[0]) || !is_int(args[2])) return NULL;
  cuplug_type_kind k = args[1]->kind;
  if (k != CUPLUG_TYPE_INT32 && k != CUPLUG_TYPE_INT64 && k != CUPLUG_TYPE_FLOAT32 &&
      k != CUPLUG_TYPE_FLOAT64)
    return NULL;
  return cuplug__bi_sig(sig, args[1], 3, args[0], args[1], args[2]);
}

/* One shfl.sync of the 32-bit %<in>, into %<res>. */
static void shfl32(cuplug__buf *out, const cuplug__builtin *b, const char *res, const char *in) {
  cuplug__buf_printf(out,
                     "  %%%s.pair = call {i32, i1} @llvm.nvvm.shfl.sync.i32(i32 %%mask, i32 %d, "
                     "i32 %%%s, i32 %%lane, i32 %s)\n"
                     "  %%%s = extractvalue {i32, i1} %%%s.pair, 0\n",
                     res, b->op, in, b->name, res, res);
}

static cuplug_error *lower_shfl(const cuplug__builtin *b, const cuplug_type *sig,
                                const char *symbol, cuplug__buf *out) {
  const cuplug_type *vt = sig->args[1];
  unsigned bits = cuplug__bi_bits(vt);
  const char *ty = cuplug__bi_ir(vt);
  char src[32];
  cuplug__bi_begin(out, sig, symbol);
  cuplug__bi_int(out, "mask", "p0", sig->args[0], 32);
  snprintf(src, sizeof src, "p%zu", cuplug__bi_param(sig, 2));
  cuplug__bi_int(out, "lane", src, sig->args[2], 32);
  cuplug__buf_printf(out, "  %%bits = bitcast %s %%p1 to i%u\n", ty, bits);
  if (bits == 32) {
    shfl32(out, b, "got", "bits");
  } else {
    /* two halves, as numba-cuda does */
    cuplug__buf_puts(out,
                     "  %lo = trunc i64 %bits to i32\n"
                     "  %hi.wide = lshr i64 %bits, 32\n"
                     "  %hi = trunc i64 %hi.wide to i32\n");
    shfl32(out, b, "lo.got", "lo");
    shfl32(out, b, "hi.got", "hi");
    cuplug__buf_puts(out,
                     "  %lo.ext = zext i32 %lo.got to i64\n"
                     "  %hi.ext = zext i32 %hi.got to i64\n"
                     "  %hi.up = shl i64 %hi.ext, 32\n"
                     "  %got = or i64 %hi.up, %lo.ext\n");
  }
  cuplug__buf_printf(out,
                     "  %%v = bitcast i%u %%got to %s\n  ret %s %%v\n}\n"
                     "declare {i32, i1} @llvm.nvvm.shfl.sync.i32(i32, i32, i32, i32, i32)\n",
                     bits, ty, ty);
  return NULL;
}

/* all_sync, any_sync, eq_sync (bool) and ballot_sync (int32)(mask,
 * predicate): an integer mask, an integer or bool predicate (numba-cuda
 * 0.30 refuses a float). */
static cuplug_error *type_vote(const cuplug__builtin *b, const cuplug_type *const *args,
                               size_t n, const cuplug_type **sig) {
  *sig = NULL;
  if (n != 2 || !is_int(args[0])) return NULL;
  if (!is_int(args[1]) && args[1]->kind != CUPLUG_TYPE_BOOL) return NULL;
  const cuplug_type *restype = cuplug__type_scalar(b->op == 3 ? CUPLUG_TYPE_INT32 : CUPLUG_TYPE_BOOL);
  return cuplug__bi_sig(sig, restype, 2, args[0], args[1]);
}

static cuplug_error *lower_vote(const cuplug__builtin *b, const cuplug_type *sig,
                                const char *symbol, cuplug__buf *out) {
  const cuplug_type *pt = sig->args[1];
  cuplug__bi_begin(out, sig, symbol);
  cuplug__bi_int(out, "mask", "p0", sig->args[0], 32);
  size_t p = cuplug__bi_param(sig, 1);
  cuplug__buf_printf(out, "  %%pred = icmp ne i%u %%p%zu, 0\n", cuplug__bi_bits(pt), p);
  cuplug__buf_printf(out,
                     "  %%pair = call {i32, i1} @llvm.nvvm.vote.sync(i32 %%mask, i32 %d, i1 "
                     "%%pred)\n",
                     b->op);
  if (b->op == 3)
    cuplug__buf_puts(out, "  %v = extractvalue {i32, i1} %pair, 0\n  ret i32 %v\n}\n");
  else
    cuplug__buf_puts(out,
                     "  %bit = extractvalue {i32, i1} %pair, 1\n"
                     "  %v = zext i1 %bit to i8\n  ret i8 %v\n}\n");
  cuplug__buf_puts(out, "declare {i32, i1} @llvm.nvvm.vote.sync(i32, i32, i1)\n");
  return NULL;
}

/* ---- bits and arithmetic ---- */

/* popc and clz: an LLVM intrinsic of the argument's width. */
static cuplug_error *lower_bitcount(const cuplug__builtin *b, const cuplug_type *sig,
                                    const char *symbol, cuplug__buf *out) {
  char callee[64];
  snprintf(callee, sizeof callee, "llvm.%s.i%u", b->name, cuplug__bi_bits(sig->args[0]));
  cuplug__bi_forward(out, sig, symbol, callee, b->op ? "i1 false" : NULL);
  return NULL;
}

/* A libdevice or LLVM function whose name ends in a suffix per width:
 * name holds "stem32|stem64". */
static cuplug_error *lower_by_width(const cuplug__builtin *b, const cuplug_type *sig,
                                    const char *symbol, cuplug__buf *out) {
  const char *bar = strchr(b->name, '|');
  bool wide = cuplug__bi_bits(sig->args[0]) == 64;
  char callee[64];
  if (wide)
    snprintf(callee, sizeof callee, "%s", bar + 1);
  else
    snprintf(callee, sizeof callee, "%.*s", (int)(bar - b->name), b->name);
  cuplug__bi_forward(out, sig, symbol, callee, NULL);
  return NULL;
}

/* ffs: uint32 from __nv_ffs(i32) or __nv_ffsll(i64), which give int; an 8
 * or 16-bit argument is widened first (which moves no set bit below it). */
static cuplug_error *lower_ffs(const cuplug__builtin *b, const cuplug_type *sig,
                               const char *symbol, cuplug__buf *out) {
  (void)b;
  bool wide = cuplug__bi_bits(sig->args[0]) == 64;
  cuplug__bi_begin(out, sig, symbol);
  const char *arg = "%p0";
  if (cuplug__bi_bits(sig->args[0]) < 32) {
    cuplug__bi_int(out, "x", "p0", sig->args[0], 32);
    arg = "%x";
  }
  cuplug__buf_printf(out, "  %%v = call i32 @__nv_ffs%s(i%d %s)\n  ret i32 %%v\n}\n",
                     wide ? "ll" : "", wide ? 64 : 32, arg);
  cuplug__buf_printf(out, "declare i32 @__nv_ffs%s(i%d)\n", wide ? "ll" : "", wide ? 64 : 32);
  return NULL;
}

#define SREG(key, reg) {key, SIGS("int32()"), NULL, NULL, lower_sreg, reg, 0, false}
#define VOID0(key, callee) {key, SIGS("void()"), NULL, NULL, lower_forward, callee, 0, false}

const cuplug__builtin cuplug__builtins_thread[] = {
    SREG("cuda.threadIdx.x", "tid.x"),
    SREG("cuda.threadIdx.y", "tid.y"),
    SREG("cuda.threadIdx.z", "tid.z"),
    SREG("cuda.blockIdx.x", "ctaid.x"),
    SREG("cuda.blockIdx.y", "ctaid.y"),
    SREG("cuda.blockIdx.z", "ctaid.z"),
    SREG("cuda.blockDim.x", "ntid.x"),
    SREG("cuda.blockDim.y", "ntid.y"),
    SREG("cuda.blockDim.z", "ntid.z"),
    SREG("cuda.gridDim.x", "nctaid.x"),
    SREG("cuda.gridDim.y", "nctaid.y"),
    SREG("cuda.gridDim.z", "nctaid.z"),
    SREG("cuda.laneid", "laneid"),
    SREG("cuda.warpsize", "warpsize"),
    {"cuda.grid", NULL, "int64 or UniTuple(int64 x n)(Literal[int](n)), n in 1..3", type_grid,
     lower_grid, NULL, 0, false},
    {"cuda.gridsize", NULL, "int64 or UniTuple(int64 x n)(Literal[int](n)), n in 1..3",
     type_grid, lower_grid, NULL, 1, false},
    VOID0("cuda.syncthreads", "llvm.nvvm.barrier0"),
    {"cuda.syncthreads_count", NULL, "int32(integer predicate)", type_sync_predicate,
     lower_forward, "llvm.nvvm.barrier0.popc", 0, false},
    {"cuda.syncthreads_and", NULL, "int32(integer predicate)", type_sync_predicate,
     lower_forward, "llvm.nvvm.barrier0.and", 0, false},
    {"cuda.syncthreads_or", NULL, "int32(integer predicate)", type_sync_predicate,
     lower_forward, "llvm.nvvm.barrier0.or", 0, false},
    {"cuda.syncwarp", SIGS("void()", "void(int32)"), NULL, NULL, lower_syncwarp, NULL, 0,
     false},
    VOID0("cuda.threadfence", "llvm.nvvm.membar.gl"),
    VOID0("cuda.threadfence_block", "llvm.nvvm.membar.cta"),
    VOID0("cuda.threadfence_system", "llvm.nvvm.membar.sys"),
    /* shuffles: name is the clamp operand, op the mode */
    {"cuda.shfl_sync", NULL, "T(integer mask, T, integer lane) for T in int32, int64, float32, float64",
     type_shfl, lower_shfl, "31", 0, false},
    {"cuda.shfl_up_sync", NULL, "T(integer mask, T, integer delta) for T in int32, int64, float32, float64",
     type_shfl, lower_shfl, "0", 1, false},
    {"cuda.shfl_down_sync", NULL, "T(integer mask, T, integer delta) for T in int32, int64, float32, float64",
     type_shfl, lower_shfl, "31", 2, false},
    {"cuda.shfl_xor_sync", NULL, "T(integer mask, T, integer lane_mask) for T in int32, int64, float32, float64",
     type_shfl, lower_shfl, "31", 3, false},
    /* votes: op is the mode */
    {"cuda.all_sync", NULL, "bool(integer mask, predicate)", type_vote, lower_vote, NULL, 0, false},
    {"cuda.any_sync", NULL, "bool(integer mask, predicate)", type_vote, lower_vote, NULL, 1, false},
    {"cuda.eq_sync", NULL, "bool(integer mask, predicate)", type_vote, lower_vote, NULL, 2, false},
    {"cuda.ballot_sync", NULL, "int32(integer mask, predicate)", type_vote, lower_vote, NULL, 3,
     false},
    {"cuda.activemask", SIGS("uint32()"), NULL, NULL, lower_asm, "activemask.b32 $0;", 0, false},
    {"cuda.lanemask_lt", SIGS("uint32()"), NULL, NULL, lower_asm, "mov.u32 $0, %lanemask_lt;",
     0, false},
    {"cuda.popc",
     SIGS("int8(int8)", "int16(int16)", "int32(int32)", "int64(int64)", "uint8(uint8)",
          "uint16(uint16)", "uint32(uint32)", "uint64(uint64)"),
     NULL, NULL, lower_bitcount, "ctpop", 0, false},
    {"cuda.clz",
     SIGS("int8(int8)", "int16(int16)", "int32(int32)", "int64(int64)", "uint8(uint8)",
          "uint16(uint16)", "uint32(uint32)", "uint64(uint64)"),
     NULL, NULL, lower_bitcount, "ctlz", 1, false},
    {"cuda.ffs", SIGS("uint32(int8)", "uint32(int16)", "uint32(int32)", "uint32(int64)",
                      "uint32(uint8)", "uint32(uint16)", "uint32(uint32)", "uint32(uint64)"), NULL,
     NULL, lower_ffs, NULL, 0, false},
    {"cuda.brev", SIGS("uint32(uint32)", "uint64(uint64)"), NULL, NULL, lower_by_width,
     "__nv_brev|__nv_brevll", 0, false},
    {"cuda.fma", SIGS("float32(float32, float32, float32)", "float64(float64, float64, float64)"),
     NULL, NULL, lower_by_width, "llvm.fma.f32|llvm.fma.f64", 0, false},
    {"cuda.cbrt", SIGS("float32(float32)", "float64(float64)"), NULL, NULL, lower_by_width,
     "__nv_cbrtf|__nv_cbrt", 0, false},
    {"cuda.nanosleep", SIGS("void(uint32)"), NULL, NULL, lower_asm, "nanosleep.u32 $0;", 0,
     false},
    /* not in numba-cuda: the SM's cycle counter and the global nanosecond timer */
    {"cuda.clock64", SIGS("uint64()"), NULL, NULL, lower_asm, "mov.u64 $0, %clock64;", 0, false},
    {"cuda.globaltimer", SIGS("uint64()"), NULL, NULL, lower_asm, "mov.u64 $0, %globaltimer;", 0,
     false},
};
const size_t cuplug__num_builtins_thread =
    sizeof cuplug__builtins_thread / sizeof cuplug__builtins_thread[0];
