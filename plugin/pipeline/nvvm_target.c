/* nvvm_target.c - the libNVVM target: PTX, LTO-IR, or a cubin linked by
 * nvJitLink with the code the IR calls; compile_all lists that code.  Two
 * lists: numba-cuda's typed IR, edited as text; and modern IR (opaque
 * pointers, bitcode), read and lowered through LLVM, then written in the
 * dialect libNVVM reads for cc 10.0 and up (LLVM 20's). */
#include "plugin/pipeline/nvvm_target.h"

#include <stdlib.h>
#include <string.h>

#include "base/code.h"
#include "base/error.h"
#include "lowering/lowering.h"
#include "plugin/llvm/modern.h"
#include "plugin/pipeline/results.h"

/* libNVVM runs in a helper process: reserving (and so waking) one now,
 * while the stages before libNVVM run, spares the compile the wait for a
 * sleeping process.  The IR's validation then waits for run_nvvm, which
 * runs it on this thread while the helper compiles: the thread would only
 * wait there, and no validator thread need be woken and waited for. */
static cuplug_error *wake_helper(cuplug__job *j) {
  cuplug__nvvm_reserve(&j->s->runner, &j->nvvm);
  j->validate_later = !j->s->runner.in_process && !j->s->runner.helpers.handoff.pin;
  return NULL;
}

/* the NVVM IR version libNVVM reads, which legalisation writes into the IR */
static cuplug_error *read_ir_version(cuplug__job *j) {
  return cuplug__nvvm_ir_version(&j->s->toolkit, &j->irv);
}

/* libNVVM passes a call to an llvm.* function it does not know through to
 * the PTX as an external function, which no assembler takes. */
static cuplug_error *refuse_unknown_intrinsics(const char *ptx) {
  for (const char *ext = strstr(ptx, ".extern .func"); ext;
       ext = strstr(ext + 1, ".extern .func")) {
    const char *name = strstr(ext, "llvm.");
    const char *eol = strchr(ext, '\n');
    if (name && (!eol || name < eol))
      return cuplug__error(CUPLUG_ERR_NVVM,
                           "libNVVM left a call to @%.*s unresolved: it is no intrinsic "
                           "libNVVM knows",
                           (int)strcspn(name, " (\n;"), name);
  }
  return NULL;
}

/* PTX or LTO-IR (libdevice added when the IR calls it): libNVVM starts
 * in its helper while LLVM may still be verifying */
static cuplug_error *run_nvvm(cuplug__job *j) {
  cuplug_compile_args *a = j->a;
  bool ltoir = a->output == CUPLUG_OUTPUT_LTOIR || (a->output == CUPLUG_OUTPUT_CUBIN && j->lto);
  cuplug__nvvm_options o = {.cc_major = j->cc.major,
                            .cc_minor = j->cc.minor,
                            .opt = j->opt,
                            .debug = a->debug != 0,
                            .lineinfo = a->lineinfo != 0,
                            .fastmath = a->fastmath != 0,
                            .ltoir = ltoir,
                            .libdevice = j->uses_libdevice,
                            .time_limit_ms = a->time_limit_ms};
  memcpy(o.cc_suffix, j->cc.suffix, sizeof o.cc_suffix);
  cuplug_artifact *art = j->art;
  cuplug__code own = {ltoir ? CUPLUG_CODE_LTOIR : CUPLUG_CODE_PTX, NULL, NULL, 0};
  /* libNVVM starts on the IR (in a helper process) while the verifier is
   * at work (on this thread, or a validator's in a trusted session that
   * could not read a type); IR it rejects stops libNVVM, which may be
   * stuck on it */
  cuplug__nvvm_job *nvvm = &j->nvvm;
  CUPLUG__TRY(cuplug__nvvm_start(&j->s->runner, j->mods, j->num_mods, &o, nvvm));
  cuplug_error *invalid = cuplug__job_finish_validation(j);
  if (invalid) {
    cuplug__nvvm_cancel(&j->s->runner, nvvm);
    return invalid;
  }
  CUPLUG__TRY(cuplug__nvvm_finish(&j->s->runner, nvvm, &own.data, &own.size, &art->log));
  j->tool_ran = &nvvm->run.times;
  own.name = cuplug__strdup(j->symbol);
  CUPLUG__TRY(cuplug__artifact_add_part(art, &own));
  if (!art->parts[0].name) return cuplug__error_oom();
  if (!ltoir) CUPLUG__TRY(refuse_unknown_intrinsics(art->parts[0].data));
  art->output = ltoir ? CUPLUG_OUTPUT_LTOIR : CUPLUG_OUTPUT_PTX;
  art->backend = CUPLUG_BACKEND_LIBNVVM;
  art->cc_major = j->cc.major;
  art->cc_minor = j->cc.minor;
  memcpy(art->cc_suffix, j->cc.suffix, sizeof art->cc_suffix);
  art->max_registers = a->max_registers;
  return cuplug__job_describe_entry(j);
}

static const cuplug__step stages[] = {
    CUPLUG__STAGE(check_options),
    CUPLUG__STAGE(read_signature),
    CUPLUG__STAGE(read_modules),
    CUPLUG__STAGE(look_up),
    CUPLUG__STAGE(copy_modules),
    CUPLUG__STEP(wake_helper),
    CUPLUG__STAGE(parse_modules),
    CUPLUG__STAGE(start_validation),
    CUPLUG__STAGE(choose_cc),
    CUPLUG__STEP(read_ir_version),
    CUPLUG__STAGE(find_entry),
    CUPLUG__STAGE(lower),
    CUPLUG__STEP(run_nvvm),
    CUPLUG__STAGE(link_code),
    CUPLUG__STAGE(keep_ir),
    CUPLUG__STAGE(keep),};

/* A helper woken for a job that never reached libNVVM goes back. */
static void release(cuplug__job *j) {
  if (j->s) cuplug__nvvm_unreserve(&j->s->runner, &j->nvvm);
}

_Static_assert(sizeof stages / sizeof *stages <= CUPLUG__MAX_STAGES, "see compile.c");
const cuplug__target cuplug__nvvm_target = {stages, sizeof stages / sizeof stages[0], release};

/* ---- modern IR ---- */

/* libNVVM reads modern IR only for compute_100 and up. */
static cuplug_error *require_cc100(cuplug__job *j) {
  if (j->cc.major >= 10) return NULL;
  return cuplug__error(CUPLUG_ERR_OPTION_BACKEND,
                       "libNVVM reads modern IR (LLVM 15 and later's text, or bitcode) only for "
                       "cc 10.0 and up, not %u.%u: compile it to ptx or cubin with the llvm "
                       "backend",
                       j->cc.major, j->cc.minor);
}

/* The lowered module, as LLVM 22 writes it, made fit for libNVVM's LLVM 20
 * reader: the one module libNVVM gets. */
static cuplug_error *write_nvvm20(cuplug__job *j) {
  char *text;
  size_t size;
  CUPLUG__TRY(cuplug__modern_check_spaces(j->modern, true));
  CUPLUG__TRY(cuplug__modern_nvvm20_intrinsics(j->modern));
  CUPLUG__TRY(cuplug__modern_text(j->modern, &text, &size));
  ir_rewrite rw;
  cuplug_error *e = cuplug__ir_rewrite_begin(&rw, "lowered.ll", text, size, NULL);
  if (!e) {
    e = cuplug__legalize_nvvm20(&rw, j->irv);
    char *out;
    size_t n;
    if (e)
      cuplug__ir_rewrite_abort(&rw);
    else if (!(e = cuplug__ir_rewrite_finish(&rw, &out, &n))) {
      free(j->owned[0]);
      j->owned[0] = out;
      j->mods[0] = (cuplug__text){"lowered.ll", out, n};
      j->num_mods = 1;
    }
  }
  free(text);
  return e;
}

static const cuplug__step modern_stages[] = {
    CUPLUG__MODERN_FRONT,
    CUPLUG__STAGE(look_up),
    CUPLUG__STAGE(choose_cc),
    CUPLUG__STEP(require_cc100),
    CUPLUG__STEP(read_ir_version),
    CUPLUG__STEP(wake_helper),
    CUPLUG__STAGE(gather_modern),
    CUPLUG__STAGE(lower_modern),
    CUPLUG__STEP(write_nvvm20),
    CUPLUG__STEP(run_nvvm),
    CUPLUG__STAGE(link_code),
    CUPLUG__STAGE(keep_ir),
    CUPLUG__STAGE(keep),};

_Static_assert(sizeof modern_stages / sizeof *modern_stages <= CUPLUG__MAX_STAGES, "see compile.c");
const cuplug__target cuplug__nvvm_modern_target = {
    modern_stages, sizeof modern_stages / sizeof modern_stages[0], release};
