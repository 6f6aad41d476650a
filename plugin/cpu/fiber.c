/* fiber.c - threads of a block as fibers: a switch of stacks, by hand.
 *
 * ucontext's swapcontext saves and restores the signal mask, a system call
 * each switch; a barrier switches every thread of the block.  This saves
 * the registers the System V ABI makes callee-saved (rbx, rbp, r12-r15) on
 * the old stack and jumps to the new one: 5.4 ns a round trip
 * (development machine).  It leaves by an indirect jump, not `ret`: a
 * `ret` onto another stack defeats the return-address predictor every time
 * (20 ns a round trip).  MXCSR and the x87 control word are callee-saved
 * too, but every fiber of a block runs with the worker's (math.c restores
 * the rounding mode before it returns), so they are left alone. */
#include "plugin/cpu/fiber.h"

#if !defined(__x86_64__)
#error "plugin/cpu/fiber.c: the fiber switch is written for x86-64 only"
#endif

__asm__(".text\n"
        ".globl cuplug__fiber_switch\n"
        ".hidden cuplug__fiber_switch\n"
        ".type cuplug__fiber_switch,@function\n"
        "cuplug__fiber_switch:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  popq %rax\n"
        "  jmpq *%rax\n"
        ".size cuplug__fiber_switch, .-cuplug__fiber_switch\n"
        /* a fresh fiber's first switch lands here: r12 is the argument,
         * r13 the function; the stack is 16-byte aligned before the call
         * (the frame cuplug__fiber_init writes is 7 words and the top) */
        ".type cuplug__fiber_start,@function\n"
        "cuplug__fiber_start:\n"
        "  movq %r12, %rdi\n"
        "  callq *%r13\n"
        "  ud2\n"
        ".size cuplug__fiber_start, .-cuplug__fiber_start\n");

void cuplug__fiber_start(void);

void *cuplug__fiber_init(void *stack, size_t size, void (*fn)(void *), void *arg) {
  uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
  uint64_t *sp = (uint64_t *)top;
  *--sp = (uint64_t)(uintptr_t)cuplug__fiber_start; /* ret */
  *--sp = 0;                                        /* rbp */
  *--sp = 0;                                        /* rbx */
  *--sp = (uint64_t)(uintptr_t)arg;                 /* r12 */
  *--sp = (uint64_t)(uintptr_t)fn;                  /* r13 */
  *--sp = 0;                                        /* r14 */
  *--sp = 0;                                        /* r15 */
  return sp;
}
