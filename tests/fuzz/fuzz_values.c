/* fuzz_values.c - values.json as `cuplug case DIR --run` reads it: every
 * argument and result read as a C value of each kind, every array (and
 * pointer row) into a buffer of its dtype, each compared with the JSON it
 * came from, which must agree bit for bit.  Running a case on the values
 * is the kernel's business (an index out of bounds reads host memory as C
 * would): the harness stops at what cuplug's reader does. */
#include "fuzz.h"
#include "values.h"

static const cuplug_type_kind kinds[] = {
    CUPLUG_TYPE_BOOL,    CUPLUG_TYPE_INT8,    CUPLUG_TYPE_INT16,     CUPLUG_TYPE_INT32,
    CUPLUG_TYPE_INT64,   CUPLUG_TYPE_UINT8,   CUPLUG_TYPE_UINT16,    CUPLUG_TYPE_UINT32,
    CUPLUG_TYPE_UINT64,  CUPLUG_TYPE_FLOAT32, CUPLUG_TYPE_FLOAT64,   CUPLUG_TYPE_COMPLEX64,
    CUPLUG_TYPE_COMPLEX128};

/* A value read as each kind compares equal to itself; an array's elements
 * to theirs. */
static void read_value(checker *c, const json *v) {
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    unsigned char got[16];
    if (values_store(kinds[k], v, got) && !values_compare(c, kinds[k], got, v, "value", k))
      abort();
  }
  cuplug_type_kind dt;
  size_t count;
  char *buf = values_read_buffer(v, &dt, &count);
  if (!buf) return;
  const json *data = json_get(v, "data");
  if (!data || data->kind != JSON_ARRAY || data->count != count) abort();
  for (size_t e = 0; e < count; e++)
    if (!values_compare(c, dt, buf + e * values_size_of(dt), data->items[e], "data", e)) abort();
  free(buf);
}

static void read_list(checker *c, const json *list, const char *field) {
  if (!list || list->kind != JSON_ARRAY) return;
  for (size_t i = 0; i < list->count; i++) {
    const json *vs = json_get(list->items[i], field);
    if (vs && vs->kind == JSON_ARRAY)
      for (size_t k = 0; k < vs->count; k++) read_value(c, vs->items[k]);
    else if (vs)
      read_value(c, vs);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_string(data, size);
  char err[256];
  json *v = json_parse(text, err, sizeof err);
  free(text);
  if (!v) return 0;
  checker c = {.dir = "fuzz"};
  for (int l = 0; l < 2; l++) {
    const json *list = json_get(v, l ? "launches" : "calls");
    read_list(&c, list, "args");
    read_list(&c, list, "result");
  }
  json_free(v);
  return 0;
}
