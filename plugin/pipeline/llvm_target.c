/* llvm_target.c - LLVM's NVPTX backend: IR of any dialect (numba-cuda's
 * typed text, modern text, bitcode from LLVM 7 to 22) read into one LLVM
 * module, lowered there through LLVM-C (plugin/llvm/modern.h), and made
 * into PTX by libcuplug-nvptx.so in a helper process; cubins through
 * nvJitLink, as libNVVM's target makes them.  It makes no LTO-IR: the
 * choice of backend (compile.c) refuses such compiles, naming what would
 * serve. */
#include "plugin/pipeline/llvm_target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/code.h"
#include "base/error.h"
#include "plugin/compilers/nvptx.h"
#include "plugin/llvm/modern.h"

/* A cubin links the PTX as it is, unless the caller or a declared
 * function links LTO-IR, which only an LTO link (-lto) takes: the PTX then
 * joins it, called but not inlined across.  (CUDA C++ is compiled to PTX
 * for a plain link.) */
static cuplug_error *choose_link(cuplug__job *j) {
  cuplug_compile_args *a = j->a;
  bool ltoir = false;
  for (size_t i = 0; i < a->num_link && a->link && !ltoir; i++) {
    const cuplug_code *c = a->link[i];
    if (!c) continue;
    cuplug_code_kind kind = c->kind;
    if (kind == CUPLUG_CODE_AUTO)
      kind = cuplug__code_sniff(c->name ? c->name : c->path, c->data, c->data ? c->size : 0);
    ltoir = kind == CUPLUG_CODE_LTOIR;
  }
  for (size_t d = 0; d < j->num_used && !ltoir; d++)
    for (size_t c = 0; c < j->used[d]->num_code; c++)
      ltoir |= j->used[d]->code[c].kind == CUPLUG_CODE_LTOIR;
  j->lto = j->lto && ltoir;
  return NULL;
}

/* The backend runs in a helper process: reserving (and so waking) one now,
 * while LLVM reads and lowers the module here, spares the compile the wait
 * for a sleeping process. */
static cuplug_error *wake_helper(cuplug__job *j) {
  cuplug__nvptx_reserve(&j->s->runner, &j->nvptx);
  return NULL;
}

/* A helper woken for a job that never reached the backend goes back. */
static void release(cuplug__job *j) {
  if (j->s) cuplug__nvptx_unreserve(&j->s->runner, &j->nvptx);
}

/* PTX from the lowered module, in a helper process: LLVM's code generator
 * ends the process on input it cannot select. */
static cuplug_error *run_nvptx(cuplug__job *j) {
  cuplug_compile_args *a = j->a;
  char *bitcode = NULL;
  size_t size = 0;
  CUPLUG__TRY(cuplug__modern_check_spaces(j->modern, false));
  CUPLUG__TRY(cuplug__modern_bitcode(j->modern, &bitcode, &size));
  /* the entry, and a debug kernel's exception store, which the host reads
   * back by name after a launch */
  static const char *const store[] = {"__errcode__", "__tidx__",   "__tidy__",  "__tidz__",
                                      "__ctaidx__",  "__ctaidy__", "__ctaidz__"};
  char names[7][1024];
  const char *keep[8] = {j->symbol};
  size_t num_keep = 1;
  for (size_t i = 0; a->debug && j->entry_abi == CUPLUG_ABI_NUMBA && i < 7; i++) {
    snprintf(names[i], sizeof names[i], "%s%s", j->symbol, store[i]);
    keep[num_keep++] = names[i];
  }
  cuplug__nvptx_options o = {.cc_major = j->cc.major,
                             .cc_minor = j->cc.minor,
                             .opt = j->opt,
                             .debug = a->debug != 0,
                             .lineinfo = a->lineinfo != 0,
                             .fastmath = a->fastmath != 0,
                             .libdevice = j->uses_libdevice,
                             .time_limit_ms = a->time_limit_ms,
                             .keep = keep,
                             .num_keep = num_keep,
                             .name = j->inputs[0].name};
  memcpy(o.cc_suffix, j->cc.suffix, sizeof o.cc_suffix);
  cuplug_artifact *art = j->art;
  cuplug__code own = {CUPLUG_CODE_PTX, NULL, NULL, 0};
  cuplug_error *e = cuplug__nvptx_start(&j->s->runner, bitcode, size, &o, &j->nvptx);
  if (!e)
    e = cuplug__nvptx_finish(&j->s->runner, &j->nvptx, (char **)&own.data, &own.size,
                             &art->log);
  free(bitcode);
  CUPLUG__TRY(e);
  j->tool_ran = &j->nvptx.run.times;
  own.name = cuplug__strdup(j->symbol);
  CUPLUG__TRY(cuplug__artifact_add_part(art, &own));
  if (!art->parts[0].name) return cuplug__error_oom();
  art->output = CUPLUG_OUTPUT_PTX;
  art->backend = CUPLUG_BACKEND_LLVM;
  art->cc_major = j->cc.major;
  art->cc_minor = j->cc.minor;
  memcpy(art->cc_suffix, j->cc.suffix, sizeof art->cc_suffix);
  art->max_registers = a->max_registers;
  return cuplug__job_describe_entry(j);
}

/* CUPLUG_COMPILE_KEEP_IR: the lowered module, as LLVM 22 prints it. */
static cuplug_error *keep_modern_ir(cuplug__job *j) {
  if (!(j->a->flags & CUPLUG_COMPILE_KEEP_IR)) return NULL;
  return cuplug__job_keep_modern(j, "lowered.ll");
}

static const cuplug__step stages[] = {
    CUPLUG__MODERN_FRONT,
    CUPLUG__STAGE(look_up),
    CUPLUG__STAGE(choose_cc),
    CUPLUG__STEP(wake_helper),
    CUPLUG__STAGE(gather_modern),
    CUPLUG__STEP(choose_link),
    CUPLUG__STAGE(lower_modern),
    CUPLUG__STEP(run_nvptx),
    CUPLUG__STAGE(link_code),
    CUPLUG__STEP(keep_modern_ir),
    CUPLUG__STAGE(keep),};

_Static_assert(sizeof stages / sizeof *stages <= CUPLUG__MAX_STAGES, "see compile.c");
const cuplug__target cuplug__llvm_target = {stages, sizeof stages / sizeof stages[0], release};
