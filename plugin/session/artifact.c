/* artifact.c - what a compile or a link produced. */
#include "plugin/session/artifact.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"

cuplug_artifact *cuplug__artifact_new(void) { return calloc(1, sizeof(cuplug_artifact)); }

void cuplug__artifact_destroy(cuplug_artifact *a) {
  if (!a) return;
  for (size_t i = 0; i < a->num_parts; i++) cuplug__code_free(&a->parts[i]);
  free(a->parts);
  free(a->symbol);
  free(a->log);
  free(a->link_log);
  for (size_t i = 0; i < a->num_warnings; i++) cuplug__error_destroy(a->warnings[i]);
  free(a->warnings);
  for (size_t i = 0; i < a->num_kernels; i++) free(a->kernels[i].symbol);
  free(a->kernels);
  for (size_t i = 0; i < a->num_ir; i++) {
    free((char *)a->ir[i].name);
    free((char *)a->ir[i].text);
  }
  free(a->ir);
  for (size_t i = 0; i < a->num_sources; i++) {
    free((char *)a->sources[i].name);
    free((char *)a->sources[i].text);
  }
  free(a->sources);
  for (size_t i = 0; i < a->num_cpu_externs; i++) free(a->cpu_externs[i].symbol);
  free(a->cpu_externs);
  free(a->stages);
  free(a);
}

cuplug_error *cuplug__artifact_warn(cuplug_artifact *a, cuplug_error *w) {
  cuplug_error **v = realloc(a->warnings, (a->num_warnings + 1) * sizeof *v);
  if (!v) {
    cuplug__error_destroy(w);
    return cuplug__error_oom();
  }
  a->warnings = v;
  a->warnings[a->num_warnings++] = w;
  return NULL;
}

cuplug_error *cuplug__artifact_add_part(cuplug_artifact *a, cuplug__code *code) {
  cuplug__code *v = realloc(a->parts, (a->num_parts + 1) * sizeof *v);
  if (!v) {
    cuplug__code_free(code);
    return cuplug__error_oom();
  }
  a->parts = v;
  a->parts[a->num_parts++] = *code;
  memset(code, 0, sizeof *code);
  return NULL;
}

cuplug_error *cuplug__artifact_add_kernel(cuplug_artifact *a, const char *symbol,
                                          const cuplug_type *signature, bool debug) {
  cuplug__artifact_kernel *v = realloc(a->kernels, (a->num_kernels + 1) * sizeof *v);
  if (!v) return cuplug__error_oom();
  a->kernels = v;
  char *copy = cuplug__strdup(symbol);
  if (!copy) return cuplug__error_oom();
  v[a->num_kernels++] = (cuplug__artifact_kernel){copy, signature, debug};
  return NULL;
}
