/* runtime.c - what the NVVM intrinsics and known inline PTX do on the CPU.
 *
 * The JIT'd code calls these by the names retarget.c gives them
 * (`__cuplug_nvvm.<intrinsic>`).  Special registers read the worker's view
 * of its block; barriers and warp collectives yield to the block's
 * scheduler (grid.c), which runs the other threads until all arrive.
 * Shared memory is a thread-local variable in the IR, which the JIT
 * emulates through __emutls_get_address: defined here, it hands each
 * worker (running one block at a time) its own copy. */
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin/cpu/runtime.h"

#include "plugin/cpu/device_lib.h"
#include "plugin/cpu/interrupt.h"
#include "plugin/cpu/math.h"
#include "plugin/cpu/worker.h"

/* Outside a launch (a device function called directly) the code still
 * has a block: one thread, this one. */
static __thread cuplug__cpu_worker lone = {.ntid = {1, 1, 1}, .nctaid = {1, 1, 1}, .nthreads = 1};

static __thread cuplug__fiber lone_fiber;

static cuplug__cpu_worker *me(void) { return cuplug__cpu_current ? cuplug__cpu_current : &lone; }

/* The running thread's fiber (outside a launch, a stand-in). */
static cuplug__fiber *self(void) {
  cuplug__cpu_worker *w = me();
  return w->fibers ? &w->fibers[w->linear] : &lone_fiber;
}

/* ---- special registers ---- */

#define SREG(name, expr)                         \
  static uint32_t name(void) {                   \
    cuplug__cpu_worker *w = me();                    \
    return (expr);                               \
  }
SREG(tid_x, w->tid[0])
SREG(tid_y, w->tid[1])
SREG(tid_z, w->tid[2])
SREG(ntid_x, w->ntid[0])
SREG(ntid_y, w->ntid[1])
SREG(ntid_z, w->ntid[2])
SREG(ctaid_x, w->ctaid[0])
SREG(ctaid_y, w->ctaid[1])
SREG(ctaid_z, w->ctaid[2])
SREG(nctaid_x, w->nctaid[0])
SREG(nctaid_y, w->nctaid[1])
SREG(nctaid_z, w->nctaid[2])
SREG(laneid, w->linear % 32)
static uint32_t warpsize(void) { return 32; }

/* ---- shared memory ---- */

struct emutls_object { /* as LLVM emits __emutls_v.<name> */
  size_t size, align;
  void *unused;
  const void *templ;
};

static void *emutls_get_address(struct emutls_object *o) {
  cuplug__cpu_worker *w = me();
  if (!o->size) return w->dynamic_shared; /* extern __shared__ T x[] */
  for (size_t i = 0; i < w->num_shared; i++)
    if (w->shared[i].object == o) return w->shared[i].storage;
  if (w->num_shared == w->cap_shared) {
    size_t cap = w->cap_shared ? 2 * w->cap_shared : 8;
    void *v = realloc(w->shared, cap * sizeof *w->shared);
    if (!v) abort(); /* nowhere to report it from inside the kernel */
    w->shared = v;
    w->cap_shared = cap;
  }
  size_t align = o->align > 16 ? o->align : 16;
  void *p = aligned_alloc(align, (o->size + align - 1) / align * align);
  if (!p) abort();
  if (o->templ) memcpy(p, o->templ, o->size);
  else memset(p, 0, o->size);
  w->shared[w->num_shared].object = o;
  w->shared[w->num_shared].storage = p;
  w->num_shared++;
  return p;
}

/* ---- barriers and fences ---- */

/* LLVM 22 reads numba's barrier0 as barrier.cta.sync.aligned.all(0), and
 * its .popc, .and and .or as barrier.cta.red.*.aligned.all(0, p).  Every
 * thread of the block arrives (".all"), so the barrier's number changes
 * nothing here.  An i1 argument is defined in its lowest bit only. */
static void barrier_all(uint32_t id) {
  (void)id;
  cuplug__fiber *f = self();
  f->pred = 0;
  f->mode = 0;
  cuplug__cpu_yield(f, CUPLUG__BARRIER);
}
static uint32_t barrier_reduce(uint8_t pred, uint32_t mode) {
  cuplug__fiber *f = self();
  f->pred = pred & 1;
  f->mode = mode;
  cuplug__cpu_yield(f, CUPLUG__BARRIER);
  return f->result;
}
static uint32_t barrier_popc(uint32_t id, uint8_t p) {
  (void)id;
  return barrier_reduce(p, 0);
}
static bool barrier_and(uint32_t id, uint8_t p) {
  (void)id;
  return barrier_reduce(p, 1) != 0;
}
static bool barrier_or(uint32_t id, uint8_t p) {
  (void)id;
  return barrier_reduce(p, 2) != 0;
}

static void fence(void) { atomic_thread_fence(memory_order_seq_cst); }

/* ---- warp collectives ---- */

static cuplug__fiber *warp_wait(cuplug__warp_op op, uint32_t mask, uint32_t mode) {
  cuplug__fiber *f = self();
  f->op = op;
  f->mask = mask;
  f->mode = mode;
  return f;
}

static void bar_warp_sync(uint32_t mask) {
  cuplug__cpu_yield(warp_wait(CUPLUG__SYNCWARP, mask, 0), CUPLUG__WARP);
}

/* {i32, i1} comes back in eax and dl: two integer eightbytes. */
typedef struct pair {
  uint64_t value, pred;
} pair;

static pair shfl_sync_i32(uint32_t mask, uint32_t mode, uint32_t value, uint32_t b,
                          uint32_t c) {
  cuplug__fiber *f = warp_wait(CUPLUG__SHFL, mask, mode);
  f->value = value;
  f->b = b;
  f->c = c;
  cuplug__cpu_yield(f, CUPLUG__WARP);
  return (pair){f->result, f->result_pred};
}

/* LLVM's own shfl.sync.<mode>.{i32,f32}[p] (clang's __shfl_sync), a mode
 * each: the value alone, or with the predicate (the "p" forms).  {float,
 * i1} comes back in xmm0 and al: a struct whose first eightbyte is two
 * floats and whose second an integer. */
typedef struct fpair {
  float value, unused;
  uint64_t pred;
} fpair;
static uint32_t bits_of_f(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  return u;
}
static float f_of_bits(uint32_t u) {
  float x;
  memcpy(&x, &u, 4);
  return x;
}
#define SHFL(mode_name, mode)                                                                \
  static uint32_t shfl_##mode_name##_i32(uint32_t mask, uint32_t a, uint32_t b, uint32_t c) { \
    return (uint32_t)shfl_sync_i32(mask, mode, a, b, c).value;                                \
  }                                                                                          \
  static pair shfl_##mode_name##_i32p(uint32_t mask, uint32_t a, uint32_t b, uint32_t c) {    \
    return shfl_sync_i32(mask, mode, a, b, c);                                                \
  }                                                                                          \
  static float shfl_##mode_name##_f32(uint32_t mask, float a, uint32_t b, uint32_t c) {       \
    return f_of_bits((uint32_t)shfl_sync_i32(mask, mode, bits_of_f(a), b, c).value);          \
  }                                                                                          \
  static fpair shfl_##mode_name##_f32p(uint32_t mask, float a, uint32_t b, uint32_t c) {      \
    pair p = shfl_sync_i32(mask, mode, bits_of_f(a), b, c);                                   \
    return (fpair){f_of_bits((uint32_t)p.value), 0, p.pred};                                  \
  }
SHFL(idx, 0)
SHFL(up, 1)
SHFL(down, 2)
SHFL(bfly, 3)

static pair vote_sync(uint32_t mask, uint32_t mode, uint8_t pred) {
  cuplug__fiber *f = warp_wait(CUPLUG__VOTE, mask, mode);
  f->pred = pred & 1;
  cuplug__cpu_yield(f, CUPLUG__WARP);
  return (pair){f->result, f->result_pred};
}
/* LLVM's vote.{all,any,uni}.sync (an i1) and vote.ballot.sync (the mask) */
static bool vote_all(uint32_t mask, uint8_t p) { return vote_sync(mask, 0, p).pred != 0; }
static bool vote_any(uint32_t mask, uint8_t p) { return vote_sync(mask, 1, p).pred != 0; }
static bool vote_uni(uint32_t mask, uint8_t p) { return vote_sync(mask, 2, p).pred != 0; }
static uint32_t vote_ballot(uint32_t mask, uint8_t p) { return (uint32_t)vote_sync(mask, 3, p).value; }

/* Lanes of the warp that have not returned.  Without fibers (code that
 * never waits on another thread) the warp's lanes run one after another,
 * each as though all were there: every lane the block has. */
static uint32_t activemask(void) {
  cuplug__cpu_worker *w = me();
  uint32_t first = w->linear / 32 * 32, mask = 0;
  for (uint32_t l = 0; l < 32 && first + l < w->nthreads; l++)
    if (!w->fibers || w->fibers[first + l].state != CUPLUG__DONE) mask |= 1u << l;
  return mask;
}

static uint32_t lanemask_lt(void) { return (1u << (me()->linear % 32)) - 1; }

/* ---- time ---- */

static uint64_t now_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
/* clock64 counts cycles on the GPU; here nanoseconds of this thread's
 * clock, which like it only grows. */
static uint64_t clock64(void) { return now_ns(CLOCK_MONOTONIC); }
static uint32_t clock32(void) { return (uint32_t)clock64(); }
static uint64_t globaltimer(void) { return now_ns(CLOCK_REALTIME); }
static void nanosleep_u32(uint32_t ns) {
  struct timespec ts = {0, ns > 1000000u ? 1000000 : (long)ns}; /* PTX caps it at 1 ms */
  nanosleep(&ts, NULL);
}
static uint32_t dynamic_smem_size(void) { return me()->dynamic_size; }

/* ---- the table ---- */

#define R "__cuplug_nvvm."
#define FN(f) ((void *)(uintptr_t)(f))
static const struct {
  const char *intrinsic;
  void *address;
  bool collective;
} table[] = {
    {"read.ptx.sreg.tid.x", FN(tid_x), false},
    {"read.ptx.sreg.tid.y", FN(tid_y), false},
    {"read.ptx.sreg.tid.z", FN(tid_z), false},
    {"read.ptx.sreg.ntid.x", FN(ntid_x), false},
    {"read.ptx.sreg.ntid.y", FN(ntid_y), false},
    {"read.ptx.sreg.ntid.z", FN(ntid_z), false},
    {"read.ptx.sreg.ctaid.x", FN(ctaid_x), false},
    {"read.ptx.sreg.ctaid.y", FN(ctaid_y), false},
    {"read.ptx.sreg.ctaid.z", FN(ctaid_z), false},
    {"read.ptx.sreg.nctaid.x", FN(nctaid_x), false},
    {"read.ptx.sreg.nctaid.y", FN(nctaid_y), false},
    {"read.ptx.sreg.nctaid.z", FN(nctaid_z), false},
    {"read.ptx.sreg.laneid", FN(laneid), false},
    {"read.ptx.sreg.warpsize", FN(warpsize), false},
    {"read.ptx.sreg.lanemask.lt", FN(lanemask_lt), false},
    {"read.ptx.sreg.clock", FN(clock32), false},
    {"read.ptx.sreg.clock64", FN(clock64), false},
    {"read.ptx.sreg.globaltimer", FN(globaltimer), false},
    {"read.ptx.sreg.dynamic_smem_size", FN(dynamic_smem_size), false},
    {"barrier.cta.sync.aligned.all", FN(barrier_all), true},
    {"barrier.cta.sync.all", FN(barrier_all), true},
    {"barrier.cta.red.popc.aligned.all", FN(barrier_popc), true},
    {"barrier.cta.red.popc.all", FN(barrier_popc), true},
    {"barrier.cta.red.and.aligned.all", FN(barrier_and), true},
    {"barrier.cta.red.and.all", FN(barrier_and), true},
    {"barrier.cta.red.or.aligned.all", FN(barrier_or), true},
    {"barrier.cta.red.or.all", FN(barrier_or), true},
    {"bar.warp.sync", FN(bar_warp_sync), true},
    /* libNVVM's shfl and vote, a mode argument each (numba's) */
    {"shfl.sync.i32", FN(shfl_sync_i32), true},
    {"vote.sync", FN(vote_sync), true},
    /* LLVM's, a mode each in the name (clang's) */
    {"shfl.sync.idx.i32", FN(shfl_idx_i32), true},
    {"shfl.sync.idx.i32p", FN(shfl_idx_i32p), true},
    {"shfl.sync.idx.f32", FN(shfl_idx_f32), true},
    {"shfl.sync.idx.f32p", FN(shfl_idx_f32p), true},
    {"shfl.sync.up.i32", FN(shfl_up_i32), true},
    {"shfl.sync.up.i32p", FN(shfl_up_i32p), true},
    {"shfl.sync.up.f32", FN(shfl_up_f32), true},
    {"shfl.sync.up.f32p", FN(shfl_up_f32p), true},
    {"shfl.sync.down.i32", FN(shfl_down_i32), true},
    {"shfl.sync.down.i32p", FN(shfl_down_i32p), true},
    {"shfl.sync.down.f32", FN(shfl_down_f32), true},
    {"shfl.sync.down.f32p", FN(shfl_down_f32p), true},
    {"shfl.sync.bfly.i32", FN(shfl_bfly_i32), true},
    {"shfl.sync.bfly.i32p", FN(shfl_bfly_i32p), true},
    {"shfl.sync.bfly.f32", FN(shfl_bfly_f32), true},
    {"shfl.sync.bfly.f32p", FN(shfl_bfly_f32p), true},
    {"vote.all.sync", FN(vote_all), true},
    {"vote.any.sync", FN(vote_any), true},
    {"vote.uni.sync", FN(vote_uni), true},
    {"vote.ballot.sync", FN(vote_ballot), true},
    {"membar.cta", FN(fence), false},
    {"membar.gl", FN(fence), false},
    {"membar.sys", FN(fence), false},
    {"activemask", FN(activemask), false}, /* LLVM's intrinsic, and the inline PTX's */
    /* inline PTX (asm_table) */
    {"lanemask_lt", FN(lanemask_lt), false},
    {"clock64", FN(clock64), false},
    {"globaltimer", FN(globaltimer), false},
    {"nanosleep", FN(nanosleep_u32), false},
    {"dynamic_smem_size", FN(dynamic_smem_size), false},
    /* the polls (polls.cpp, interrupt.c) */
    {"stop_point", FN(cuplug__cpu_stop_point), false},
    {"stop_count", (void *)&cuplug__cpu_stop_count, false},
};
#define COUNT (sizeof table / sizeof table[0])

/* The inline PTX cuplug's built-ins write, and the function for each. */
static const struct {
  const char *text, *fn;
} asm_table[] = {
    {"activemask.b32 $0;", R "activemask"},
    {"mov.u32 $0, %lanemask_lt;", R "lanemask_lt"},
    {"mov.u64 $0, %clock64;", R "clock64"},
    {"mov.u64 $0, %globaltimer;", R "globaltimer"},
    {"nanosleep.u32 $0;", R "nanosleep"},
    {"mov.u32 $0, %dynamic_smem_size;", R "dynamic_smem_size"},
    /* cuda.fp16's (math.c) */
    {"add.f16 $0, $1, $2;", R "asm.add.f16"},
    {"sub.f16 $0, $1, $2;", R "asm.sub.f16"},
    {"mul.f16 $0, $1, $2;", R "asm.mul.f16"},
    {"neg.f16 $0, $1;", R "asm.neg.f16"},
    {"abs.f16 $0, $1;", R "asm.abs.f16"},
    {"fma.rn.f16 $0, $1, $2, $3;", R "asm.fma.rn.f16"},
    {"cvt.f32.f16 $0, $1;", R "asm.cvt.f32.f16"},
    {"cvt.rn.f16.f32 $0, $1;", R "asm.cvt.rn.f16.f32"},
    {"{ .reg .pred %cmp; setp.eq.f16 %cmp, $1, $2; selp.u16 $0, 1, 0, %cmp; }",
     R "asm.setp.eq.f16"},
    {"{ .reg .pred %cmp; setp.neu.f16 %cmp, $1, $2; selp.u16 $0, 1, 0, %cmp; }",
     R "asm.setp.neu.f16"},
    {"{ .reg .pred %cmp; setp.gt.f16 %cmp, $1, $2; selp.u16 $0, 1, 0, %cmp; }",
     R "asm.setp.gt.f16"},
    {"{ .reg .pred %cmp; setp.ge.f16 %cmp, $1, $2; selp.u16 $0, 1, 0, %cmp; }",
     R "asm.setp.ge.f16"},
    {"{ .reg .pred %cmp; setp.lt.f16 %cmp, $1, $2; selp.u16 $0, 1, 0, %cmp; }",
     R "asm.setp.lt.f16"},
    {"{ .reg .pred %cmp; setp.le.f16 %cmp, $1, $2; selp.u16 $0, 1, 0, %cmp; }",
     R "asm.setp.le.f16"},
    {"{ .reg .pred %pick; setp.gt.f16 %pick, $1, $2; selp.b16 $0, $1, $2, %pick; }",
     R "asm.max.f16"},
    {"{ .reg .pred %pick; setp.lt.f16 %pick, $1, $2; selp.b16 $0, $1, $2, %pick; }",
     R "asm.min.f16"},
    /* libdevice's (math.c), as LLVM prints them */
    {"bfind.shiftamt.u32 $0, $1;", R "asm.bfind.shiftamt.u32"},
    {"rcp.approx.ftz.f32 $0,$1;", R "asm.rcp.approx.ftz.f32"},
    {"rsqrt.approx.ftz.f64 $0, $1;", R "asm.rsqrt.approx.ftz.f64"},
    {"sub.rm.f32 $0, $1, $2;", R "asm.sub.rm.f32"},
    {"sub.rm.f64 $0, $1, $2;", R "asm.sub.rm.f64"},
    {"sub.rm.ftz.f32 $0, $1, $2;", R "asm.sub.rm.ftz.f32"},
    {"sub.rn.f32 $0, $1, $2;", R "asm.sub.rn.f32"},
    {"sub.rn.f64 $0, $1, $2;", R "asm.sub.rn.f64"},
    {"sub.rn.ftz.f32 $0, $1, $2;", R "asm.sub.rn.ftz.f32"},
    {"sub.rp.f32 $0, $1, $2;", R "asm.sub.rp.f32"},
    {"sub.rp.f64 $0, $1, $2;", R "asm.sub.rp.f64"},
    {"sub.rp.ftz.f32 $0, $1, $2;", R "asm.sub.rp.ftz.f32"},
    {"sub.rz.f32 $0, $1, $2;", R "asm.sub.rz.f32"},
    {"sub.rz.f64 $0, $1, $2;", R "asm.sub.rz.f64"},
    {"sub.rz.ftz.f32 $0, $1, $2;", R "asm.sub.rz.ftz.f32"},
    {"{ .reg .pred __$$temp3;\\0A  setp.equ.f64 __$$temp3, $1, $2;\\0A  selp.f64 $0, $3, $4, "
     "__$$temp3;}", R "asm.select.equ.f64"},
    {"{\\0A\\09.reg .u32 r0, r1, r2, r3, a0, a1, a2, a3, b0, b1, b2, b3;\\0A\\09mov.b64         "
     "{a0,a1}, $2;\\0A\\09mov.b64         {a2,a3}, $3;\\0A\\09mov.b64         {b0,b1}, "
     "$4;\\0A\\09mov.b64         {b2,b3}, $5;\\0A\\09add.cc.u32      r0, a0, b0; "
     "\\0A\\09addc.cc.u32     r1, a1, b1; \\0A\\09addc.cc.u32     r2, a2, b2; "
     "\\0A\\09addc.u32        r3, a3, b3; \\0A\\09mov.b64         $0, {r0,r1};\\0A\\09mov.b64 "
     "        $1, {r2,r3};\\0A\\09}", R "asm.add.u128"},
    {"{\\0A\\09.reg .u32 r0, r1, r2, r3, a0, a1, a2, a3, b0, b1, b2, b3;\\0A\\09mov.b64         "
     "{a0,a1}, $2;\\0A\\09mov.b64         {a2,a3}, $3;\\0A\\09mov.b64         {b0,b1}, "
     "$4;\\0A\\09mov.b64         {b2,b3}, $5;\\0A\\09sub.cc.u32      r0, a0, b0; "
     "\\0A\\09subc.cc.u32     r1, a1, b1; \\0A\\09subc.cc.u32     r2, a2, b2; "
     "\\0A\\09subc.u32        r3, a3, b3; \\0A\\09mov.b64         $0, {r0,r1};\\0A\\09mov.b64 "
     "        $1, {r2,r3};\\0A\\09}", R "asm.sub.u128"},
    {"{\\0A\\09.reg .u32 r0, r1, r2, r3, alo, ahi, blo, bhi, clo, chi;\\0A\\09mov.b64         "
     "{alo,ahi}, $2;    \\0A\\09mov.b64         {blo,bhi}, $3;    \\0A\\09mov.b64         "
     "{clo,chi}, $4;    \\0A\\09mad.lo.cc.u32   r0, alo, blo, clo;\\0A\\09madc.hi.cc.u32  r1, "
     "alo, blo, chi;\\0A\\09madc.hi.u32     r2, alo, bhi,   0;\\0A\\09mad.lo.cc.u32   r1, alo, "
     "bhi,  r1;\\0A\\09madc.hi.cc.u32  r2, ahi, blo,  r2;\\0A\\09madc.hi.u32     r3, ahi, bhi,  "
     " 0;\\0A\\09mad.lo.cc.u32   r1, ahi, blo,  r1;\\0A\\09madc.lo.cc.u32  r2, ahi, bhi,  "
     "r2;\\0A\\09addc.u32        r3,  r3,   0;     \\0A\\09mov.b64         $0, {r0,r1};      "
     "\\0A\\09mov.b64         $1, {r2,r3};      \\0A\\09}", R "asm.mad.wide.u64"},
    {"{\\0A\\09.reg .u32 r0, r1, r2, r3, alo, ahi, blo, bhi;\\0A\\09mov.b64         {alo,ahi}, "
     "$2;   \\0A\\09mov.b64         {blo,bhi}, $3;   \\0A\\09mul.lo.u32      r0, alo, blo;    "
     "\\0A\\09mul.hi.u32      r1, alo, blo;    \\0A\\09mad.lo.cc.u32   r1, alo, bhi, "
     "r1;\\0A\\09madc.hi.u32     r2, alo, bhi,  0;\\0A\\09mad.lo.cc.u32   r1, ahi, blo, "
     "r1;\\0A\\09madc.hi.cc.u32  r2, ahi, blo, r2;\\0A\\09madc.hi.u32     r3, ahi, bhi,  "
     "0;\\0A\\09mad.lo.cc.u32   r2, ahi, bhi, r2;\\0A\\09addc.u32        r3, r3,  0;      "
     "\\0A\\09mov.b64         $0, {r0,r1};     \\0A\\09mov.b64         $1, {r2,r3};     "
     "\\0A\\09}", R "asm.mul.wide.u64"},
    {"{\\0A\\09mad.lo.cc.u32   $0, $2, $3, $4;\\0A\\09madc.hi.u32     $1, $2, $3,  0;\\0A\\09}",
     R "asm.mad.wide.u32"},
};

bool cuplug__cpu_runtime_has(const char *intrinsic) {
  for (size_t i = 0; i < COUNT; i++)
    if (strcmp(table[i].intrinsic, intrinsic) == 0) return true;
  size_t n;
  const cuplug__cpu_symbol *math = cuplug__cpu_math_symbols(&n);
  for (size_t i = 0; i < n; i++)
    if (strcmp(math[i].name, intrinsic) == 0) return true;
  return false;
}

bool cuplug__cpu_runtime_collective(const char *intrinsic) {
  for (size_t i = 0; i < COUNT; i++)
    if (strcmp(table[i].intrinsic, intrinsic) == 0) return table[i].collective;
  return false;
}

const char *cuplug__cpu_runtime_asm(const char *text) {
  for (size_t i = 0; i < sizeof asm_table / sizeof asm_table[0]; i++)
    if (strcmp(asm_table[i].text, text) == 0) return asm_table[i].fn;
  return NULL;
}

/* The JIT's names for the runtime's functions, math.c's and
 * device_lib.c's. */
#define MAX_SYMBOLS 512
static cuplug__cpu_symbol symbols[MAX_SYMBOLS + 1]; /* and __emutls_get_address */
static char names[MAX_SYMBOLS][64];
static size_t num_symbols, num_device;
static pthread_once_t symbols_once = PTHREAD_ONCE_INIT;
static void add_symbol(const char *intrinsic, void *address) {
  if (num_symbols == MAX_SYMBOLS) abort(); /* a table grew past the array: a build error */
  snprintf(names[num_symbols], sizeof names[0], R "%s", intrinsic);
  symbols[num_symbols].name = names[num_symbols];
  symbols[num_symbols].address = address;
  num_symbols++;
}
static void fill_symbols(void) {
  for (size_t i = 0; i < COUNT; i++) add_symbol(table[i].intrinsic, table[i].address);
  size_t n;
  const cuplug__cpu_symbol *math = cuplug__cpu_math_symbols(&n);
  for (size_t i = 0; i < n; i++) add_symbol(math[i].name, math[i].address);
  for (const cuplug__cpu_symbol *d; (d = cuplug__cpu_device_symbol(num_device)); num_device++)
    symbols[num_symbols++] = *d;
  symbols[num_symbols].name = "__emutls_get_address";
  symbols[num_symbols].address = FN(emutls_get_address);
  num_symbols++;
}

const cuplug__cpu_symbol *cuplug__cpu_runtime_symbols(size_t *n) {
  pthread_once(&symbols_once, fill_symbols);
  *n = num_symbols;
  return symbols;
}
