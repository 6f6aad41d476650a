/* compile.c - compile and compile_all: a job run through its target's
 * stages (job.h), then ended the same way for every target.
 *
 *   the libNVVM target (nvvm_target.c), for PTX, LTO-IR and cubins:
 *     check_options → read_signature → read_modules → look_up (a result
 *     found in the cache ends here) → copy_modules → wake_helper →
 *     parse_modules → start_validation → choose_cc → find_entry → lower →
 *     run_nvvm → link_code → keep_ir → keep
 *   the CPU target (cpu_target.c), for CUPLUG_OUTPUT_HOST:
 *     check_options → read_signature → read_modules → copy_modules →
 *     parse_modules → start_validation → find_entry → lower → keep_cpu_ir
 *
 * A new target is a new list: the shared stages are job.c's. */
#include "plugin/pipeline/compile.h"

#include "base/error.h"
#include "plugin/pipeline/cpu_target.h"
#include "plugin/pipeline/job.h"
#include "plugin/pipeline/nvvm_target.h"

static const cuplug__target *target_of(const cuplug_compile_args *a) {
  return a->output == CUPLUG_OUTPUT_HOST ? &cuplug__cpu_target : &cuplug__nvvm_target;
}

static cuplug_error *run(cuplug_compile_args *a, bool all) {
  const cuplug__target *t = target_of(a);
  cuplug__job j = {.a = a, .all = all};
  a->artifact = NULL;
  cuplug_error *e = NULL;
  for (size_t i = 0; i < t->num_stages && !e && !j.from_cache; i++) e = t->stages[i](&j);
  /* The validator's verdict comes first: it names the line and column. */
  cuplug_error *v = cuplug__job_finish_validation(&j);
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
