/* test_interrupt.c - a launch or a call on the CPU that its host stops:
 * kernels that spin for ever, stopped from another thread through the
 * interrupt flag, return CUPLUG_ERR_INTERRUPTED (threads run as plain
 * calls, and as fibers with others waiting at a barrier), and the session
 * and the library launch again after. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "support.h"

static cuplug_session *s;
static volatile int32_t stop; /* the host's flag */

/* Spins until *p is not zero. */
static const char spin_ir[] =
    "define void @spin(i32* %p) {\n"
    "entry:\n  br label %loop\n"
    "loop:\n  %v = load volatile i32, i32* %p\n  %z = icmp eq i32 %v, 0\n"
    "  br i1 %z, label %loop, label %done\n"
    "done:\n  ret void\n}\n";

/* Thread 0 spins until *p is not zero; the others wait for it at
 * syncthreads (fibers). */
static const char spin_barrier_ir[] =
    "define void @spin_barrier(i32* %p) {\n"
    "entry:\n  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n  %first = icmp eq i32 %t, 0\n"
    "  br i1 %first, label %loop, label %wait\n"
    "loop:\n  %v = load volatile i32, i32* %p\n  %z = icmp eq i32 %v, 0\n"
    "  br i1 %z, label %loop, label %wait\n"
    "wait:\n  call void @llvm.nvvm.barrier0()\n  ret void\n}\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "declare void @llvm.nvvm.barrier0()\n";

/* Returns *p once it is not zero. */
static const char spin_call_ir[] =
    "define i32 @spin_call(i32* %p) {\n"
    "entry:\n  br label %loop\n"
    "loop:\n  %v = load volatile i32, i32* %p\n  %z = icmp eq i32 %v, 0\n"
    "  br i1 %z, label %loop, label %done\n"
    "done:\n  ret i32 %v\n}\n";

static cuplug_library *library(const char *ir, const char *entry, const char *sig,
                               cuplug_function_kind kind) {
  cuplug_module m = {sizeof m, "spin.ll", ir, strlen(ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = entry, .signature = sig, .kind = kind,
                           .entry_abi = CUPLUG_ABI_C, .output = CUPLUG_OUTPUT_HOST};
  T_ASSERT_OK(t_api()->compile(&a));
  cuplug_load_args l = {.struct_size = sizeof l, .session = s, .artifact = a.artifact};
  T_ASSERT_OK(t_api()->load(&l));
  t_api()->artifact_destroy(a.artifact);
  return l.library;
}

/* Sets the flag after 100 ms, as a host's SIGINT handler would. */
static void *press_ctrl_c(void *arg) {
  (void)arg;
  nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  return NULL;
}

static cuplug_error *launch(cuplug_library *l, int32_t *memory, uint32_t grid, uint32_t block) {
  cuplug_kernel_args k = {.struct_size = sizeof k, .library = l};
  T_ASSERT_OK(t_api()->kernel_get(&k));
  uint64_t p = (uintptr_t)memory;
  cuplug_value v = {CUPLUG_TYPE_POINTER, &p};
  cuplug_launch_args a = {.struct_size = CUPLUG_LAUNCH_ARGS_STRUCT_SIZE, .kernel = k.kernel,
                          .grid = {grid, 1, 1}, .block = {block, 1, 1}, .args = &v,
                          .num_args = 1, .interrupt = &stop};
  return t_api()->launch(&a);
}

/* Stops a launch that spins, then launches it again to its end. */
static void stop_then_finish(const char *ir, const char *name) {
  cuplug_library *l = library(ir, name, "void(CPointer(int32))", CUPLUG_KERNEL);
  int32_t memory = 0;
  stop = 0;
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, press_ctrl_c, NULL), 0);
  char want[256];
  snprintf(want, sizeof want, "kernel %s: interrupted (the host set the launch's interrupt flag)",
           name);
  T_ASSERT_ERROR(launch(l, &memory, 8, 64), CUPLUG_ERR_INTERRUPTED, want);
  pthread_join(t, NULL);
  stop = 0;
  memory = 1; /* the spin ends at once */
  T_ASSERT_OK(launch(l, &memory, 8, 64));
  t_api()->library_unload(l);
}

START_TEST(plain_threads_stop) { stop_then_finish(spin_ir, "spin"); }
END_TEST

START_TEST(fibers_at_a_barrier_stop) { stop_then_finish(spin_barrier_ir, "spin_barrier"); }
END_TEST

/* A flag set before the launch: no block runs. */
START_TEST(flag_set_before_the_launch) {
  static const char mark_ir[] =
      "define void @mark(i32* %p) {\nentry:\n  store i32 1, i32* %p\n  ret void\n}\n";
  cuplug_library *l = library(mark_ir, "mark", "void(CPointer(int32))", CUPLUG_KERNEL);
  int32_t memory = 0;
  stop = 1;
  T_ASSERT_ERROR(launch(l, &memory, 4, 32), CUPLUG_ERR_INTERRUPTED,
                 "kernel mark: interrupted (the host set the launch's interrupt flag)");
  ck_assert_int_eq(memory, 0);
  stop = 0;
  T_ASSERT_OK(launch(l, &memory, 4, 32));
  ck_assert_int_eq(memory, 1);
  t_api()->library_unload(l);
}
END_TEST

static cuplug_error *call(cuplug_library *l, int32_t *memory, int32_t *result) {
  uint64_t p = (uintptr_t)memory;
  cuplug_value v = {CUPLUG_TYPE_POINTER, &p};
  cuplug_host_call_args c = {.struct_size = CUPLUG_HOST_CALL_ARGS_STRUCT_SIZE, .library = l,
                             .args = &v, .num_args = 1, .result = result,
                             .result_size = sizeof *result, .interrupt = &stop};
  return t_api()->host_call(&c);
}

START_TEST(host_call_stops) {
  cuplug_library *l = library(spin_call_ir, "spin_call", "int32(CPointer(int32))",
                              CUPLUG_DEVICE_FUNCTION);
  int32_t memory = 0, result = -1;
  stop = 0;
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, press_ctrl_c, NULL), 0);
  T_ASSERT_ERROR(call(l, &memory, &result), CUPLUG_ERR_INTERRUPTED,
                 "call spin_call: interrupted (the host set the call's interrupt flag)");
  pthread_join(t, NULL);
  ck_assert_int_eq(result, -1);
  stop = 0;
  memory = 5;
  T_ASSERT_OK(call(l, &memory, &result));
  ck_assert_int_eq(result, 5);
  t_api()->library_unload(l);
}
END_TEST

static void setup(void) { T_ASSERT_OK(t_api()->session_create(NULL, &s)); }
static void teardown(void) { t_api()->session_destroy(s); }

static Suite *suite_interrupt(void) {
  Suite *suite = suite_create("interrupt");
  TCase *tc = t_tcase(suite, "launches", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, plain_threads_stop);
  tcase_add_test(tc, fibers_at_a_barrier_stop);
  tcase_add_test(tc, flag_set_before_the_launch);
  tc = t_tcase(suite, "calls", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, host_call_stops);
  return suite;
}

int main(int argc, char **argv) {
  static const t_suite_def suites[] = {{"interrupt", suite_interrupt}};
  return t_main(argc, argv, suites, 1);
}
