/* fiber.c - threads of a block as fibers: a switch of stacks, by hand.
 *
 * ucontext's swapcontext saves and restores the signal mask, a system call
 * each switch; a barrier switches every thread of the block.  This saves
 * what the System V ABI makes callee-saved (rbx, rbp, r12-r15, MXCSR and
 * the x87 control word) on the old stack and jumps to the new one. */
#include "plugin/host/internal.h"

#if !defined(__x86_64__)
#error "plugin/host/fiber.c: the fiber switch is written for x86-64 only"
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
        "  subq $8, %rsp\n"
        "  stmxcsr (%rsp)\n"
        "  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n"
        "  fldcw 4(%rsp)\n"
        "  addq $8, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size cuplug__fiber_switch, .-cuplug__fiber_switch\n"
        /* a fresh fiber's first return lands here: r12 is the argument,
         * r13 the function; the stack is 16-byte aligned before the call */
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
  uint32_t csr;
  __asm__ volatile("stmxcsr %0" : "=m"(csr));
  *--sp = (uint64_t)csr | ((uint64_t)0x37f << 32); /* MXCSR, x87 control word */
  return sp;
}
