/* session.c - sessions and artifacts. */
#include "session.h"

#include <stdlib.h>

#include "error.h"

cuplug_error *cuplug__session_create(const cuplug_session_options *o, cuplug_session **out) {
  cuplug_session *s = calloc(1, sizeof *s);
  if (!s) return cuplug__error_oom();
  cuplug_error *e = cuplug__toolkit_init(&s->toolkit, o ? o->cuda_home : NULL);
  if (e) {
    free(s);
    return e;
  }
  cuplug__pool_init(&s->validators);
  s->default_cc_major = o && o->default_cc_major ? o->default_cc_major : 5;
  s->default_cc_minor = o && o->default_cc_major ? o->default_cc_minor : 0;
  *out = s;
  return NULL;
}

void cuplug__session_destroy(cuplug_session *s) {
  if (!s) return;
  cuplug__pool_release(&s->validators);
  cuplug__toolkit_release(&s->toolkit);
  free(s);
}

void cuplug__artifact_destroy(cuplug_artifact *a) {
  if (!a) return;
  free(a->data);
  free(a->symbol);
  free(a->log);
  for (size_t i = 0; i < a->num_warnings; i++) cuplug__error_destroy(a->warnings[i]);
  free(a->warnings);
  for (size_t i = 0; i < a->num_ir; i++) {
    free(a->ir[i].name);
    free(a->ir[i].text);
  }
  free(a->ir);
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
