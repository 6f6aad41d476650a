/* modern_stages.c - the stages of the targets that read IR through LLVM
 * (job.h): the caller's modules, of any dialect, parsed into one LLVM 22
 * module, its entry found, the registered functions it calls linked in,
 * and lowered as its kind and ABI ask, all through LLVM-C on the module
 * (plugin/llvm/modern.h).  The NVPTX target (llvm_target.c) and the CPU
 * target for modern IR (cpu_target.c) share them. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "lowering/dialect.h"
#include "lowering/lowering.h"
#include "plugin/compilers/nvptx.h"
#include "plugin/llvm/modern.h"
#include "plugin/pipeline/job.h"

/* The caller's modules, parsed and linked into one LLVM module. */
/* Bitcode is read by LLVM in a helper process, which gives it back as
 * text: LLVM's bitcode reader crashes on some malformed input (fuzzing
 * found it), its text reader does not.  The copy of the caller's bytes
 * gives way to the text. */
static cuplug_error *bitcode_to_text(cuplug__job *j, size_t i) {
  cuplug__text *in = &j->inputs[i];
  CUPLUG__TRY(cuplug__modern_check_bitcode(in));
  char *text;
  size_t size;
  CUPLUG__TRY(cuplug__nvptx_to_text(&j->s->runner, in->name, in->text, in->size, &text, &size));
  free(j->copies[i]);
  j->copies[i] = text;
  in->text = j->mods[i].text = text;
  in->size = j->mods[i].size = size;
  return NULL;
}

cuplug_error *cuplug__stage_read_modern(cuplug__job *j) {
  for (size_t i = 0; i < j->a->num_modules; i++)
    if (cuplug__ir_dialect(j->inputs[i].text, j->inputs[i].size) == CUPLUG__DIALECT_BITCODE)
      CUPLUG__TRY(bitcode_to_text(j, i));
  return cuplug__modern_read(j->inputs, j->a->num_modules, j->a->output == CUPLUG_OUTPUT_HOST,
                             &j->modern);
}

/* The entry: checked against the signature, or its signature read from
 * the IR, which a kernel the IR marks (ptx_kernel) carries whole. */
cuplug_error *cuplug__stage_modern_entry(cuplug__job *j) {
  cuplug_compile_args *a = j->a;
  const cuplug_type *read = NULL;
  bool marked = false;
  CUPLUG__TRY(cuplug__modern_entry(j->modern, a->entry, j->entry_abi, j->sig, &read, &marked));
  if (marked && a->kind != CUPLUG_KERNEL)
    return cuplug__error(CUPLUG_ERR_OPTION_KIND,
                         "@%s is a kernel in the IR (ptx_kernel): compile it as a kernel",
                         a->entry);
  if (!j->sig) {
    if (!marked)
      return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                           "compile: no signature given, and @%s is no kernel the IR marks "
                           "(ptx_kernel) whose parameters would say it: give one",
                           a->entry);
    j->sig = read;
  }
  /* A kernel the host already made (Triton's, clang's) is called as it is. */
  if (marked) j->entry_abi = CUPLUG_ABI_C;
  j->symbol = a->kind == CUPLUG_DEVICE_FUNCTION && j->abi == CUPLUG_ABI_C &&
                      j->entry_abi == CUPLUG_ABI_NUMBA && a->abi_name
                  ? a->abi_name
                  : a->entry;
  return NULL;
}

/* numba-cuda's atomic helpers (___numba_atomic_*), which its IR declares
 * and its backend defines, defined as the text path defines them. */
static cuplug_error *link_numba_atomics(cuplug__job *j, const char *const *names, size_t n,
                                        bool *linked) {
  cuplug__buf defs;
  cuplug__buf_init(&defs);
  for (size_t i = 0; i < n; i++) cuplug__numba_atomic_definition(names[i], &defs);
  if (defs.oom) return cuplug__error_oom();
  cuplug__text t = {"numba.atomics", defs.data ? defs.data : "", defs.len};
  *linked = defs.len > 0;
  cuplug_error *e = *linked ? cuplug__modern_link(j->modern, &t) : NULL;
  cuplug__buf_free(&defs);
  return e;
}

/* The registered functions the IR calls join the module, and those their
 * IR calls, until none is new. */
cuplug_error *cuplug__stage_gather_modern(cuplug__job *j) {
  size_t joined = j->num_mods; /* the caller's modules are in already */
  for (;;) {
    const char *const *names;
    size_t n;
    CUPLUG__TRY(cuplug__modern_declared(j->modern, &names, &n));
    bool atomics = false;
    for (size_t i = 0; i < n; i++) {
      CUPLUG__TRY(cuplug__job_note_symbol(j, names[i], "the IR"));
      atomics |= strncmp(names[i], "___numba_atomic_", 16) == 0;
    }
    bool defined = false;
    if (atomics) CUPLUG__TRY(link_numba_atomics(j, names, n, &defined));
    if (defined) continue; /* they may call what is not linked yet */
    if (j->builtins.len) {
      char *text = cuplug__buf_take(&j->builtins, NULL);
      if (!text) return cuplug__error_oom();
      cuplug__text t = {"cuplug.builtins", text, strlen(text)};
      cuplug_error *e = cuplug__modern_link(j->modern, &t);
      free(text);
      CUPLUG__TRY(e);
      continue;
    }
    if (joined == j->num_mods) return NULL;
    for (; joined < j->num_mods; joined++)
      CUPLUG__TRY(cuplug__modern_link(j->modern, &j->mods[joined]));
  }
}

cuplug_error *cuplug__stage_lower_modern(cuplug__job *j) {
  cuplug_compile_args *a = j->a;
  cuplug__modern_lower_options o = {.kind = a->kind,
                                    .sig = j->sig,
                                    .entry_abi = j->entry_abi,
                                    .abi = j->abi,
                                    .entry = a->entry,
                                    .symbol = j->symbol,
                                    .debug = a->debug != 0,
                                    .lineinfo = a->lineinfo != 0,
                                    .forceinline = a->forceinline != 0,
                                    .launch_bounds = a->launch_bounds,
                                    .num_launch_bounds = a->num_launch_bounds,
                                    .max_registers = a->max_registers};
  CUPLUG__TRY(cuplug__modern_lower(j->modern, &o));
  j->uses_libdevice = cuplug__modern_uses_libdevice(j->modern);
  return NULL;
}

/* Appends the lowered module, as LLVM 22 prints it, to the artifact's IR. */
cuplug_error *cuplug__job_keep_modern(cuplug__job *j, const char *name) {
  cuplug_artifact *art = j->art;
  cuplug__text *v = realloc(art->ir, (art->num_ir + 1) * sizeof *v);
  if (!v) return cuplug__error_oom();
  art->ir = v;
  char *text = NULL;
  size_t size = 0;
  CUPLUG__TRY(cuplug__modern_text(j->modern, &text, &size));
  char *n = cuplug__strdup(name);
  if (!n) {
    free(text);
    return cuplug__error_oom();
  }
  art->ir[art->num_ir++] = (cuplug__text){n, text, size};
  return NULL;
}
