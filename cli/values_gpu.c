/* values_gpu.c - `cuplug case DIR --run gpu` for a device function.  No
 * launch reaches a device function, so a kernel written here calls it, one
 * thread a call of values.json, and stores each result:
 *
 *   void cuplug_case_caller(T0 *a0, ..., R *out, i64 n)     (C ABI)
 *     i = ctaid.x * ntid.x + tid.x;  if (i < n) out[i] = f(a0[i], ...)
 *
 * A CPointer argument is the row values.json gives for each call: the
 * kernel takes the rows and their length, and passes row i.  The function
 * is the case's own build for the GPU (its C-ABI LTO-IR, or the PTX of
 * LLVM's NVPTX backend, which makes no LTO-IR), declared to the session
 * with declare_device, so that cuplug links it into the kernel's cubin
 * with LTO, beside the code the case links (its CUDA C++). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "values.h"

#define CALLER "cuplug_case_caller"
#define MAX_ARGS 16

/* The LLVM type of a C-ABI argument or result of kind k: the memory forms
 * cuplug's wrapper uses (a bool is i8); NULL for what the caller does not
 * write (complex, float16). */
static const char *llvm_type(cuplug_type_kind k) {
  switch (k) {
    case CUPLUG_TYPE_BOOL: case CUPLUG_TYPE_INT8: case CUPLUG_TYPE_UINT8: return "i8";
    case CUPLUG_TYPE_INT16: case CUPLUG_TYPE_UINT16: return "i16";
    case CUPLUG_TYPE_INT32: case CUPLUG_TYPE_UINT32: return "i32";
    case CUPLUG_TYPE_INT64: case CUPLUG_TYPE_UINT64: return "i64";
    case CUPLUG_TYPE_FLOAT32: return "float";
    case CUPLUG_TYPE_FLOAT64: return "double";
    default: return NULL;
  }
}

/* One argument (or the result) of the function, as the caller passes it. */
typedef struct column {
  cuplug_type_info type;   /* the argument's type */
  cuplug_type_info scalar; /* its element's (a pointer's pointee), or itself */
  bool pointer;
  size_t row;     /* a pointer's elements per call */
  char *host;     /* every call's values, one after another */
  uint64_t device;
} column;

/* The caller kernel's IR and its signature, for a function `symbol` of
 * `nargs` columns returning `res`; `target` is the case's target lines. */
static void write_caller(FILE *f, const char *target, const char *symbol, const column *cols,
                         size_t nargs, const column *res, char *sig, size_t cap) {
  size_t n = (size_t)snprintf(sig, cap, "void(");
  fprintf(f, "%s\ndefine void @\"" CALLER "\"(", target);
  for (size_t k = 0; k < nargs; k++) {
    const char *t = llvm_type(cols[k].scalar.kind);
    fprintf(f, "%s* %%\"a%zu\", ", t, k);
    if (cols[k].pointer) fprintf(f, "i64 %%\"a%zu.row\", ", k);
    n += (size_t)snprintf(sig + n, cap - n, "CPointer(%s), %s", cols[k].scalar.name,
                          cols[k].pointer ? "int64, " : "");
  }
  const char *rt = llvm_type(res->type.kind);
  fprintf(f, "%s* %%\"out\", i64 %%\"n\") {\n", rt);
  snprintf(sig + n, cap - n, "CPointer(%s), int64)", res->type.name);
  fprintf(f,
          "entry:\n"
          "  %%\"tid\" = call i32 @\"llvm.nvvm.read.ptx.sreg.tid.x\"()\n"
          "  %%\"ntid\" = call i32 @\"llvm.nvvm.read.ptx.sreg.ntid.x\"()\n"
          "  %%\"ctaid\" = call i32 @\"llvm.nvvm.read.ptx.sreg.ctaid.x\"()\n"
          "  %%\"base\" = mul i32 %%\"ctaid\", %%\"ntid\"\n"
          "  %%\"i32\" = add i32 %%\"base\", %%\"tid\"\n"
          "  %%\"i\" = zext i32 %%\"i32\" to i64\n"
          "  %%\"in\" = icmp slt i64 %%\"i\", %%\"n\"\n"
          "  br i1 %%\"in\", label %%\"call\", label %%\"done\"\n"
          "call:\n");
  for (size_t k = 0; k < nargs; k++) {
    const char *t = llvm_type(cols[k].scalar.kind);
    if (cols[k].pointer) {
      fprintf(f, "  %%\"o%zu\" = mul i64 %%\"i\", %%\"a%zu.row\"\n", k, k);
      fprintf(f, "  %%\"v%zu\" = getelementptr %s, %s* %%\"a%zu\", i64 %%\"o%zu\"\n", k, t, t, k,
              k);
    } else {
      fprintf(f, "  %%\"p%zu\" = getelementptr %s, %s* %%\"a%zu\", i64 %%\"i\"\n", k, t, t, k);
      fprintf(f, "  %%\"v%zu\" = load %s, %s* %%\"p%zu\"\n", k, t, t, k);
    }
  }
  fprintf(f, "  %%\"r\" = call %s @\"%s\"(", rt, symbol);
  for (size_t k = 0; k < nargs; k++)
    fprintf(f, "%s%s%s %%\"v%zu\"", k ? ", " : "", llvm_type(cols[k].scalar.kind),
            cols[k].pointer ? "*" : "", k);
  fprintf(f,
          ")\n"
          "  %%\"po\" = getelementptr %s, %s* %%\"out\", i64 %%\"i\"\n"
          "  store %s %%\"r\", %s* %%\"po\"\n"
          "  br label %%\"done\"\n"
          "done:\n"
          "  ret void\n"
          "}\n\n",
          rt, rt, rt, rt);
  fprintf(f, "declare %s @\"%s\"(", rt, symbol);
  for (size_t k = 0; k < nargs; k++)
    fprintf(f, "%s%s%s", k ? ", " : "", llvm_type(cols[k].scalar.kind),
            cols[k].pointer ? "*" : "");
  fprintf(f,
          ")\n"
          "declare i32 @\"llvm.nvvm.read.ptx.sreg.tid.x\"()\n"
          "declare i32 @\"llvm.nvvm.read.ptx.sreg.ntid.x\"()\n"
          "declare i32 @\"llvm.nvvm.read.ptx.sreg.ctaid.x\"()\n\n"
          "!nvvmir.version = !{!0}\n"
          "!0 = !{i32 2, i32 0, i32 3, i32 2}\n");
}

/* The case's `target triple` and `target datalayout` lines, for the
 * caller (free it). */
static char *target_lines(const char *input) {
  size_t size;
  char *text = cli_read_file(input, &size);
  char *out = calloc(1, text ? size + 1 : 1);
  for (char *line = text; line && *line && out;) {
    size_t len = strcspn(line, "\n");
    if (!strncmp(line, "target ", 7)) strncat(strncat(out, line, len), "\n", 2);
    line += len + (line[len] == '\n');
  }
  free(text);
  return out;
}

/* Reads every call's argument k (and result) into its column; false after
 * saying which value is wrong. */
static bool fill(checker *c, const json *calls, column *col, size_t k, bool result) {
  size_t item = values_size_of(col->scalar.kind);
  for (size_t n = 0; n < calls->count; n++) {
    const json *args = json_get(calls->items[n], "args");
    const json *v = result ? json_get(calls->items[n], "result")
                           : args && args->kind == JSON_ARRAY && k < args->count ? args->items[k]
                                                                                  : NULL;
    bool ok = v != NULL;
    if (ok && col->pointer) {
      cuplug_type_kind dt;
      size_t count;
      char *row = values_read_buffer(v, &dt, &count);
      if (!col->row && row) col->row = count;
      ok = row && dt == col->scalar.kind && count == col->row && count;
      if (ok) {
        if (!col->host) col->host = calloc(calls->count, col->row * item);
        memcpy(col->host + n * col->row * item, row, col->row * item);
      }
      free(row);
    } else if (ok && !result) {
      if (!col->host) col->host = calloc(calls->count ? calls->count : 1, item);
      ok = col->host && values_store(col->scalar.kind, v, col->host + n * item);
    }
    if (!ok) {
      fprintf(stderr, "cuplug: %s/values.json: calls[%zu].%s is no %s%s\n", c->dir, n,
              result ? "result" : "args", col->type.name,
              col->pointer ? " (a pointer's row: {\"dtype\", \"data\"}, every call's as long)"
                           : "");
      return false;
    }
  }
  if (result) col->host = calloc(calls->count ? calls->count : 1, item);
  return col->host != NULL;
}

/* The columns' types: each argument's (and a pointer's element type) and
 * the result's; 1 after saying which one the caller cannot pass. */
static int type_columns(const cuplug_api *api, const cuplug_type_info *si, column *cols) {
  if (si->num_args > MAX_ARGS) {
    fprintf(stderr, "cuplug: error: --run gpu: %zu arguments, more than %d\n", si->num_args,
            MAX_ARGS);
    return 1;
  }
  for (size_t k = 0; k <= si->num_args; k++) {
    column *col = &cols[k];
    values_kind_of(api, k < si->num_args ? si->args[k] : si->restype, &col->type);
    col->pointer = col->type.kind == CUPLUG_TYPE_POINTER && k < si->num_args;
    col->scalar = col->type;
    if (col->pointer) values_kind_of(api, col->type.element, &col->scalar);
    if (!llvm_type(col->scalar.kind)) {
      fprintf(stderr, "cuplug: error: --run gpu: the kernel that calls %s cannot pass %s\n",
              si->name, col->type.name);
      return 1;
    }
  }
  return 0;
}

/* Every column's values from the calls (the result's column only sized). */
static int fill_columns(checker *c, const json *calls, column *cols, size_t nargs) {
  for (size_t k = 0; k <= nargs; k++)
    if (!fill(c, calls, &cols[k], k, k == nargs)) return 1;
  return 0;
}

/* The function declared to the session, with its own build (its C-ABI
 * LTO-IR, or PTX from LLVM's NVPTX backend) as the code to link. */
static int declare_function(const cuplug_api *api, cuplug_session *session,
                            const cuplug_artifact_info *info) {
  cuplug_code_kind kind = info->output == CUPLUG_OUTPUT_PTX ? CUPLUG_CODE_PTX : CUPLUG_CODE_LTOIR;
  cuplug_code own = {.struct_size = sizeof own, .kind = kind, .name = info->symbol,
                     .data = info->data, .size = info->size};
  const cuplug_code *links[] = {&own};
  cuplug_declare_device_args d = {.struct_size = sizeof d,
                                  .registry = api->session_registry(session),
                                  .name = info->symbol, .signature_type = info->signature,
                                  .abi = CUPLUG_ABI_C, .link = links, .num_link = 1};
  cuplug_error *e = api->declare_device(&d);
  return e ? cli_fail(api, e) : 0;
}

/* The caller's IR (free it; NULL when memory ran out) and, in sig, its
 * signature. */
static char *caller_ir(const cli_request *r, const cuplug_artifact_info *info,
                       const column *cols, size_t nargs, size_t *size, char *sig, size_t cap) {
  char *target = target_lines(r->files[0]);
  char *ir = NULL;
  *size = 0;
  FILE *f = open_memstream(&ir, size);
  if (f) {
    write_caller(f, target ? target : "", info->symbol, cols, nargs, &cols[nargs], sig, cap);
    fclose(f);
  }
  free(target);
  return ir;
}

/* The code the caller links: the files of the case's declarations, then
 * the case's own; returns how many. */
static size_t case_links(const cli_request *r, cuplug_code *files, const cuplug_code **links) {
  size_t n = 0;
  for (size_t i = 0; i < r->num_decls; i++)
    for (size_t l = 0; l < r->decls[i].num_links && n < 2 * CLI_MAX_FILES; l++)
      files[n++] = (cuplug_code){.struct_size = sizeof files[0], .path = r->decls[i].links[l]};
  for (size_t i = 0; i < r->num_links && n < 2 * CLI_MAX_FILES; i++)
    files[n++] = (cuplug_code){.struct_size = sizeof files[0], .path = r->links[i]};
  for (size_t i = 0; i < n; i++) links[i] = &files[i];
  return n;
}

/* The caller compiled for this GPU, linked with the function and the code
 * the case links, and loaded: its kernel in *kernel, its library in *lib. */
static int load_caller(const cuplug_api *api, cuplug_session *session, const cli_request *r,
                       const cuplug_artifact_info *info, const column *cols, size_t nargs,
                       cuplug_kernel **kernel, cuplug_library **lib) {
  char sig[1024];
  size_t ir_size;
  char *ir = caller_ir(r, info, cols, nargs, &ir_size, sig, sizeof sig);
  if (!ir) return 1;
  cuplug_code files[2 * CLI_MAX_FILES];
  const cuplug_code *links[2 * CLI_MAX_FILES];
  size_t num_links = case_links(r, files, links);
  cuplug_module m = {sizeof m, "caller.ll", ir, ir_size};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = session, .modules = mods,
                           .num_modules = 1, .entry = CALLER, .signature = sig,
                           .entry_abi = CUPLUG_ABI_C, .kind = CUPLUG_KERNEL,
                           .output = CUPLUG_OUTPUT_CUBIN, .link = links, .num_link = num_links,
                           .flags = CUPLUG_COMPILE_CURRENT_DEVICE};
  cuplug_error *e = api->compile(&a);
  free(ir);
  if (e) return cli_fail(api, e);
  cuplug_load_args l = {.struct_size = sizeof l, .session = session, .artifact = a.artifact};
  e = api->load(&l);
  api->artifact_destroy(a.artifact);
  if (e) return cli_fail(api, e);
  *lib = l.library;
  cuplug_kernel_args k = {.struct_size = sizeof k, .library = l.library};
  if ((e = api->kernel_get(&k))) return cli_fail(api, e);
  *kernel = k.kernel;
  return 0;
}

/* The columns copied to the device, one thread a call launched, and the
 * results copied back into the result's column. */
static int launch_calls(const cuplug_api *api, cuplug_session *session, cuplug_kernel *kernel,
                        column *cols, size_t nargs, size_t n) {
  cuplug_value v[2 * MAX_ARGS + 2];
  int64_t rows[MAX_ARGS], count = (int64_t)n;
  size_t nv = 0;
  cuplug_error *e = NULL;
  for (size_t i = 0; !e && i <= nargs; i++) {
    column *col = &cols[i];
    size_t bytes = (n ? n : 1) * (col->pointer ? col->row : 1) * values_size_of(col->scalar.kind);
    if (!(e = api->mem_alloc(session, bytes, &col->device)) && i < nargs)
      e = api->memcpy_to_device(session, col->device, col->host, bytes);
    v[nv++] = (cuplug_value){CUPLUG_TYPE_POINTER, &col->device};
    if (col->pointer) {
      rows[i] = (int64_t)col->row;
      v[nv++] = (cuplug_value){CUPLUG_TYPE_INT64, &rows[i]};
    }
  }
  v[nv++] = (cuplug_value){CUPLUG_TYPE_INT64, &count};
  cuplug_launch_args la = {.struct_size = sizeof la, .kernel = kernel,
                           .grid = {(uint32_t)((n + 63) / 64), 1, 1}, .block = {64, 1, 1},
                           .args = v, .num_args = nv};
  if (!e && n && !(e = api->launch(&la))) e = api->synchronize(session);
  const column *res = &cols[nargs];
  if (!e) e = api->memcpy_to_host(session, res->host, res->device,
                                  n * values_size_of(res->scalar.kind));
  return e ? cli_fail(api, e) : 0;
}

/* Each call's result against values.json's. */
static void compare_results(checker *c, const json *calls, const column *res) {
  size_t item = values_size_of(res->scalar.kind);
  for (size_t i = 0; i < calls->count; i++)
    values_compare(c, res->scalar.kind, res->host + i * item, json_get(calls->items[i], "result"),
                   "calls", i);
}

int values_gpu_calls(checker *c, cuplug_session *session, const cuplug_artifact *art,
                     const cli_request *r, const json *calls) {
  const cuplug_api *api = c->api;
  cuplug_artifact_info info = {.struct_size = sizeof info};
  cuplug_error *e = api->artifact_info(art, &info);
  if (e) return cli_fail(api, e);
  cuplug_type_info si;
  values_kind_of(api, info.signature, &si);
  size_t nargs = si.num_args;
  column cols[MAX_ARGS + 1] = {0};
  cuplug_kernel *kernel = NULL;
  cuplug_library *lib = NULL;
  int rc = type_columns(api, &si, cols);
  if (!rc) rc = fill_columns(c, calls, cols, nargs);
  if (!rc) rc = declare_function(api, session, &info);
  if (!rc) rc = load_caller(api, session, r, &info, cols, nargs, &kernel, &lib);
  if (!rc) rc = launch_calls(api, session, kernel, cols, nargs, calls->count);
  if (!rc) compare_results(c, calls, &cols[nargs]);
  for (size_t i = 0; i <= nargs && i <= MAX_ARGS; i++) {
    if (cols[i].device) api->error_destroy(api->mem_free(session, cols[i].device));
    free(cols[i].host);
  }
  if (lib) api->library_unload(lib);
  return rc;
}
