/* internal.h - the parts of libcuplug-host.so, and what they share. */
#ifndef CUPLUG__PLUGIN_CPU_INTERNAL_H
#define CUPLUG__PLUGIN_CPU_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Core.h>
#include <llvm-c/Orc.h>
#include <llvm-c/TargetMachine.h>

#include "cuplug/cuplug.h"
#include "plugin/cpu/cpu.h"

/* Each kernel gets a launcher, `void <prefix><kernel>(void **params)`,
 * which loads the parameters as cuLaunchKernel's array gives them and
 * calls the kernel: the grid calls it once per thread. */
#define CUPLUG__CPU_LAUNCHER "__cuplug_launch."
typedef void (*cuplug__cpu_launcher)(void **params);
/* ... and, where its code allows (rows.c), a launcher of a row of threads:
 * x = 0 .. ntid.x - 1 at the current y and z. */
#define CUPLUG__CPU_ROW "__cuplug_row."

typedef struct cuplug__cpu_kernel {
  char *name;
  cuplug__cpu_launcher launcher;
  cuplug__cpu_launcher row; /* NULL where threads must run one by one */
  /* the exception store: errcode, tid x y z, ctaid x y z (NULL without) */
  int32_t *store[7];
} cuplug__cpu_kernel;

struct cuplug__cpu_lib {
  struct cuplug__cpu_jit *jit;
  LLVMOrcJITDylibRef jd;
  cuplug__cpu_kernel *kernels;
  size_t num_kernels;
  /* the code synchronises threads (barriers, warp collectives): its
   * threads run as fibers; without, as plain calls */
  bool uses_collectives;
};

/* A symbol of the runtime the JIT'd code calls. */
typedef struct cuplug__cpu_symbol {
  const char *name;
  void *address;
} cuplug__cpu_symbol;

/* runtime.c */
const cuplug__cpu_symbol *cuplug__cpu_runtime_symbols(size_t *n);
/* Is `name` (after "llvm.nvvm.") an intrinsic the runtime implements? */
bool cuplug__cpu_runtime_has(const char *intrinsic);
/* The runtime function for a known inline-assembly string, or NULL. */
const char *cuplug__cpu_runtime_asm(const char *asm_text);
/* Does the runtime function synchronise threads (a barrier, a warp op)? */
bool cuplug__cpu_runtime_collective(const char *intrinsic);

/* math.c: the NVVM intrinsics libdevice calls, and its inline PTX, by
 * intrinsic name (after "llvm.nvvm."; "asm.<what>" for the assembly) */
const cuplug__cpu_symbol *cuplug__cpu_math_symbols(size_t *n);

/* libdevice.c: links libdevice into the module, its __nvvm_reflect
 * answered, the functions the module does not call dropped */
int cuplug__cpu_link_libdevice(LLVMModuleRef m, const void *bitcode, size_t size, bool ftz,
                                char **msg);

/* retarget.c */
typedef struct cuplug__cpu_retarget_args {
  LLVMModuleRef module;
  const char *triple, *layout;
  const cuplug__text *sources; /* the caller's texts, for line numbers */
  size_t num_sources;
  const char *const *kernels;
  size_t num_kernels;
  const char *const *externs; /* functions the host provides */
  size_t num_externs;
  bool uses_collectives; /* out */
} cuplug__cpu_retarget_args;
int cuplug__cpu_retarget(cuplug__cpu_retarget_args *a, char **msg);

/* rows.c: makes the row launcher of a kernel, after a first optimisation;
 * false when it cannot be exact (then delete it). */
bool cuplug__cpu_make_row(LLVMModuleRef m, const char *kernel);

/* tm.cpp: what LLVM-C cannot set on a target machine */
#ifdef __cplusplus
extern "C" {
#endif
void cuplug__cpu_tm_options(LLVMTargetMachineRef tm);
#ifdef __cplusplus
}
#endif

/* fail.c: sets *msg (malloc'd) and returns code */
int cuplug__cpu_fail(char **msg, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* jit.c */
int cuplug__cpu_jit_create(cuplug__cpu_jit **out, char **msg);
void cuplug__cpu_jit_destroy(cuplug__cpu_jit *j);
int cuplug__cpu_lib_create(cuplug__cpu_jit *j, const cuplug__cpu_lib_args *a,
                            cuplug__cpu_lib **out, char **msg);
void cuplug__cpu_lib_destroy(cuplug__cpu_lib *l);
void *cuplug__cpu_lookup(cuplug__cpu_lib *l, const char *name);

/* grid.c */
int cuplug__cpu_launch(cuplug__cpu_lib *l, const cuplug__cpu_grid *g, char **msg);

/* ffi.c */
int cuplug__cpu_ffi_call(const cuplug__cpu_ffi *c, char **msg);

#endif

/* ---- the CPU grid (grid.c), as the runtime (runtime.c) sees it ---- */

typedef enum cuplug__fiber_state {
  CUPLUG__READY,   /* to run */
  CUPLUG__BARRIER, /* waits at syncthreads */
  CUPLUG__WARP,    /* waits at a warp collective */
  CUPLUG__DONE     /* returned from the kernel */
} cuplug__fiber_state;

/* A warp collective a thread waits at: shfl, vote or syncwarp. */
typedef enum cuplug__warp_op { CUPLUG__SYNCWARP, CUPLUG__SHFL, CUPLUG__VOTE } cuplug__warp_op;

typedef struct cuplug__fiber {
  void *sp;    /* saved stack pointer while switched out */
  void *stack; /* mmap'd */
  cuplug__fiber_state state;
  /* a barrier's or a collective's operands, and its result */
  cuplug__warp_op op;
  uint32_t mode, mask, b, c;
  uint32_t value;
  int32_t pred;
  uint32_t result, result_pred;
  uint32_t tid[3]; /* its threadIdx, worked out once: no division per switch */
  void *tsan; /* its ThreadSanitizer fiber, in a build with TSan */
} cuplug__fiber;

/* One host thread's view of the block it runs now. */
typedef struct cuplug__cpu_worker {
  uint32_t ctaid[3], ntid[3], nctaid[3];
  uint32_t tid[3];
  uint32_t linear; /* the thread's index in its block */
  uint32_t nthreads;
  /* shared memory: each variable's copy on this worker (runtime.c) */
  struct { const void *object; void *storage; } *shared;
  size_t num_shared, cap_shared;
  void *dynamic_shared;
  uint32_t dynamic_size;
  /* fibers, when the code synchronises */
  cuplug__fiber *fibers;
  size_t num_fibers;
  void *sched_sp;
  void *sched_tsan; /* the scheduler's ThreadSanitizer fiber */
} cuplug__cpu_worker;

/* The worker of this host thread (NULL outside a launch).  Initial-exec:
 * the default model for a dlopen'ed object calls __tls_get_addr at every
 * read, and every special register reads it. */
extern __thread cuplug__cpu_worker *cuplug__cpu_current __attribute__((tls_model("initial-exec")));

/* Switches threads: from the running fiber to the scheduler. */
void cuplug__cpu_yield(cuplug__fiber *f, cuplug__fiber_state state);

/* ThreadSanitizer follows a stack switch only when told of it
 * (threads.grid runs the grid under it). */
#if defined(__SANITIZE_THREAD__)
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
#define CUPLUG__TSAN_CURRENT() __tsan_get_current_fiber()
#define CUPLUG__TSAN_CREATE() __tsan_create_fiber(0)
#define CUPLUG__TSAN_DESTROY(f) __tsan_destroy_fiber(f)
#define CUPLUG__TSAN_SWITCH(f) __tsan_switch_to_fiber((f), 0)
#else
#define CUPLUG__TSAN_CURRENT() NULL
#define CUPLUG__TSAN_CREATE() NULL
#define CUPLUG__TSAN_DESTROY(f) ((void)(f))
#define CUPLUG__TSAN_SWITCH(f) ((void)(f))
#endif

/* fiber.c: saves the callee-saved registers on the current stack, stores
 * the stack pointer in *save, and resumes the stack at `to`. */
void cuplug__fiber_switch(void **save, void *to);
/* A fresh stack frame that, switched to, calls fn(arg) (never returning). */
void *cuplug__fiber_init(void *stack, size_t size, void (*fn)(void *), void *arg);
