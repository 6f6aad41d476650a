/* cpu_target.c - the CPU target (CUPLUG_OUTPUT_HOST): the artifact is the
 * IR libNVVM would have been handed (for modern IR, the module LLVM
 * lowered), and load() compiles it for this CPU
 * (plugin/load/cpu.c).  No toolkit, no cc; and no cache: the IR is made in
 * a few passes (the JIT's work comes at load), and it holds this process's
 * addresses of the declared functions' CPU implementations. */
#include "plugin/pipeline/cpu_target.h"

#include <stdlib.h>

#include "base/error.h"

/* The caller's modules as given, whose lines an error of the CPU compile
 * names. */
static cuplug_error *keep_sources(cuplug__job *j) {
  cuplug_artifact *art = j->art;
  size_t n = j->a->num_modules;
  art->sources = calloc(n, sizeof *art->sources);
  if (!art->sources) return cuplug__error_oom();
  for (size_t i = 0; i < n; i++) {
    cuplug__text *m = &art->sources[art->num_sources++];
    m->name = cuplug__strdup(j->inputs[i].name);
    m->text = cuplug__strndup(j->inputs[i].text, j->inputs[i].size);
    m->size = j->inputs[i].size;
    if (!m->name || !m->text) return cuplug__error_oom();
  }
  return NULL;
}

/* Declared functions the IR calls: those with a CPU implementation are
 * defined for the JIT; the others it refuses by name at load. */
static cuplug_error *keep_externs(cuplug__job *j) {
  cuplug_artifact *art = j->art;
  art->cpu_externs = calloc(j->num_used ? j->num_used : 1, sizeof *art->cpu_externs);
  if (!art->cpu_externs) return cuplug__error_oom();
  for (size_t d = 0; d < j->num_used; d++) {
    if (!j->used[d]->host_function) continue;
    cuplug__cpu_extern *x = &art->cpu_externs[art->num_cpu_externs++];
    x->address = j->used[d]->host_function;
    x->signature = j->used[d]->sig;
    x->abi = j->used[d]->abi;
    if (!(x->symbol = cuplug__strdup(j->used[d]->symbol))) return cuplug__error_oom();
  }
  return NULL;
}

/* What load() needs beside the IR: the caller's modules, the declared
 * functions' CPU implementations, the entry. */
static cuplug_error *keep_cpu(cuplug__job *j) {
  CUPLUG__TRY(keep_sources(j));
  CUPLUG__TRY(keep_externs(j));
  cuplug_artifact *art = j->art;
  art->output = CUPLUG_OUTPUT_HOST;
  art->uses_libdevice = j->uses_libdevice;
  art->fastmath = j->a->fastmath != 0;
  art->abi = j->abi;
  return cuplug__job_describe_entry(j);
}

/* the lowered modules kept in the artifact, once the IR is valid */
static cuplug_error *keep_cpu_ir(cuplug__job *j) {
  CUPLUG__TRY(cuplug__job_finish_validation(j));
  CUPLUG__TRY(cuplug__job_keep_modules(j));
  return keep_cpu(j);
}

/* modern IR: the module LLVM lowered, as text */
static cuplug_error *keep_cpu_modern(cuplug__job *j) {
  CUPLUG__TRY(cuplug__job_keep_modern(j, "lowered.ll"));
  return keep_cpu(j);
}

static const cuplug__step stages[] = {
    CUPLUG__STAGE(check_options),
    CUPLUG__STAGE(read_signature),
    CUPLUG__STAGE(read_modules),
    CUPLUG__STAGE(copy_modules),
    CUPLUG__STAGE(parse_modules),
    CUPLUG__STAGE(start_validation),
    CUPLUG__STAGE(find_entry),
    CUPLUG__STAGE(lower),
    CUPLUG__STEP(keep_cpu_ir),};

_Static_assert(sizeof stages / sizeof *stages <= CUPLUG__MAX_STAGES, "see compile.c");
const cuplug__target cuplug__cpu_target = {stages, sizeof stages / sizeof stages[0], NULL};

/* Modern IR (opaque pointers, bitcode) is read and lowered through LLVM,
 * as for the NVPTX backend. */
static const cuplug__step modern_stages[] = {
    CUPLUG__MODERN_FRONT,
    CUPLUG__STAGE(gather_modern),
    CUPLUG__STAGE(lower_modern),
    CUPLUG__STEP(keep_cpu_modern),};

_Static_assert(sizeof modern_stages / sizeof *modern_stages <= CUPLUG__MAX_STAGES, "see compile.c");
const cuplug__target cuplug__cpu_modern_target = {
    modern_stages, sizeof modern_stages / sizeof modern_stages[0], NULL};
