/* compile.c - compile and compile_all: a job run through its target's
 * stages (job.h), then ended the same way for every target.
 *
 *   the libNVVM target (nvvm_target.c), for PTX, LTO-IR and cubins:
 *     check_options → read_signature → read_modules → look_up (a result
 *     found in the cache ends here) → copy_modules → wake_helper →
 *     parse_modules → start_validation → choose_cc → read_ir_version →
 *     find_entry → lower → run_nvvm → link_code → keep_ir → keep
 *   LLVM's NVPTX backend (llvm_target.c), for modern IR, bitcode, or any
 *   IR with backend llvm: PTX and cubins:
 *     check_options → read_signature → read_modules → copy_modules →
 *     read_modern → modern_entry → look_up → choose_cc → wake_helper →
 *     gather_modern → choose_link → lower_modern → run_nvptx → link_code →
 *     keep_modern_ir → keep
 *   libNVVM for modern IR (nvvm_target.c), cc 10.0 and up: ... →
 *     copy_modules → read_modern → modern_entry → look_up → choose_cc →
 *     require_cc100 → read_ir_version → wake_helper → gather_modern →
 *     lower_modern → write_nvvm20 → run_nvvm → link_code → keep_ir → keep
 *   the CPU target (cpu_target.c), for CUPLUG_OUTPUT_HOST:
 *     check_options → read_signature → read_modules → copy_modules →
 *     parse_modules → start_validation → find_entry → lower → keep_cpu_ir
 *   and for modern IR: ... → copy_modules → read_modern → modern_entry →
 *     gather_modern → lower_modern → keep_cpu_modern
 *
 * A new target is a new list: the shared stages are job.c's and
 * modern_stages.c's. */
#include "plugin/pipeline/compile.h"

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "lowering/dialect.h"
#include "plugin/pipeline/cpu_target.h"
#include "plugin/pipeline/job.h"
#include "plugin/pipeline/llvm_target.h"
#include "plugin/pipeline/nvvm_target.h"
#include "plugin/pipeline/timings.h"
#include "plugin/session/artifact.h"

/* Modern text or bitcode among the modules?  (A NULL module is the
 * options stage's to report.) */
static bool modern_input(const cuplug_compile_args *a) {
  for (size_t i = 0; a->modules && i < a->num_modules; i++) {
    const cuplug_module *m = a->modules[i];
    if (m && m->text && cuplug__ir_dialect(m->text, m->size) != CUPLUG__DIALECT_TYPED)
      return true;
  }
  return false;
}

/* The target a compile runs through: the output, the IR's dialect and the
 * backend asked for decide (cuplug_backend).  *through_llvm: the target
 * reads the IR through LLVM (modern IR, or the NVPTX backend), whose entry
 * stage can read a kernel's signature from it. */
static cuplug_error *target_of(const cuplug_compile_args *a, bool all, const cuplug__target **t,
                               bool *through_llvm) {
  static const char *const names[] = {"default", "libnvvm", "llvm"};
  if ((unsigned)a->backend > CUPLUG_BACKEND_LLVM)
    return cuplug__error(CUPLUG_ERR_OPTION_BACKEND,
                         "Unsupported backend: %d (libnvvm or llvm)", (int)a->backend);
  bool modern = modern_input(a);
  *through_llvm = modern;
  if (a->output == CUPLUG_OUTPUT_HOST) {
    if (a->backend != CUPLUG_BACKEND_DEFAULT)
      return cuplug__error(CUPLUG_ERR_OPTION_BACKEND,
                           "backend %s makes GPU code: output host compiles for this CPU with "
                           "LLVM's own backend; leave backend unset",
                           names[a->backend]);
    *t = modern ? &cuplug__cpu_modern_target : &cuplug__cpu_target;
    return NULL;
  }
  bool ltoir = a->output == CUPLUG_OUTPUT_LTOIR || (a->output == CUPLUG_OUTPUT_DEFAULT && all);
  /* by default: libNVVM for numba-cuda's dialect; the NVPTX backend for
   * modern IR, unless LTO-IR is asked for, which only libNVVM makes (and,
   * from modern IR, only for cc 10.0 and up: nvvm_target.c says so) */
  cuplug_backend b = a->backend;
  if (b == CUPLUG_BACKEND_DEFAULT)
    b = modern && !ltoir ? CUPLUG_BACKEND_LLVM : CUPLUG_BACKEND_LIBNVVM;
  if (b == CUPLUG_BACKEND_LLVM && ltoir)
    return cuplug__error(CUPLUG_ERR_OPTION_BACKEND,
                         "LLVM's NVPTX backend makes PTX and cubins, not LTO-IR: ask for output "
                         "ptx or cubin, or the libnvvm backend for LTO-IR%s",
                         modern ? " (which reads this modern IR for cc 10.0 and up)" : "");
  if (b == CUPLUG_BACKEND_LLVM)
    *t = &cuplug__llvm_target;
  else
    *t = modern ? &cuplug__nvvm_modern_target : &cuplug__nvvm_target;
  *through_llvm = modern || b == CUPLUG_BACKEND_LLVM; /* whatever the dialect */
  return NULL;
}

_Static_assert(CUPLUG__MAX_STAGES + 2 * 2 + 1 <= CUPLUG__MAX_TIMINGS,
               "a target's stages, two of them split around a toolkit call, and the wait for "
               "the validator");

/* Runs the target's stages until one fails or finds the result in the
 * cache, each timed. */
static cuplug_error *run_stages(const cuplug__target *t, cuplug__job *j, cuplug__timings *times) {
  cuplug_error *e = NULL;
  cuplug__timings_start(times);
  for (size_t i = 0; i < t->num_stages && !e && !j->from_cache; i++) {
    j->tool_ran = NULL;
    e = t->stages[i].run(j);
    cuplug__timings_end(times, t->stages[i].name, j->tool_ran);
  }
  return e;
}

static cuplug_error *run(cuplug_compile_args *a, bool all) {
  a->artifact = NULL;
  const cuplug__target *t = NULL;
  bool through_llvm = false;
  CUPLUG__TRY(target_of(a, all, &t, &through_llvm));
  cuplug__job j = {.a = a, .all = all, .signature_from_ir = through_llvm};
  cuplug__timings times;
  cuplug_error *e = run_stages(t, &j, &times);
  /* The validator's verdict comes first: it names the line and column.
   * Waiting for it is a stage of its own where it ran on a thread of its
   * own; validation on this thread (a safe session's) is done by now. */
  bool validated = j.validating;
  times.mark = cuplug__now_ns();
  cuplug_error *v = cuplug__job_finish_validation(&j);
  if (validated) cuplug__timings_end(&times, "finish_validation", NULL);
  if (!e && !v && j.art) cuplug__timings_keep(&times, j.art);
  if (v) {
    cuplug__error_destroy(e);
    e = v;
  }
  if (t->release) t->release(&j);
  cuplug__job_release(&j);
  if (e) {
    cuplug__error_destroy(j.cache_warning);
    cuplug__artifact_destroy(j.art);
    return e;
  }
  /* the cache's news for the session, where no stage handed it on */
  if (j.cache_warning) cuplug__error_destroy(cuplug__artifact_warn(j.art, j.cache_warning));
  a->artifact = j.art;
  return NULL;
}

cuplug_error *cuplug__compile(cuplug_compile_args *a) { return run(a, false); }
cuplug_error *cuplug__compile_all(cuplug_compile_args *a) { return run(a, true); }
