/* fiber.h - a block's threads as fibers: their state, and a switch of
 * stacks by hand (fiber.c). */
#ifndef CUPLUG__PLUGIN_CPU_FIBER_H
#define CUPLUG__PLUGIN_CPU_FIBER_H

#include <stddef.h>
#include <stdint.h>

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

/* Saves the callee-saved registers on the current stack, stores
 * the stack pointer in *save, and resumes the stack at `to`. */
void cuplug__fiber_switch(void **save, void *to);
/* A fresh stack frame that, switched to, calls fn(arg) (never returning). */
void *cuplug__fiber_init(void *stack, size_t size, void (*fn)(void *), void *arg);

#endif
