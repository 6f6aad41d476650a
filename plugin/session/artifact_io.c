/* artifact_io.c - an artifact as bytes, for the result cache.
 *
 * Every field of the artifact, in order, little-endian: numbers as 4 or 8
 * bytes, strings and code as an 8-byte length (all ones for NULL) and the
 * bytes, types by their canonical name (interned again on reading). */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/types.h"
#include "plugin/session/artifact.h"

/* ---- writing ---- */

static void put_u64(cuplug__buf *b, uint64_t v) {
  char x[8];
  for (int i = 0; i < 8; i++) x[i] = (char)(v >> (8 * i));
  cuplug__buf_append(b, x, 8);
}

static void put_u32(cuplug__buf *b, uint32_t v) { put_u64(b, v); }

static void put_bytes(cuplug__buf *b, const void *data, size_t size) {
  put_u64(b, data ? size : UINT64_MAX);
  if (data) cuplug__buf_append(b, data, size);
}

static void put_str(cuplug__buf *b, const char *s) { put_bytes(b, s, s ? strlen(s) : 0); }

static void put_type(cuplug__buf *b, const cuplug_type *t) {
  put_str(b, t ? t->name : NULL);
}

cuplug_error *cuplug__artifact_save(const cuplug_artifact *a, cuplug__buf *b) {
  put_u32(b, a->output);
  put_u64(b, a->num_parts);
  for (size_t i = 0; i < a->num_parts; i++) {
    put_u32(b, a->parts[i].kind);
    put_str(b, a->parts[i].name);
    put_bytes(b, a->parts[i].data, a->parts[i].size);
  }
  put_str(b, a->symbol);
  put_str(b, a->log);
  put_str(b, a->link_log);
  put_u32(b, a->cc_major);
  put_u32(b, a->cc_minor);
  put_u32(b, (unsigned char)a->cc_suffix[0]);
  put_u32(b, a->backend);
  put_u32(b, a->kind);
  put_u32(b, a->debug);
  put_u32(b, a->lineinfo);
  put_u32(b, a->max_registers);
  put_type(b, a->signature);
  put_u64(b, a->num_kernels);
  for (size_t i = 0; i < a->num_kernels; i++) {
    put_str(b, a->kernels[i].symbol);
    put_type(b, a->kernels[i].signature);
    put_u32(b, a->kernels[i].debug);
  }
  put_u32(b, a->cooperative);
  put_u64(b, a->num_warnings);
  for (size_t i = 0; i < a->num_warnings; i++) {
    put_u32(b, a->warnings[i]->code);
    put_str(b, a->warnings[i]->message);
    put_str(b, a->warnings[i]->log);
  }
  put_u64(b, a->num_ir);
  for (size_t i = 0; i < a->num_ir; i++) {
    put_str(b, a->ir[i].name);
    put_bytes(b, a->ir[i].text, a->ir[i].size);
  }
  return b->oom ? cuplug__error_oom() : NULL;
}

/* ---- reading ---- */

typedef struct reader {
  const unsigned char *p, *end;
  bool bad;
} reader;

static uint64_t get_u64(reader *r) {
  if (r->bad || r->end - r->p < 8) {
    r->bad = true;
    return 0;
  }
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)r->p[i] << (8 * i);
  r->p += 8;
  return v;
}

static uint32_t get_u32(reader *r) {
  uint64_t v = get_u64(r);
  if (v > UINT32_MAX) r->bad = true;
  return (uint32_t)v;
}

/* A count of items, each at least `least` bytes: no more than fit. */
static size_t get_count(reader *r, size_t least) {
  uint64_t n = get_u64(r);
  if (n > (uint64_t)(r->end - r->p) / least) r->bad = true;
  return r->bad ? 0 : (size_t)n;
}

/* A NUL-terminated copy (NULL for a NULL string, or on a bad read). */
static char *get_bytes(reader *r, size_t *size) {
  uint64_t n = get_u64(r);
  *size = 0;
  if (r->bad || n == UINT64_MAX) return NULL;
  if (n > (uint64_t)(r->end - r->p)) {
    r->bad = true;
    return NULL;
  }
  char *s = malloc(n + 1);
  if (!s) {
    r->bad = true;
    return NULL;
  }
  memcpy(s, r->p, n);
  s[n] = '\0';
  r->p += n;
  *size = n;
  return s;
}

static char *get_str(reader *r) {
  size_t n;
  return get_bytes(r, &n);
}

static const cuplug_type *get_type(reader *r) {
  char *name = get_str(r);
  const cuplug_type *t = NULL;
  if (name) {
    cuplug_error *e = cuplug__type_parse(name, &t);
    if (e) {
      cuplug__error_destroy(e);
      r->bad = true;
    }
    free(name);
  }
  return t;
}

cuplug_error *cuplug__artifact_restore(const void *data, size_t size, cuplug_artifact **out) {
  *out = NULL;
  reader r = {data, (const unsigned char *)data + size, false};
  cuplug_artifact *a = cuplug__artifact_new();
  if (!a) return cuplug__error_oom();
  a->output = (cuplug_output)get_u32(&r);
  size_t n = get_count(&r, 24);
  if (n && !(a->parts = calloc(n, sizeof *a->parts))) r.bad = true;
  for (size_t i = 0; i < n && !r.bad; i++, a->num_parts++) {
    cuplug__code *c = &a->parts[i];
    c->kind = (cuplug_code_kind)get_u32(&r);
    c->name = get_str(&r);
    c->data = get_bytes(&r, &c->size);
  }
  a->symbol = get_str(&r);
  a->log = get_str(&r);
  a->link_log = get_str(&r);
  a->cc_major = get_u32(&r);
  a->cc_minor = get_u32(&r);
  a->cc_suffix[0] = (char)get_u32(&r);
  a->backend = (cuplug_backend)get_u32(&r);
  a->kind = (cuplug_function_kind)get_u32(&r);
  a->debug = get_u32(&r);
  a->lineinfo = get_u32(&r);
  a->max_registers = get_u32(&r);
  a->signature = get_type(&r);
  n = get_count(&r, 24);
  if (n && !(a->kernels = calloc(n, sizeof *a->kernels))) r.bad = true;
  for (size_t i = 0; i < n && !r.bad; i++, a->num_kernels++) {
    a->kernels[i].symbol = get_str(&r);
    a->kernels[i].signature = get_type(&r);
    a->kernels[i].debug = get_u32(&r) != 0;
  }
  a->cooperative = get_u32(&r) != 0;
  n = get_count(&r, 24);
  for (size_t i = 0; i < n && !r.bad; i++) {
    cuplug_status code = (cuplug_status)get_u32(&r);
    char *message = get_str(&r), *log = get_str(&r);
    cuplug_error *w = r.bad ? NULL
                            : log ? cuplug__error_log(code, log, "%s", message ? message : "")
                                  : cuplug__error(code, "%s", message ? message : "");
    free(message);
    free(log);
    if (w && cuplug__artifact_warn(a, w)) r.bad = true; /* out of memory */
  }
  n = get_count(&r, 16);
  if (n && !(a->ir = calloc(n, sizeof *a->ir))) r.bad = true;
  for (size_t i = 0; i < n && !r.bad; i++, a->num_ir++) {
    a->ir[i].name = get_str(&r);
    a->ir[i].text = get_bytes(&r, &a->ir[i].size);
  }
  if (r.bad || r.p != r.end || !a->num_parts || !a->parts[0].data) {
    cuplug__artifact_destroy(a);
    return cuplug__error(CUPLUG_ERR_IO, "a cached result does not read back");
  }
  *out = a;
  return NULL;
}
