/* values.c - `cuplug case DIR --run host|gpu`: a conformance case run on
 * this CPU (or, from cuplug's GPU build, on the GPU: values_gpu.c) with the
 * inputs of DIR/values.json, its results compared with the outputs
 * numba-cuda gave for them on a GPU (tests/conformance/make_values.py
 * writes the file):
 *
 *   {"made_by": "...",
 *    "ulps": 0,                                  how far a float may be
 *    "calls": [{"args": [2, 40], "result": 42}]  a device function's, or
 *    "launches": [{"grid": [4, 1, 1], "block": [256, 1, 1],
 *                  "args": [{"dtype": "float32", "data": [...]}, 2.5],
 *                  "result": [{"dtype": "float32", "data": [...]}, null]}]}
 *
 * A kernel's result is every array argument after the launch (null for a
 * scalar).  A device function's CPointer argument is the elements it points
 * at, written as an array: {"dtype": "float32", "data": [...]}.  Integers and bools compare exactly; floats within "ulps" units
 * in the last place (0: the same bits, NaN equal to NaN). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "values.h"

int values_kind_of(const cuplug_api *api, const cuplug_type *t, cuplug_type_info *info) {
  *info = (cuplug_type_info){.struct_size = sizeof *info, .type = t};
  cuplug_error *e = api->type_info(info);
  api->error_destroy(e);
  return (int)info->kind;
}

size_t values_size_of(cuplug_type_kind k) {
  switch (k) {
    case CUPLUG_TYPE_BOOL: case CUPLUG_TYPE_INT8: case CUPLUG_TYPE_UINT8: return 1;
    case CUPLUG_TYPE_INT16: case CUPLUG_TYPE_UINT16: case CUPLUG_TYPE_FLOAT16: return 2;
    case CUPLUG_TYPE_INT32: case CUPLUG_TYPE_UINT32: case CUPLUG_TYPE_FLOAT32: return 4;
    case CUPLUG_TYPE_COMPLEX64: case CUPLUG_TYPE_INT64: case CUPLUG_TYPE_UINT64:
    case CUPLUG_TYPE_FLOAT64: case CUPLUG_TYPE_POINTER: return 8;
    case CUPLUG_TYPE_COMPLEX128: return 16;
    default: return 0;
  }
}

static const struct {
  const char *name;
  cuplug_type_kind kind;
} dtypes[] = {{"bool", CUPLUG_TYPE_BOOL},       {"int8", CUPLUG_TYPE_INT8},
              {"int16", CUPLUG_TYPE_INT16},     {"int32", CUPLUG_TYPE_INT32},
              {"int64", CUPLUG_TYPE_INT64},     {"uint8", CUPLUG_TYPE_UINT8},
              {"uint16", CUPLUG_TYPE_UINT16},   {"uint32", CUPLUG_TYPE_UINT32},
              {"uint64", CUPLUG_TYPE_UINT64},   {"float32", CUPLUG_TYPE_FLOAT32},
              {"float64", CUPLUG_TYPE_FLOAT64}, {"complex64", CUPLUG_TYPE_COMPLEX64},
              {"complex128", CUPLUG_TYPE_COMPLEX128}};

static cuplug_type_kind dtype_kind(const char *name) {
  for (size_t i = 0; name && i < sizeof dtypes / sizeof dtypes[0]; i++)
    if (!strcmp(dtypes[i].name, name)) return dtypes[i].kind;
  return CUPLUG_TYPE_INVALID;
}

/* Is d an integer within [lo, hi]?  (Converting one that is not to an
 * integer type is undefined.) */
static bool integral(double d, double lo, double hi) {
  return d >= lo && d <= hi && d == floor(d);
}

bool values_store(cuplug_type_kind k, const json *v, void *p) {
  if (k == CUPLUG_TYPE_COMPLEX64 || k == CUPLUG_TYPE_COMPLEX128) {
    if (!v || v->kind != JSON_ARRAY || v->count != 2) return false;
    size_t half = k == CUPLUG_TYPE_COMPLEX64 ? 4 : 8;
    cuplug_type_kind part = half == 4 ? CUPLUG_TYPE_FLOAT32 : CUPLUG_TYPE_FLOAT64;
    return values_store(part, v->items[0], p) && values_store(part, v->items[1], (char *)p + half);
  }
  if (!v || (v->kind != JSON_NUMBER && v->kind != JSON_BOOL)) return false;
  double d = v->kind == JSON_BOOL ? v->boolean : v->number;
  /* 2^63 and 2^64 are the first doubles past int64's and uint64's range */
  static const double two63 = 9223372036854775808.0, two64 = 18446744073709551616.0;
  switch (k) {
    case CUPLUG_TYPE_BOOL: *(uint8_t *)p = d != 0; return true;
    case CUPLUG_TYPE_INT8: return integral(d, INT8_MIN, INT8_MAX) && (*(int8_t *)p = (int8_t)d, true);
    case CUPLUG_TYPE_INT16:
      return integral(d, INT16_MIN, INT16_MAX) && (*(int16_t *)p = (int16_t)d, true);
    case CUPLUG_TYPE_INT32:
      return integral(d, INT32_MIN, INT32_MAX) && (*(int32_t *)p = (int32_t)d, true);
    case CUPLUG_TYPE_INT64:
      return integral(d, -two63, two63) && d < two63 && (*(int64_t *)p = (int64_t)d, true);
    case CUPLUG_TYPE_UINT8: return integral(d, 0, UINT8_MAX) && (*(uint8_t *)p = (uint8_t)d, true);
    case CUPLUG_TYPE_UINT16:
      return integral(d, 0, UINT16_MAX) && (*(uint16_t *)p = (uint16_t)d, true);
    case CUPLUG_TYPE_UINT32:
      return integral(d, 0, UINT32_MAX) && (*(uint32_t *)p = (uint32_t)d, true);
    case CUPLUG_TYPE_UINT64:
      return integral(d, 0, two64) && d < two64 && (*(uint64_t *)p = (uint64_t)d, true);
    case CUPLUG_TYPE_FLOAT32: *(float *)p = (float)d; return true;
    case CUPLUG_TYPE_FLOAT64: *(double *)p = d; return true;
    default: return false;
  }
}

/* Units in the last place between two floats of the same width. */
static double ulps_apart(double a, double b, bool single) {
  if (a == b) return 0;
  if (isnan(a) || isnan(b) || isinf(a) || isinf(b)) return INFINITY;
  int e;
  frexp(fmax(fabs(a), fabs(b)), &e);
  return fabs(a - b) / ldexp(1.0, e - (single ? 24 : 53));
}

/* A C value of kind k as text, for a message. */
static void describe(cuplug_type_kind k, const void *p, char *out, size_t size) {
  switch (k) {
    case CUPLUG_TYPE_BOOL: snprintf(out, size, "%s", *(const uint8_t *)p ? "True" : "False"); break;
    case CUPLUG_TYPE_INT8: snprintf(out, size, "%d", *(const int8_t *)p); break;
    case CUPLUG_TYPE_INT16: snprintf(out, size, "%d", *(const int16_t *)p); break;
    case CUPLUG_TYPE_INT32: snprintf(out, size, "%d", *(const int32_t *)p); break;
    case CUPLUG_TYPE_INT64: snprintf(out, size, "%lld", (long long)*(const int64_t *)p); break;
    case CUPLUG_TYPE_UINT8: snprintf(out, size, "%u", *(const uint8_t *)p); break;
    case CUPLUG_TYPE_UINT16: snprintf(out, size, "%u", *(const uint16_t *)p); break;
    case CUPLUG_TYPE_UINT32: snprintf(out, size, "%u", *(const uint32_t *)p); break;
    case CUPLUG_TYPE_UINT64:
      snprintf(out, size, "%llu", (unsigned long long)*(const uint64_t *)p);
      break;
    case CUPLUG_TYPE_FLOAT32: snprintf(out, size, "%.9g", *(const float *)p); break;
    case CUPLUG_TYPE_FLOAT64: snprintf(out, size, "%.17g", *(const double *)p); break;
    case CUPLUG_TYPE_COMPLEX64:
      snprintf(out, size, "(%.9g%+.9gj)", ((const float *)p)[0], ((const float *)p)[1]);
      break;
    case CUPLUG_TYPE_COMPLEX128:
      snprintf(out, size, "(%.17g%+.17gj)", ((const double *)p)[0], ((const double *)p)[1]);
      break;
    default: snprintf(out, size, "?"); break;
  }
}

bool values_compare(checker *c, cuplug_type_kind k, const void *got, const json *want,
                    const char *where, size_t index) {
  unsigned char expect[16] = {0};
  if (!values_store(k, want, expect)) {
    fprintf(stderr, "cuplug: %s/values.json: %s[%zu]: not a value of its type\n", c->dir, where,
            index);
    c->mismatched++;
    return false;
  }
  size_t n = values_size_of(k);
  c->compared++;
  if (!memcmp(got, expect, n)) {
    c->exact++;
    return true;
  }
  bool single = k == CUPLUG_TYPE_FLOAT32 || k == CUPLUG_TYPE_COMPLEX64;
  bool ok = false;
  double g[2] = {0}, w[2] = {0};
  if (k == CUPLUG_TYPE_FLOAT32 || k == CUPLUG_TYPE_COMPLEX64) {
    for (int i = 0; i < (k == CUPLUG_TYPE_COMPLEX64 ? 2 : 1); i++) {
      g[i] = ((const float *)got)[i];
      w[i] = ((const float *)expect)[i];
    }
  } else if (k == CUPLUG_TYPE_FLOAT64 || k == CUPLUG_TYPE_COMPLEX128) {
    for (int i = 0; i < (k == CUPLUG_TYPE_COMPLEX128 ? 2 : 1); i++) {
      g[i] = ((const double *)got)[i];
      w[i] = ((const double *)expect)[i];
    }
  }
  if (values_size_of(k) && (k == CUPLUG_TYPE_FLOAT32 || k == CUPLUG_TYPE_FLOAT64 ||
                     k == CUPLUG_TYPE_COMPLEX64 || k == CUPLUG_TYPE_COMPLEX128)) {
    bool nan = (isnan(g[0]) && isnan(w[0])) || (isnan(g[1]) && isnan(w[1]));
    ok = nan || (ulps_apart(g[0], w[0], single) <= c->ulps &&
                 ulps_apart(g[1], w[1], single) <= c->ulps);
  }
  if (!ok && c->mismatched++ < 5) {
    char a[96], b[96];
    describe(k, got, a, sizeof a);
    describe(k, expect, b, sizeof b);
    fprintf(stderr, "cuplug: %s: %s[%zu]: the host gave %s, numba-cuda %s\n", c->dir, where,
            index, a, b);
  }
  return ok;
}

void *values_read_buffer(const json *a, cuplug_type_kind *dtype, size_t *count) {
  const json *data = json_get(a, "data");
  cuplug_type_kind dt = dtype_kind(json_string(a, "dtype"));
  if (!data || data->kind != JSON_ARRAY || !values_size_of(dt)) return NULL;
  size_t item = values_size_of(dt);
  char *buf = calloc(data->count ? data->count : 1, item);
  for (size_t e = 0; e < data->count && buf; e++) {
    if (!values_store(dt, data->items[e], buf + e * item)) {
      free(buf);
      return NULL;
    }
  }
  *dtype = dt;
  *count = data->count;
  return buf;
}

static int run_calls(checker *c, cuplug_library *lib, const cuplug_type *sig, const json *calls) {
  const cuplug_api *api = c->api;
  cuplug_type_info si, ri;
  values_kind_of(api, sig, &si);
  values_kind_of(api, si.restype, &ri);
  for (size_t n = 0; n < calls->count; n++) {
    const json *args = json_get(calls->items[n], "args");
    if (!args || args->kind != JSON_ARRAY || args->count != si.num_args || args->count > 64) {
      fprintf(stderr, "cuplug: %s/values.json: calls[%zu] has not %zu args\n", c->dir, n,
              si.num_args);
      return 1;
    }
    uint64_t slots[64][2];
    cuplug_value v[64];
    void *buffers[64] = {0}; /* what a CPointer argument points at */
    bool ok = true;
    for (size_t i = 0; i < args->count && ok; i++) {
      cuplug_type_info ai;
      cuplug_type_kind k = (cuplug_type_kind)values_kind_of(api, si.args[i], &ai);
      if (k == CUPLUG_TYPE_POINTER) {
        cuplug_type_kind dt;
        size_t count;
        ok = (buffers[i] = values_read_buffer(args->items[i], &dt, &count)) != NULL;
        slots[i][0] = (uint64_t)(uintptr_t)buffers[i];
      } else {
        ok = values_store(k, args->items[i], slots[i]);
      }
      if (!ok)
        fprintf(stderr, "cuplug: %s/values.json: calls[%zu].args[%zu] is no %s%s\n", c->dir, n,
                i, ai.name,
                k == CUPLUG_TYPE_POINTER ? " (a pointer's elements: {\"dtype\", \"data\"})" : "");
      v[i] = (cuplug_value){k, slots[i]};
    }
    if (!ok) {
      for (size_t i = 0; i < args->count; i++) free(buffers[i]);
      return 1;
    }
    uint64_t result[2] = {0};
    cuplug_host_call_args a = {.struct_size = sizeof a, .library = lib, .args = v,
                               .num_args = args->count, .result = result,
                               .result_size = sizeof result};
    cuplug_error *e = api->host_call(&a);
    for (size_t i = 0; i < args->count; i++) free(buffers[i]);
    if (e) return values_failed(api, e);
    values_compare(c, ri.kind, result, json_get(calls->items[n], "result"), "calls", n);
  }
  return 0;
}

static bool dims(const json *v, uint32_t out[3]) {
  out[0] = out[1] = out[2] = 1;
  if (!v || v->kind != JSON_ARRAY || !v->count || v->count > 3) return false;
  for (size_t i = 0; i < v->count; i++) {
    if (v->items[i]->kind != JSON_NUMBER || v->items[i]->number < 1) return false;
    out[i] = (uint32_t)v->items[i]->number;
  }
  return true;
}

/* Prints a call's error; returns 1. */
int values_failed(const cuplug_api *api, cuplug_error *e) {
  fprintf(stderr, "cuplug: error: %s: %s\n", api->status_name(api->error_code(e)),
          api->error_message(e));
  api->error_destroy(e);
  return 1;
}

/* One launch of values.json: on the host (gpu NULL), the arrays are the
 * buffers themselves; on the GPU, device copies of them, copied back. */
static int run_launch(checker *c, cuplug_session *gpu, cuplug_kernel *k, const cuplug_type *sig,
                      const json *l, size_t n) {
  const cuplug_api *api = c->api;
  cuplug_type_info si;
  values_kind_of(api, sig, &si);
  const json *args = json_get(l, "args"), *result = json_get(l, "result");
  cuplug_launch_args la = {.struct_size = sizeof la, .kernel = k};
  if (!args || args->kind != JSON_ARRAY || args->count != si.num_args || args->count > 64 ||
      !dims(json_get(l, "grid"), la.grid) || !dims(json_get(l, "block"), la.block)) {
    fprintf(stderr, "cuplug: %s/values.json: launches[%zu] needs grid, block and %zu args\n",
            c->dir, n, si.num_args);
    return 1;
  }
  cuplug_value v[64];
  cuplug_array arrays[64];
  void *buffers[64] = {0};
  uint64_t device[64] = {0};
  uint64_t scalars[64][2];
  int rc = 0;
  for (size_t i = 0; i < args->count && !rc; i++) {
    cuplug_type_info ai;
    cuplug_type_kind kind = (cuplug_type_kind)values_kind_of(api, si.args[i], &ai);
    const json *a = args->items[i];
    if (kind != CUPLUG_TYPE_ARRAY) {
      if (!values_store(kind, a, scalars[i])) rc = 1;
      v[i] = (cuplug_value){kind, scalars[i]};
      continue;
    }
    cuplug_type_kind dt;
    size_t count;
    if (ai.ndim != 1 || !(buffers[i] = values_read_buffer(a, &dt, &count))) {
      rc = 1;
      break;
    }
    arrays[i] = (cuplug_array){.data = (uint64_t)(uintptr_t)buffers[i], .dtype = dt, .ndim = 1,
                               .shape = {(int64_t)count}, .strides = {(int64_t)values_size_of(dt)}};
    v[i] = (cuplug_value){CUPLUG_TYPE_ARRAY, &arrays[i]};
    size_t bytes = (count ? count : 1) * values_size_of(dt);
    cuplug_error *e = NULL;
    if (gpu && !(e = c->api->mem_alloc(gpu, bytes, &device[i])))
      e = c->api->memcpy_to_device(gpu, device[i], buffers[i], bytes);
    if (e) {
      rc = values_failed(c->api, e);
      break;
    }
    if (gpu) arrays[i].data = device[i];
  }
  if (rc) {
    fprintf(stderr, "cuplug: %s/values.json: launches[%zu]: an argument does not match %s\n",
            c->dir, n, si.name);
  } else {
    la.args = v;
    la.num_args = args->count;
    cuplug_error *e = api->launch(&la);
    if (!e && gpu) e = api->synchronize(gpu);
    for (size_t i = 0; !e && gpu && i < args->count; i++)
      if (device[i])
        e = api->memcpy_to_host(gpu, buffers[i], device[i],
                                (size_t)arrays[i].shape[0] * values_size_of(arrays[i].dtype));
    if (e) rc = values_failed(api, e);
  }
  for (size_t i = 0; gpu && i < args->count; i++)
    if (device[i]) api->error_destroy(api->mem_free(gpu, device[i]));
  for (size_t i = 0; !rc && result && i < args->count && i < result->count; i++) {
    const json *want = json_get(result->items[i], "data");
    if (!buffers[i] || !want || want->kind != JSON_ARRAY) continue;
    char where[64];
    snprintf(where, sizeof where, "launches[%zu].result[%zu]", n, i);
    size_t item = values_size_of(arrays[i].dtype);
    for (size_t e = 0; e < want->count && e < (size_t)arrays[i].shape[0]; e++)
      values_compare(c, arrays[i].dtype, (char *)buffers[i] + e * item, want->items[e], where, e);
  }
  for (size_t i = 0; i < args->count; i++) free(buffers[i]);
  return rc;
}

int cli_case_run(const cuplug_api *api, cuplug_session *session, const cuplug_artifact *art,
                 const cli_request *r) {
  const char *dir = r->run_dir;
  char *path = cli_format("%s/values.json", dir);
  size_t size;
  char *text = cli_read_file(path, &size);
  free(path);
  if (!text) {
    fprintf(stderr, "cuplug: error: %s has no values.json (tests/conformance/make_values.py "
                    "makes it on a GPU)\n", dir);
    return 1;
  }
  char err[256];
  json *values = json_parse(text, err, sizeof err);
  free(text);
  if (!values) {
    fprintf(stderr, "cuplug: error: %s/values.json: %s\n", dir, err);
    return 1;
  }
  checker c = {.api = api, .dir = dir};
  const json *ulps = json_get(values, "ulps");
  if (ulps && ulps->kind == JSON_NUMBER) c.ulps = ulps->number;
  cuplug_artifact_info info = {.struct_size = sizeof info};
  api->artifact_info(art, &info);
  const json *calls = json_get(values, "calls"), *launches = json_get(values, "launches");
  bool device = info.kind == CUPLUG_DEVICE_FUNCTION;
  if (device ? !calls || calls->kind != JSON_ARRAY : !launches || launches->kind != JSON_ARRAY) {
    fprintf(stderr, "cuplug: error: %s/values.json has no %s\n", dir,
            device ? "calls" : "launches");
    json_free(values);
    return 1;
  }
  int rc;
  if (device && r->run_gpu) {
    /* no launch reaches a device function: a kernel calls it (values_gpu.c) */
    rc = values_gpu_calls(&c, session, art, r, calls);
  } else {
    cuplug_load_args l = {.struct_size = sizeof l, .session = session, .artifact = art};
    cuplug_error *e = api->load(&l);
    if (e) {
      json_free(values);
      return values_failed(api, e);
    }
    if (device) {
      rc = run_calls(&c, l.library, info.signature, calls);
    } else {
      cuplug_kernel_args k = {.struct_size = sizeof k, .library = l.library};
      rc = (e = api->kernel_get(&k)) ? values_failed(api, e) : 0;
      for (size_t n = 0; !rc && n < launches->count; n++)
        rc = run_launch(&c, r->run_gpu ? session : NULL, k.kernel, info.signature,
                        launches->items[n], n);
    }
    api->library_unload(l.library);
  }
  json_free(values);
  if (!rc && c.mismatched) rc = 1;
  printf("%s: %zu values, %zu as numba-cuda's (%zu bit for bit), %zu differ\n", dir, c.compared,
         c.compared - c.mismatched, c.exact, c.mismatched);
  return rc;
}
