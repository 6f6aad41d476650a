/* values_run.c - `cuplug case DIR --run host|gpu`: a conformance case run on
 * this CPU (or, from cuplug's GPU build, on the GPU; a device function's
 * calls there through values_gpu.c) with the inputs of DIR/values.json, its
 * results compared (values.c) with the outputs numba-cuda gave for them on
 * a GPU (tests/conformance/make_values.py writes the file):
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
 * at, written as an array: {"dtype": "float32", "data": [...]}.  On the
 * CPU, Ctrl-C stops the run (sigint.c). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "sigint.h"
#include "values.h"

#define MAX_ARGS 64

/* ---- a device function's calls, on the host ---- */

/* Call n's arguments from values.json: a scalar in its slot, a CPointer's
 * elements in a buffer (free them); false after saying which is wrong. */
static bool read_call_args(checker *c, const cuplug_type_info *si, const json *args, size_t n,
                           uint64_t (*slots)[2], void **buffers, cuplug_value *v) {
  for (size_t i = 0; i < args->count; i++) {
    cuplug_type_info ai;
    cuplug_type_kind k = (cuplug_type_kind)values_kind_of(c->api, si->args[i], &ai);
    bool ok;
    if (k == CUPLUG_TYPE_POINTER) {
      cuplug_type_kind dt;
      size_t count;
      ok = (buffers[i] = values_read_buffer(args->items[i], &dt, &count)) != NULL;
      slots[i][0] = (uint64_t)(uintptr_t)buffers[i];
    } else {
      ok = values_store(k, args->items[i], slots[i]);
    }
    v[i] = (cuplug_value){k, slots[i]};
    if (!ok) {
      fprintf(stderr, "cuplug: %s/values.json: calls[%zu].args[%zu] is no %s%s\n", c->dir, n,
              i, ai.name,
              k == CUPLUG_TYPE_POINTER ? " (a pointer's elements: {\"dtype\", \"data\"})" : "");
      return false;
    }
  }
  return true;
}

static int run_calls(checker *c, cuplug_library *lib, const cuplug_type *sig, const json *calls) {
  const cuplug_api *api = c->api;
  cuplug_type_info si, ri;
  values_kind_of(api, sig, &si);
  values_kind_of(api, si.restype, &ri);
  for (size_t n = 0; n < calls->count; n++) {
    const json *args = json_get(calls->items[n], "args");
    if (!args || args->kind != JSON_ARRAY || args->count != si.num_args ||
        args->count > MAX_ARGS) {
      fprintf(stderr, "cuplug: %s/values.json: calls[%zu] has not %zu args\n", c->dir, n,
              si.num_args);
      return 1;
    }
    uint64_t slots[MAX_ARGS][2];
    cuplug_value v[MAX_ARGS];
    void *buffers[MAX_ARGS] = {0}; /* what a CPointer argument points at */
    if (!read_call_args(c, &si, args, n, slots, buffers, v)) {
      for (size_t i = 0; i < args->count; i++) free(buffers[i]);
      return 1;
    }
    uint64_t result[2] = {0};
    cuplug_host_call_args a = {.struct_size = sizeof a, .library = lib, .args = v,
                               .num_args = args->count, .result = result,
                               .result_size = sizeof result, .interrupt = cli_sigint_flag};
    cuplug_error *e = api->host_call(&a);
    for (size_t i = 0; i < args->count; i++) free(buffers[i]);
    if (e) return cli_run_fail(api, e);
    values_compare(c, ri.kind, result, json_get(calls->items[n], "result"), "calls", n);
  }
  return 0;
}

/* ---- a kernel's launches, on the host or the GPU ---- */

/* One launch's arguments and the memory they hold. */
typedef struct launch_data {
  cuplug_value v[MAX_ARGS];
  cuplug_array arrays[MAX_ARGS];
  void *buffers[MAX_ARGS];  /* an array's elements on the host */
  uint64_t device[MAX_ARGS]; /* and their copy on the GPU */
  uint64_t scalars[MAX_ARGS][2];
} launch_data;

static bool dims(const json *v, uint32_t out[3]) {
  out[0] = out[1] = out[2] = 1;
  if (!v || v->kind != JSON_ARRAY || !v->count || v->count > 3) return false;
  for (size_t i = 0; i < v->count; i++) {
    if (v->items[i]->kind != JSON_NUMBER || v->items[i]->number < 1) return false;
    out[i] = (uint32_t)v->items[i]->number;
  }
  return true;
}

/* Argument i from values.json: a scalar in its slot, an array's elements in
 * a buffer, which on the GPU (gpu not NULL) is copied to device memory that
 * the argument points at. */
static int read_launch_arg(checker *c, cuplug_session *gpu, const cuplug_type *t, const json *a,
                           launch_data *d, size_t i) {
  const cuplug_api *api = c->api;
  cuplug_type_info ai;
  cuplug_type_kind kind = (cuplug_type_kind)values_kind_of(api, t, &ai);
  if (kind != CUPLUG_TYPE_ARRAY) {
    d->v[i] = (cuplug_value){kind, d->scalars[i]};
    return !values_store(kind, a, d->scalars[i]);
  }
  cuplug_type_kind dt;
  size_t count;
  if (ai.ndim != 1 || !(d->buffers[i] = values_read_buffer(a, &dt, &count))) return 1;
  size_t item = values_size_of(dt);
  d->arrays[i] = (cuplug_array){.data = (uint64_t)(uintptr_t)d->buffers[i], .dtype = dt,
                                .ndim = 1, .shape = {(int64_t)count}, .strides = {(int64_t)item}};
  d->v[i] = (cuplug_value){CUPLUG_TYPE_ARRAY, &d->arrays[i]};
  if (!gpu) return 0;
  size_t bytes = (count ? count : 1) * item;
  cuplug_error *e = api->mem_alloc(gpu, bytes, &d->device[i]);
  if (!e) e = api->memcpy_to_device(gpu, d->device[i], d->buffers[i], bytes);
  if (e) return cli_fail(api, e);
  d->arrays[i].data = d->device[i];
  return 0;
}

/* The launch; on the GPU, waited for and its arrays copied back. */
static int launch(const cuplug_api *api, cuplug_session *gpu, cuplug_launch_args *la,
                  launch_data *d) {
  la->args = d->v;
  la->interrupt = cli_sigint_flag;
  cuplug_error *e = api->launch(la);
  if (!e && gpu) e = api->synchronize(gpu);
  for (size_t i = 0; !e && gpu && i < la->num_args; i++)
    if (d->device[i])
      e = api->memcpy_to_host(gpu, d->buffers[i], d->device[i],
                              (size_t)d->arrays[i].shape[0] * values_size_of(d->arrays[i].dtype));
  return e ? cli_run_fail(api, e) : 0;
}

/* Every array after launch n against the result's elements. */
static void compare_arrays(checker *c, const json *result, const launch_data *d, size_t nargs,
                           size_t n) {
  for (size_t i = 0; result && i < nargs && i < result->count; i++) {
    const json *want = json_get(result->items[i], "data");
    if (!d->buffers[i] || !want || want->kind != JSON_ARRAY) continue;
    char where[64];
    snprintf(where, sizeof where, "launches[%zu].result[%zu]", n, i);
    size_t item = values_size_of(d->arrays[i].dtype);
    for (size_t e = 0; e < want->count && e < (size_t)d->arrays[i].shape[0]; e++)
      values_compare(c, d->arrays[i].dtype, (char *)d->buffers[i] + e * item, want->items[e],
                     where, e);
  }
}

/* Launch n of values.json: on the host (gpu NULL), the arrays are the
 * buffers themselves; on the GPU, device copies of them, copied back. */
static int run_launch(checker *c, cuplug_session *gpu, cuplug_kernel *k, const cuplug_type *sig,
                      const json *l, size_t n) {
  const cuplug_api *api = c->api;
  cuplug_type_info si;
  values_kind_of(api, sig, &si);
  const json *args = json_get(l, "args"), *result = json_get(l, "result");
  cuplug_launch_args la = {.struct_size = sizeof la, .kernel = k};
  if (!args || args->kind != JSON_ARRAY || args->count != si.num_args ||
      args->count > MAX_ARGS || !dims(json_get(l, "grid"), la.grid) ||
      !dims(json_get(l, "block"), la.block)) {
    fprintf(stderr, "cuplug: %s/values.json: launches[%zu] needs grid, block and %zu args\n",
            c->dir, n, si.num_args);
    return 1;
  }
  la.num_args = args->count;
  launch_data d = {0};
  int rc = 0;
  for (size_t i = 0; i < args->count && !rc; i++)
    rc = read_launch_arg(c, gpu, si.args[i], args->items[i], &d, i);
  if (rc)
    fprintf(stderr, "cuplug: %s/values.json: launches[%zu]: an argument does not match %s\n",
            c->dir, n, si.name);
  else
    rc = launch(api, gpu, &la, &d);
  for (size_t i = 0; gpu && i < args->count; i++)
    if (d.device[i]) api->error_destroy(api->mem_free(gpu, d.device[i]));
  if (!rc) compare_arrays(c, result, &d, args->count, n);
  for (size_t i = 0; i < args->count; i++) free(d.buffers[i]);
  return rc;
}

static int run_launches(checker *c, cuplug_session *gpu, cuplug_library *lib,
                        const cuplug_type *sig, const json *launches) {
  cuplug_kernel_args k = {.struct_size = sizeof k, .library = lib};
  cuplug_error *e = c->api->kernel_get(&k);
  if (e) return cli_fail(c->api, e);
  int rc = 0;
  for (size_t n = 0; !rc && n < launches->count; n++)
    rc = run_launch(c, gpu, k.kernel, sig, launches->items[n], n);
  return rc;
}

/* ---- the case ---- */

/* DIR/values.json, with the calls (a device function's) or the launches
 * (a kernel's) to run; NULL after saying why there is none. */
static json *read_values(const cuplug_api *api, const char *dir, bool device) {
  char *path = cli_format("%s/values.json", dir);
  size_t size;
  char *text = cli_read_file(path, &size);
  if (!text && errno == ENOENT)
    fprintf(stderr, "cuplug: error: %s has no values.json (tests/conformance/make_values.py "
                    "makes it on a GPU)\n", dir);
  else if (!text)
    cli_io_error(api, "cannot read %s: %s", path, strerror(errno));
  free(path);
  if (!text) return NULL;
  char err[256];
  json *values = json_parse(text, err, sizeof err);
  free(text);
  if (!values) {
    fprintf(stderr, "cuplug: error: %s/values.json: %s\n", dir, err);
    return NULL;
  }
  const json *runs = json_get(values, device ? "calls" : "launches");
  if (!runs || runs->kind != JSON_ARRAY) {
    fprintf(stderr, "cuplug: error: %s/values.json has no %s\n", dir,
            device ? "calls" : "launches");
    json_free(values);
    return NULL;
  }
  return values;
}

/* The artifact loaded and run: a device function's calls on the host, or a
 * kernel's launches (on the GPU with r->run_gpu); *ran false when it could
 * not be loaded. */
static int load_and_run(checker *c, cuplug_session *session, const cuplug_artifact *art,
                        const cuplug_artifact_info *info, const cli_request *r,
                        const json *values, bool *ran) {
  const cuplug_api *api = c->api;
  cuplug_load_args l = {.struct_size = sizeof l, .session = session, .artifact = art};
  cuplug_error *e = api->load(&l);
  *ran = !e;
  if (e) return cli_fail(api, e);
  cli_sigint_catch();
  int rc = info->kind == CUPLUG_DEVICE_FUNCTION
               ? run_calls(c, l.library, info->signature, json_get(values, "calls"))
               : run_launches(c, r->run_gpu ? session : NULL, l.library, info->signature,
                              json_get(values, "launches"));
  cli_sigint_release();
  api->library_unload(l.library);
  return rc;
}

int cli_case_run(const cuplug_api *api, cuplug_session *session, const cuplug_artifact *art,
                 const cli_request *r) {
  cuplug_artifact_info info = {.struct_size = sizeof info};
  api->artifact_info(art, &info);
  bool device = info.kind == CUPLUG_DEVICE_FUNCTION;
  const char *dir = r->run_dir;
  json *values = read_values(api, dir, device);
  if (!values) return 1;
  checker c = {.api = api, .dir = dir};
  const json *ulps = json_get(values, "ulps");
  if (ulps && ulps->kind == JSON_NUMBER) c.ulps = ulps->number;
  bool ran = true;
  int rc;
  if (device && r->run_gpu) /* no launch reaches a device function: a kernel calls it */
    rc = values_gpu_calls(&c, session, art, r, json_get(values, "calls"));
  else
    rc = load_and_run(&c, session, art, &info, r, values, &ran);
  json_free(values);
  if (!ran) return rc;
  if (!rc && c.mismatched) rc = 1;
  printf("%s: %zu values, %zu as numba-cuda's (%zu bit for bit), %zu differ\n", dir, c.compared,
         c.compared - c.mismatched, c.exact, c.mismatched);
  return rc;
}
