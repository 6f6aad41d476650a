/* nvvm_target.c - the libNVVM target: PTX, LTO-IR, or a cubin linked by
 * nvJitLink with the code the IR calls; compile_all lists that code. */
#include "plugin/pipeline/nvvm_target.h"

#include <stdlib.h>
#include <string.h>

#include "base/code.h"
#include "base/error.h"
#include "plugin/pipeline/link.h"
#include "plugin/pipeline/results.h"

/* libNVVM runs in a helper process: reserving (and so waking) one now,
 * while the stages before libNVVM run, spares the compile the wait for a
 * sleeping process. */
static cuplug_error *wake_helper(cuplug__job *j) {
  cuplug__nvvm_reserve(&j->s->runner, &j->nvvm);
  return NULL;
}

/* explicit, the current device's, or numba-cuda's default rule; and the
 * NVVM IR version libNVVM reads, which legalisation writes into the IR */
static cuplug_error *choose_cc(cuplug__job *j) {
  cuplug_compile_args *a = j->a;
  CUPLUG__TRY(cuplug__nvvm_ir_version(&j->s->toolkit, &j->irv));
  if (a->flags & CUPLUG_COMPILE_CURRENT_DEVICE) {
    int major, minor;
    CUPLUG__TRY(cuplug__toolkit_current_cc(&j->s->toolkit, &major, &minor));
    return cuplug__session_device_cc(j->s, (uint32_t)major, (uint32_t)minor,
                                     (char)a->cc_suffix, &j->cc);
  }
  return cuplug__session_cc(j->s, a->cc_major, a->cc_minor, (char)a->cc_suffix, &j->cc);
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
  /* libNVVM starts on the IR (in a helper process) while the verifier may
   * still be at work; IR it rejects stops libNVVM, which may be stuck on it */
  cuplug__nvvm_job *nvvm = &j->nvvm;
  CUPLUG__TRY(cuplug__nvvm_start(&j->s->runner, j->mods, j->num_mods, &o, nvvm));
  cuplug_error *invalid = cuplug__job_finish_validation(j);
  if (invalid) {
    cuplug__nvvm_cancel(&j->s->runner, nvvm);
    return invalid;
  }
  CUPLUG__TRY(cuplug__nvvm_finish(&j->s->runner, nvvm, &own.data, &own.size, &art->log));
  own.name = cuplug__strdup(j->symbol);
  CUPLUG__TRY(cuplug__artifact_add_part(art, &own));
  if (!art->parts[0].name) return cuplug__error_oom();
  if (!ltoir) CUPLUG__TRY(refuse_unknown_intrinsics(art->parts[0].data));
  art->output = ltoir ? CUPLUG_OUTPUT_LTOIR : CUPLUG_OUTPUT_PTX;
  art->cc_major = j->cc.major;
  art->cc_minor = j->cc.minor;
  memcpy(art->cc_suffix, j->cc.suffix, sizeof art->cc_suffix);
  art->max_registers = a->max_registers;
  return cuplug__job_describe_entry(j);
}

/* cubin output and compile_all: the declared functions the IR calls and
 * the extra code, .cu through NVRTC, all linked by nvJitLink (or listed,
 * for compile_all) */
/* The own code first, then the code of the declared functions and CUDA C++
 * lowerings the IR calls, then the caller's: linked into a cubin, or, for
 * compile_all, listed as the artifact's parts. */
static cuplug_error *gather_code(cuplug__job *j, cuplug__link_inputs *in, bool *cooperative) {
  cuplug_compile_args *a = j->a;
  CUPLUG__TRY(cuplug__link_add(in, &j->art->parts[0]));
  for (size_t d = 0; d < j->num_used; d++) {
    *cooperative |= j->used[d]->cooperative;
    for (size_t c = 0; c < j->used[d]->num_code; c++)
      CUPLUG__TRY(cuplug__link_add(in, &j->used[d]->code[c]));
  }
  CUPLUG__TRY(cuplug__link_add_caller(in, a->link, a->num_link));
  return *cooperative && !j->all ? cuplug__link_add_cudadevrt(in) : NULL;
}

static cuplug_error *link_code(cuplug__job *j) {
  cuplug_compile_args *a = j->a;
  if (a->output != CUPLUG_OUTPUT_CUBIN && !j->all) return NULL;
  cuplug_artifact *art = j->art;
  cuplug__link_inputs in = {.session = j->s,
                            .cc_major = j->cc.major,
                            .cc_minor = j->cc.minor,
                            .cc_suffix = {j->cc.suffix[0], 0},
                            .ltoir = j->all ? a->output == CUPLUG_OUTPUT_LTOIR : j->lto,
                            .debug = a->debug != 0,
                            .lineinfo = a->lineinfo != 0,
                            .include_paths = a->include_paths,
                            .num_include_paths = a->num_include_paths,
                            .time_limit_ms = a->time_limit_ms};
  bool cooperative = false;
  cuplug_error *e = gather_code(j, &in, &cooperative);
  art->cooperative = cooperative;
  if (!e && j->all) {
    /* compile_all: the own code is part 0 already; the rest follow */
    for (size_t i = 1; !e && i < in.num_code; i++) e = cuplug__artifact_add_part(art, &in.code[i]);
  } else if (!e) {
    /* the cubin replaces the own code as the result */
    e = cuplug__link_run(&in, j->lto, a->max_registers,
                         (a->flags & CUPLUG_COMPILE_LINKED_PTX) != 0, art);
  }
  cuplug__link_inputs_free(&in);
  return e;
}

/* the result goes into the cache */
static cuplug_error *keep(cuplug__job *j) {
  if (j->to_cache) {
    cuplug__keep_result(j->s, &j->key, j->art, j->cache_warning);
    j->cache_warning = NULL;
  }
  return NULL;
}

static const cuplug__stage stages[] = {
    cuplug__stage_check_options,
    cuplug__stage_read_signature,
    cuplug__stage_read_modules,
    cuplug__stage_look_up,
    cuplug__stage_copy_modules,
    wake_helper,
    cuplug__stage_parse_modules,
    cuplug__stage_start_validation,
    choose_cc,
    cuplug__stage_find_entry,
    cuplug__stage_lower,
    run_nvvm,
    link_code,
    cuplug__stage_keep_ir,
    keep,
};

/* A helper woken for a job that never reached libNVVM goes back. */
static void release(cuplug__job *j) {
  if (j->s) cuplug__nvvm_unreserve(&j->s->runner, &j->nvvm);
}

const cuplug__target cuplug__nvvm_target = {stages, sizeof stages / sizeof stages[0], release};
