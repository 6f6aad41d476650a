/* tool.c - running a toolkit job in this process.
 *
 * This is the one place that calls libNVVM, NVRTC, nvJitLink and LLVM's
 * NVPTX backend to do work; the helper process runs the same code on the
 * jobs it is sent. */
#include "plugin/toolkit/tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/error.h"
#include "plugin/toolkit/log.h"

void cuplug__tool_output_free(cuplug__tool_output *out) {
  free(out->data);
  free(out->log);
  memset(out, 0, sizeof *out);
}

const char *cuplug__tool_name(cuplug__tool tool) {
  switch (tool) {
    case CUPLUG__TOOL_NVVM: return "libNVVM";
    case CUPLUG__TOOL_NVRTC: return "NVRTC";
    case CUPLUG__TOOL_NVJITLINK: return "nvJitLink";
    case CUPLUG__TOOL_NVPTX: return "LLVM's NVPTX backend";
  }
  return "the toolkit";
}

/* A result of `size` bytes read by `read` into a buffer one longer and
 * NUL-terminated; text (PTX) loses the NUL the library counts. */
static bool take_bytes(char *bytes, size_t size, bool text, cuplug__tool_output *out) {
  if (!bytes) return false;
  bytes[size] = '\0';
  out->data = bytes;
  out->size = text ? strnlen(bytes, size) : size;
  return true;
}

/* ---- libNVVM ---- */

static char *nvvm_log(const cuplug__nvvm_api *nvvm, cuplug__nvvm_prog prog) {
  size_t n = 0;
  if (nvvm->log_size(prog, &n) || n == 0) return cuplug__strdup("");
  char *log = malloc(n + 1);
  if (log && nvvm->log(prog, log)) log[0] = '\0';
  return cuplug__log_finish(log, n);
}

static cuplug_error *nvvm_add(cuplug__toolkit *tk, const cuplug__nvvm_api *nvvm,
                              cuplug__nvvm_prog prog, const cuplug__tool_job *job) {
  for (size_t i = 0; i < job->num_inputs; i++) {
    const cuplug__tool_input *m = &job->inputs[i];
    int rc = nvvm->add_module(prog, m->data, m->size, m->name);
    if (rc) {
      char *log = nvvm_log(nvvm, prog);
      cuplug_error *e = cuplug__error_log(CUPLUG_ERR_NVVM, log, "libNVVM rejected module %s: %s",
                                          m->name, nvvm->error_string(rc));
      free(log);
      return e;
    }
  }
  if (!job->libdevice) return NULL;
  const char *libdevice;
  size_t size;
  CUPLUG__TRY(cuplug__toolkit_libdevice(tk, &libdevice, &size));
  int rc = nvvm->lazy_add_module(prog, libdevice, size, "libdevice");
  if (rc)
    return cuplug__error(CUPLUG_ERR_NVVM, "libNVVM rejected libdevice: %s",
                         nvvm->error_string(rc));
  return NULL;
}

static cuplug_error *nvvm_result(const cuplug__nvvm_api *nvvm, cuplug__nvvm_prog prog,
                                 bool ltoir, cuplug__tool_output *out) {
  size_t size = 0;
  if (nvvm->result_size(prog, &size)) return cuplug__error(CUPLUG_ERR_NVVM, "cannot read libNVVM's result");
  char *bytes = malloc(size + 1);
  if (!bytes) return cuplug__error_oom();
  if (nvvm->result(prog, bytes)) {
    free(bytes);
    return cuplug__error(CUPLUG_ERR_NVVM, "cannot read libNVVM's result");
  }
  take_bytes(bytes, size, !ltoir, out);
  return NULL;
}

static bool has_option(const cuplug__tool_job *job, const char *option) {
  for (size_t i = 0; i < job->num_options; i++)
    if (strcmp(job->options[i], option) == 0) return true;
  return false;
}

static cuplug_error *run_nvvm(cuplug__toolkit *tk, const cuplug__tool_job *job,
                              cuplug__tool_output *out) {
  const cuplug__nvvm_api *nvvm;
  CUPLUG__TRY(cuplug__toolkit_nvvm(tk, &nvvm));
  cuplug__nvvm_prog prog = NULL;
  int rc = nvvm->create(&prog);
  if (rc)
    return cuplug__error(CUPLUG_ERR_NVVM, "nvvmCreateProgram failed: %s", nvvm->error_string(rc));
  cuplug_error *e = nvvm_add(tk, nvvm, prog, job);
  if (!e) {
    rc = nvvm->compile(prog, (int)job->num_options, (const char **)job->options);
    out->log = nvvm_log(nvvm, prog);
    if (rc) {
      char line[512];
      cuplug__log_first_error(out->log ? out->log : "", line, sizeof line);
      e = cuplug__error_log(CUPLUG_ERR_NVVM, out->log, "libNVVM failed to compile (%s): %s",
                            nvvm->error_string(rc), line);
    } else {
      e = out->log ? nvvm_result(nvvm, prog, has_option(job, "-gen-lto"), out)
                   : cuplug__error_oom();
    }
  }
  nvvm->destroy(&prog);
  return e;
}

/* ---- NVRTC ---- */

static char *nvrtc_log(const cuplug__nvrtc_api *nvrtc, cuplug__nvrtc_prog prog) {
  size_t n = 0;
  if (nvrtc->log_size(prog, &n) || n <= 1) return cuplug__strdup("");
  char *log = malloc(n + 1);
  if (log && nvrtc->log(prog, log)) log[0] = '\0';
  return cuplug__log_finish(log, n);
}

static cuplug_error *run_nvrtc(cuplug__toolkit *tk, const cuplug__tool_job *job,
                               cuplug__tool_output *out) {
  const cuplug__nvrtc_api *nvrtc;
  CUPLUG__TRY(cuplug__toolkit_nvrtc(tk, &nvrtc));
  if (job->num_inputs != 1)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "NVRTC compiles one source at a time");
  const cuplug__tool_input *cu = &job->inputs[0];
  /* NVRTC reads the source as a C string: the caller's bytes may hold none */
  char *source = cuplug__strndup(cu->data, cu->size);
  if (!source) return cuplug__error_oom();
  cuplug__nvrtc_prog prog = NULL;
  int rc = nvrtc->create(&prog, source, cu->name, 0, NULL, NULL);
  free(source);
  if (rc)
    return cuplug__error(CUPLUG_ERR_NVRTC, "NVRTC cannot take %s: %s", cu->name,
                         nvrtc->error_string(rc));
  rc = nvrtc->compile(prog, (int)job->num_options, job->options);
  out->log = nvrtc_log(nvrtc, prog);
  cuplug_error *e = NULL;
  if (!out->log) {
    e = cuplug__error_oom();
  } else if (rc) {
    char line[512];
    cuplug__log_first_error(out->log, line, sizeof line);
    e = cuplug__error_log(CUPLUG_ERR_NVRTC, out->log, "NVRTC failed to compile %s: %s",
                          cu->name, line);
  } else {
    size_t size = 0;
    rc = job->ptx ? nvrtc->ptx_size(prog, &size) : nvrtc->ltoir_size(prog, &size);
    char *bytes = rc ? NULL : malloc(size + 1);
    if (!bytes || (job->ptx ? nvrtc->ptx(prog, bytes) : nvrtc->ltoir(prog, bytes))) {
      free(bytes);
      e = cuplug__error(CUPLUG_ERR_NVRTC, "cannot read NVRTC's output for %s", cu->name);
    } else {
      take_bytes(bytes, size, job->ptx, out);
    }
  }
  nvrtc->destroy(&prog);
  return e;
}

/* ---- nvJitLink ---- */

static char *nvjitlink_log(const cuplug__nvjitlink_api *jl, cuplug__nvjitlink h, bool errors) {
  size_t n = 0;
  if ((errors ? jl->error_log_size(h, &n) : jl->info_log_size(h, &n)) || n <= 1)
    return cuplug__strdup("");
  char *log = malloc(n + 1);
  if (log && (errors ? jl->error_log(h, log) : jl->info_log(h, log))) log[0] = '\0';
  return cuplug__log_finish(log, n);
}

/* A failure of nvJitLink: its error log, the first error as the message. */
static cuplug_error *nvjitlink_error(const cuplug__nvjitlink_api *jl, cuplug__nvjitlink h,
                                     const char *what) {
  char *log = nvjitlink_log(jl, h, true);
  char line[512];
  cuplug__log_first_error(log ? log : "", line, sizeof line);
  cuplug_error *e = cuplug__error_log(CUPLUG_ERR_LINK, log, "%s: %s", what, line);
  free(log);
  return e;
}

static cuplug_error *nvjitlink_result(const cuplug__nvjitlink_api *jl, cuplug__nvjitlink h,
                                      bool ptx, cuplug__tool_output *out) {
  size_t size = 0;
  int rc = ptx ? jl->ptx_size(h, &size) : jl->cubin_size(h, &size);
  char *bytes = rc ? NULL : malloc(size + 1);
  if (!bytes || (ptx ? jl->ptx(h, bytes) : jl->cubin(h, bytes))) {
    free(bytes);
    return cuplug__error(CUPLUG_ERR_LINK, "cannot read nvJitLink's %s", ptx ? "PTX" : "cubin");
  }
  take_bytes(bytes, size, ptx, out);
  out->log = nvjitlink_log(jl, h, false);
  return out->log ? NULL : cuplug__error_oom();
}

/* An nvJitLink input kind by cuplug's name for it. */
static const char *input_kind_name(uint32_t kind) {
  switch (kind) {
    case CUPLUG__NVJL_CUBIN: return "cubin";
    case CUPLUG__NVJL_PTX: return "ptx";
    case CUPLUG__NVJL_LTOIR: return "ltoir";
    case CUPLUG__NVJL_FATBIN: return "fatbin";
    case CUPLUG__NVJL_OBJECT: return "object";
    case CUPLUG__NVJL_LIBRARY: return "archive";
  }
  return "unknown";
}

static cuplug_error *run_nvjitlink(cuplug__toolkit *tk, const cuplug__tool_job *job,
                                   cuplug__tool_output *out) {
  const cuplug__nvjitlink_api *jl;
  CUPLUG__TRY(cuplug__toolkit_nvjitlink(tk, &jl));
  cuplug__nvjitlink h = NULL;
  int rc = jl->create(&h, (uint32_t)job->num_options, (const char **)job->options);
  if (rc) return cuplug__error(CUPLUG_ERR_LINK, "nvJitLink refused the options (error %d)", rc);
  cuplug_error *e = NULL;
  for (size_t i = 0; i < job->num_inputs && !e; i++) {
    const cuplug__tool_input *in = &job->inputs[i];
    /* nvJitLink reads PTX as a C string: its NUL goes along */
    size_t size = in->kind == CUPLUG__NVJL_PTX ? in->size + 1 : in->size;
    if (jl->add_data(h, (int)in->kind, in->data, size, in->name)) {
      char what[600];
      snprintf(what, sizeof what, "nvJitLink rejected %s (%s)", in->name,
               input_kind_name(in->kind));
      e = nvjitlink_error(jl, h, what);
    }
  }
  if (!e && jl->complete(h)) e = nvjitlink_error(jl, h, "nvJitLink failed to link");
  if (!e) e = nvjitlink_result(jl, h, job->ptx, out);
  jl->destroy(&h);
  return e;
}

/* ---- LLVM's NVPTX backend ---- */

/* The job's options as the backend's arguments; keep[] has room for each
 * option.  The strings point into the job's options. */
static cuplug_error *nvptx_options(cuplug__toolkit *tk, const cuplug__tool_job *job,
                                   cuplug__nvptx_args *a, const char **keep, bool *text) {
  for (size_t i = 0; i < job->num_options; i++) {
    const char *o = job->options[i];
    if (!strncmp(o, "-cpu=", 5)) {
      a->cpu = o + 5;
    } else if (!strncmp(o, "-mattr=", 7)) {
      a->features = o + 7;
    } else if (!strncmp(o, "-opt=", 5) && o[5] >= '0' && o[5] <= '3' && !o[6]) {
      a->opt = o[5] - '0';
    } else if (!strcmp(o, "-fastmath")) {
      a->fastmath = 1;
    } else if (!strcmp(o, "-g")) {
      a->debug = 1;
    } else if (!strcmp(o, "-lineinfo")) {
      a->lineinfo = 1;
    } else if (!strncmp(o, "-keep=", 6)) {
      keep[a->num_keep++] = o + 6;
    } else if (!strcmp(o, "-text")) {
      *text = true;
    } else if (!strncmp(o, "-libnvvm=", 9)) {
      CUPLUG__TRY(cuplug__toolkit_use_file(tk, &tk->nvvm_lib, o + 9));
    } else {
      return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "LLVM's NVPTX backend takes no option %s",
                           o);
    }
  }
  a->keep = keep;
  return NULL;
}

static cuplug_error *run_nvptx(cuplug__toolkit *tk, const cuplug__tool_job *job,
                               cuplug__tool_output *out) {
  const cuplug__nvptx_api *api;
  CUPLUG__TRY(cuplug__toolkit_nvptx(tk, &api));
  if (job->num_inputs != 1)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "LLVM's NVPTX backend compiles one module at a time, not %zu",
                         job->num_inputs);
  const cuplug__tool_input *m = &job->inputs[0];
  cuplug__nvptx_args a = {.module = m->data, .size = m->size, .name = m->name, .opt = 3};
  const char **keep = calloc(job->num_options + 1, sizeof *keep);
  if (!keep) return cuplug__error_oom();
  bool text = false; /* -text: the module as text, not compiled */
  cuplug_error *e = nvptx_options(tk, job, &a, keep, &text);
  const char *libdevice = NULL;
  size_t libdevice_size = 0;
  if (!e && job->libdevice) e = cuplug__toolkit_libdevice(tk, &libdevice, &libdevice_size);
  a.libdevice = libdevice;
  a.libdevice_size = libdevice_size;
  char *ptx = NULL, *log = NULL, *msg = NULL;
  size_t size = 0;
  int rc = e ? 0 : (text ? api->to_text : api->compile)(&a, &ptx, &size, &log, &msg);
  free(keep);
  if (rc) e = cuplug__error_log((cuplug_status)rc, log, "%s", msg ? msg : "out of memory");
  free(msg);
  if (e) {
    free(ptx);
    free(log);
    return e;
  }
  out->data = ptx;
  out->size = size;
  out->log = log;
  return NULL;
}

cuplug_error *cuplug__tool_run_here(cuplug__toolkit *tk, const cuplug__tool_job *job,
                                    cuplug__tool_output *out) {
  memset(out, 0, sizeof *out);
  uint64_t started = cuplug__now_ns();
  cuplug_error *e;
  switch (job->tool) {
    case CUPLUG__TOOL_NVVM: e = run_nvvm(tk, job, out); break;
    case CUPLUG__TOOL_NVRTC: e = run_nvrtc(tk, job, out); break;
    case CUPLUG__TOOL_NVJITLINK: e = run_nvjitlink(tk, job, out); break;
    case CUPLUG__TOOL_NVPTX: e = run_nvptx(tk, job, out); break;
    default: e = cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "no toolkit tool %d", (int)job->tool);
  }
  if (e) cuplug__tool_output_free(out);
  out->times.started = out->times.sent = started;
  out->times.finished = out->times.seen = cuplug__now_ns();
  return e;
}
