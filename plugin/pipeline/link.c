/* link.c - cuplug's linking: gathering the code a cubin is made of, and
 * the public link() call. */
#include "plugin/pipeline/link.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "plugin/compilers/nvjitlink.h"
#include "plugin/compilers/nvrtc.h"
#include "plugin/pipeline/results.h"
#include "plugin/pipeline/timings.h"
#include "plugin/session/artifact.h"

/* ---- gathering ---- */

static cuplug_error *grow(cuplug__link_inputs *in) {
  cuplug__code *v = realloc(in->code, (in->num_code + 1) * sizeof *v);
  if (!v) return cuplug__error_oom();
  in->code = v;
  return NULL;
}

/* Keeps what NVRTC said of one .cu (in numba-cuda's words, which its users
 * look for) for the artifact's warning; takes `log`. */
static cuplug_error *note_nvrtc_log(cuplug__link_inputs *in, const char *name, char *log) {
  cuplug__buf b;
  cuplug__buf_init(&b);
  if (in->nvrtc_log) cuplug__buf_printf(&b, "%s\n", in->nvrtc_log);
  cuplug__buf_printf(&b, "NVRTC log messages whilst compiling %s:\n%s", name, log);
  free(log);
  if (b.oom) {
    cuplug__buf_free(&b);
    return cuplug__error_oom();
  }
  free(in->nvrtc_log);
  in->nvrtc_log = cuplug__buf_take(&b, NULL);
  return NULL;
}

cuplug_error *cuplug__link_add(cuplug__link_inputs *in, const cuplug__code *c) {
  CUPLUG__TRY(grow(in));
  cuplug__code *out = &in->code[in->num_code];
  if (c->kind == CUPLUG_CODE_CU) {
    cuplug__buf headers;
    cuplug__buf_init(&headers);
    cuplug_error *e = cuplug__headers_key(c, in->include_paths, in->num_include_paths, &headers);
    cuplug__nvrtc_options o = {.cc_major = in->cc_major,
                               .cc_minor = in->cc_minor,
                               .ltoir = in->ltoir,
                               .debug = in->debug,
                               .lineinfo = in->lineinfo,
                               .include_paths = in->include_paths,
                               .num_include_paths = in->num_include_paths,
                               .headers = headers.data,
                               .headers_size = headers.len,
                               .time_limit_ms = in->time_limit_ms};
    memcpy(o.cc_suffix, in->cc_suffix, sizeof o.cc_suffix);
    char *log = NULL;
    if (!e) e = cuplug__nvrtc_compile(&in->session->runner, &in->session->nvrtc, c, &o, out, &log);
    cuplug__buf_free(&headers);
    if (!e && log && (e = note_nvrtc_log(in, c->name, log))) cuplug__code_free(out);
    if (e) return e;
  } else {
    CUPLUG__TRY(cuplug__code_make(c->kind, c->name, c->data, c->size, out));
  }
  in->num_code++;
  return NULL;
}

cuplug_error *cuplug__link_add_caller(cuplug__link_inputs *in, const cuplug_code *const *code,
                                      size_t n) {
  for (size_t i = 0; i < n; i++) {
    cuplug__code c;
    CUPLUG__TRY(cuplug__code_import(code[i], i, &c));
    cuplug_error *e = cuplug__link_add(in, &c);
    cuplug__code_free(&c);
    if (e) return e;
  }
  return NULL;
}

cuplug_error *cuplug__link_add_cudadevrt(cuplug__link_inputs *in) {
  const void *rt;
  size_t size;
  CUPLUG__TRY(cuplug__toolkit_cudadevrt(&in->session->toolkit, &rt, &size));
  cuplug__code devrt = {CUPLUG_CODE_ARCHIVE, "libcudadevrt.a", (char *)rt, size};
  return cuplug__link_add(in, &devrt);
}

cuplug_error *cuplug__link_run(cuplug__link_inputs *in, bool lto, uint32_t max_registers,
                               bool want_ptx, cuplug_artifact *art) {
  cuplug__link_options o = {.cc_major = in->cc_major,
                            .cc_minor = in->cc_minor,
                            .lto = lto,
                            .debug = in->debug,
                            .lineinfo = in->lineinfo,
                            .max_registers = max_registers,
                            .time_limit_ms = in->time_limit_ms};
  memcpy(o.cc_suffix, in->cc_suffix, sizeof o.cc_suffix);
  cuplug__code cubin, ptx;
  char *log;
  CUPLUG__TRY(cuplug__nvjitlink_link(&in->session->runner, in->code, in->num_code, &o, &cubin,
                                     want_ptx ? &ptx : NULL, &log, &in->linked));
  if (!cuplug__cubin_has_kernel(cubin.data, cubin.size)) {
    cuplug__code_free(&cubin);
    if (want_ptx) cuplug__code_free(&ptx);
    free(log);
    return cuplug__error(CUPLUG_ERR_LINK,
                         "the cubin holds no kernel: nvJitLink keeps only kernels and what they "
                         "call; link the device code with a kernel that calls it");
  }
  for (size_t i = 0; i < art->num_parts; i++) cuplug__code_free(&art->parts[i]);
  art->num_parts = 0;
  free(art->link_log);
  art->link_log = log;
  cuplug_error *e = cuplug__artifact_add_part(art, &cubin);
  if (want_ptx) {
    if (!e) e = cuplug__artifact_add_part(art, &ptx);
    cuplug__code_free(&ptx);
  }
  art->output = CUPLUG_OUTPUT_CUBIN;
  if (!e && in->nvrtc_log)
    e = cuplug__artifact_warn(art, cuplug__error(CUPLUG_WARN_NVRTC_LOG, "%s", in->nvrtc_log));
  return e;
}

void cuplug__link_inputs_free(cuplug__link_inputs *in) {
  for (size_t i = 0; i < in->num_code; i++) cuplug__code_free(&in->code[i]);
  free(in->code);
  in->code = NULL;
  in->num_code = 0;
  free(in->nvrtc_log);
  in->nvrtc_log = NULL;
}

/* ---- link() ---- */

static cuplug_error *check(const cuplug_link_args *a) {
  if (!a->session) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "link: session is NULL");
  if ((a->num_code && !a->code) || (a->num_artifacts && !a->artifacts) ||
      (a->num_include_paths && !a->include_paths))
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "link: a count without its array");
  if (!a->num_code && !a->num_artifacts)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "link: nothing to link");
  for (size_t i = 0; i < a->num_artifacts; i++)
    if (!a->artifacts[i])
      return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "link: artifact %zu is NULL", i);
  if (a->flags & ~(uint32_t)CUPLUG_LINK_NO_CACHE)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "link: unknown flags 0x%x",
                         a->flags & ~(uint32_t)CUPLUG_LINK_NO_CACHE);
  if (a->cc_suffix && !a->cc_major)
    return cuplug__error(CUPLUG_ERR_OPTION_CC,
                         "link: cc_suffix without cc_major (the artifacts' cc brings its own)");
  return cuplug__check_cc_suffix(a->cc_suffix);
}

/* The cc and register limit: given, else the artifacts' (the first one's
 * cc, the largest limit), else the session's default cc and none. */
static cuplug_error *choose(const cuplug_link_args *a, cuplug__link_inputs *in,
                            uint32_t *max_registers) {
  uint32_t major = a->cc_major, minor = a->cc_minor, regs = a->max_registers;
  char suffix = major ? (char)a->cc_suffix : 0;
  for (size_t i = 0; i < a->num_artifacts; i++) {
    const cuplug_artifact *art = a->artifacts[i];
    if (!major) {
      major = art->cc_major;
      minor = art->cc_minor;
      suffix = art->cc_suffix[0];
    }
    if (!a->max_registers && art->max_registers > regs) regs = art->max_registers;
  }
  *max_registers = regs;
  cuplug__cc cc;
  CUPLUG__TRY(cuplug__session_cc(a->session, major, minor, suffix, &cc));
  in->cc_major = cc.major;
  in->cc_minor = cc.minor;
  memcpy(in->cc_suffix, cc.suffix, sizeof in->cc_suffix);
  return NULL;
}

static bool is_cooperative(const cuplug_link_args *a) {
  bool cooperative = a->use_cooperative != 0;
  for (size_t i = 0; i < a->num_artifacts; i++) cooperative |= a->artifacts[i]->cooperative;
  return cooperative;
}

/* Every part of the artifacts (but the PTX a cubin artifact keeps beside
 * its cubin), then the caller's code, then cudadevrt when needed. */
static cuplug_error *gather(const cuplug_link_args *a, cuplug__link_inputs *in) {
  for (size_t i = 0; i < a->num_artifacts; i++) {
    const cuplug_artifact *art = a->artifacts[i];
    for (size_t p = 0; p < art->num_parts; p++) {
      const cuplug__code *c = &art->parts[p];
      if (art->output == CUPLUG_OUTPUT_CUBIN && c->kind == CUPLUG_CODE_PTX) continue;
      CUPLUG__TRY(cuplug__link_add(in, c));
    }
  }
  CUPLUG__TRY(cuplug__link_add_caller(in, a->code, a->num_code));
  return is_cooperative(a) ? cuplug__link_add_cudadevrt(in) : NULL;
}

/* What the cubin artifact says about itself: every kernel it took in, and
 * the kernel as its symbol and signature when there is exactly one. */
static cuplug_error *fill(const cuplug_link_args *a, const cuplug__link_inputs *in,
                          uint32_t max_registers, cuplug_artifact *art) {
  art->cc_major = in->cc_major;
  art->cc_minor = in->cc_minor;
  memcpy(art->cc_suffix, in->cc_suffix, sizeof art->cc_suffix);
  art->max_registers = max_registers;
  art->lineinfo = a->lineinfo != 0;
  art->cooperative = is_cooperative(a);
  for (size_t i = 0; i < a->num_artifacts; i++) {
    const cuplug_artifact *from = a->artifacts[i];
    for (size_t k = 0; k < from->num_kernels; k++)
      CUPLUG__TRY(cuplug__artifact_add_kernel(art, from->kernels[k].symbol,
                                              from->kernels[k].signature,
                                              from->kernels[k].debug));
  }
  if (art->num_kernels) art->kind = CUPLUG_KERNEL;
  if (art->num_kernels == 1) {
    art->symbol = cuplug__strdup(art->kernels[0].symbol);
    art->signature = art->kernels[0].signature;
    art->debug = art->kernels[0].debug;
    if (!art->symbol) return cuplug__error_oom();
  }
  return NULL;
}

cuplug_error *cuplug__link_api(cuplug_link_args *a) {
  CUPLUG__TRY(check(a));
  cuplug__link_inputs in = {.session = a->session,
                            .ltoir = !a->no_lto && !a->debug,
                            .debug = a->debug != 0,
                            .lineinfo = a->lineinfo != 0,
                            .include_paths = a->include_paths,
                            .num_include_paths = a->num_include_paths,
                            .time_limit_ms = a->time_limit_ms};
  /* the result cache first: a link's key is its arguments as given */
  bool keyed = cuplug__cache_on(a->session->cache) && !(a->flags & CUPLUG_LINK_NO_CACHE);
  cuplug__timings times;
  cuplug__timings_start(&times);
  cuplug__buf key_bytes;
  cuplug__buf_init(&key_bytes);
  cuplug__cache_key key;
  cuplug_error *note = NULL;
  cuplug_error *e = keyed ? cuplug__link_key(a, &key_bytes) : NULL;
  if (e) {
    cuplug__buf_free(&key_bytes);
    return e;
  }
  if (keyed) cuplug__cache_key_init(&key, key_bytes.data, key_bytes.len);
  cuplug_artifact *art = keyed ? cuplug__fetch_result(a->session, &key, &note) : NULL;
  cuplug__timings_end(&times, "look_up", NULL);
  if (art) {
    if (note) cuplug__error_destroy(cuplug__artifact_warn(art, note));
    cuplug__buf_free(&key_bytes);
    cuplug__timings_keep(&times, art);
    a->artifact = art;
    return NULL;
  }
  uint32_t max_registers;
  e = choose(a, &in, &max_registers);
  art = e ? NULL : cuplug__artifact_new();
  if (!e && !art) e = cuplug__error_oom();
  cuplug__timings_end(&times, "choose_cc", NULL);
  if (!e) e = gather(a, &in);
  cuplug__timings_end(&times, "gather_code", NULL);
  if (!e) e = cuplug__link_run(&in, in.ltoir, max_registers, a->want_ptx != 0, art);
  cuplug__timings_end(&times, "run_nvjitlink", e ? NULL : &in.linked);
  if (!e) e = fill(a, &in, max_registers, art);
  cuplug__link_inputs_free(&in);
  cuplug__timings_end(&times, "describe", NULL);
  if (!e && keyed) cuplug__keep_result(a->session, &key, art, note);
  cuplug__timings_end(&times, "keep", NULL);
  if (!e) cuplug__timings_keep(&times, art);
  cuplug__buf_free(&key_bytes);
  if (e) {
    cuplug__error_destroy(note);
    cuplug__artifact_destroy(art);
    return e;
  }
  a->artifact = art;
  return NULL;
}
