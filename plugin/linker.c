/* linker.c - linking code into a cubin with nvJitLink. */
#include "linker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"

static int input_kind(cuplug_code_kind k) {
  switch (k) {
    case CUPLUG_CODE_PTX: return CUPLUG__NVJL_PTX;
    case CUPLUG_CODE_LTOIR: return CUPLUG__NVJL_LTOIR;
    case CUPLUG_CODE_CUBIN: return CUPLUG__NVJL_CUBIN;
    case CUPLUG_CODE_FATBIN: return CUPLUG__NVJL_FATBIN;
    case CUPLUG_CODE_OBJECT: return CUPLUG__NVJL_OBJECT;
    case CUPLUG_CODE_ARCHIVE: return CUPLUG__NVJL_LIBRARY;
    default: return 0;
  }
}

static char *get_log(const cuplug__nvjitlink_api *jl, cuplug__nvjitlink h, bool error_log) {
  size_t n = 0;
  if ((error_log ? jl->error_log_size(h, &n) : jl->info_log_size(h, &n)) || n <= 1)
    return cuplug__strdup("");
  char *log = malloc(n + 1);
  if (!log) return NULL;
  if (error_log ? jl->error_log(h, log) : jl->info_log(h, log)) log[0] = '\0';
  log[n] = '\0';
  size_t len = strlen(log);
  while (len && (log[len - 1] == '\n' || log[len - 1] == '\r')) log[--len] = '\0';
  return log;
}

/* The first line of the log that says "error", for the one-line message. */
static void first_error(const char *log, char *out, size_t cap) {
  const char *p = strstr(log, "error");
  const char *start = p ? p : log;
  while (p && start > log && start[-1] != '\n') start--;
  snprintf(out, cap, "%.*s", (int)strcspn(start, "\n"), start);
}

static cuplug_error *run(const cuplug__nvjitlink_api *jl, const cuplug__code *inputs, size_t n,
                         const cuplug__link_options *o, bool ptx, cuplug__code *out, char **log) {
  char arch[32], regs[48];
  const char *opts[8];
  uint32_t k = 0;
  snprintf(arch, sizeof arch, "-arch=sm_%u%u", o->cc_major, o->cc_minor);
  opts[k++] = arch;
  if (o->lto) opts[k++] = "-lto";
  if (ptx) opts[k++] = "-ptx";
  if (o->max_registers) {
    snprintf(regs, sizeof regs, "-maxrregcount=%u", o->max_registers);
    opts[k++] = regs;
  }
  if (o->lineinfo) opts[k++] = "-lineinfo";
  if (o->debug) opts[k++] = "-g";

  cuplug__nvjitlink h = NULL;
  int rc = jl->create(&h, k, opts);
  if (rc) return cuplug__error(CUPLUG_ERR_LINK, "nvJitLink refused the options (error %d)", rc);
  cuplug_error *e = NULL;
  for (size_t i = 0; i < n && !e; i++) {
    int kind = input_kind(inputs[i].kind);
    if (!kind) {
      e = cuplug__error(CUPLUG_ERR_CODE_KIND, "%s: %s code cannot be linked as it is",
                        inputs[i].name, cuplug__code_kind_name(inputs[i].kind));
      break;
    }
    /* nvJitLink reads PTX as a C string */
    size_t size = inputs[i].kind == CUPLUG_CODE_PTX ? inputs[i].size + 1 : inputs[i].size;
    if (jl->add_data(h, kind, inputs[i].data, size, inputs[i].name)) {
      char *lg = get_log(jl, h, true);
      char line[512];
      first_error(lg ? lg : "", line, sizeof line);
      e = cuplug__error_log(CUPLUG_ERR_LINK, lg, "nvJitLink rejected %s (%s): %s", inputs[i].name,
                            cuplug__code_kind_name(inputs[i].kind), line);
      free(lg);
    }
  }
  if (!e && jl->complete(h)) {
    char *lg = get_log(jl, h, true);
    char line[512];
    first_error(lg ? lg : "", line, sizeof line);
    e = cuplug__error_log(CUPLUG_ERR_LINK, lg, "nvJitLink failed to link: %s", line);
    free(lg);
  }
  if (!e) {
    size_t size = 0;
    rc = ptx ? jl->ptx_size(h, &size) : jl->cubin_size(h, &size);
    char *bytes = rc ? NULL : malloc(size + 1);
    if (bytes && (ptx ? jl->ptx(h, bytes) : jl->cubin(h, bytes)) == 0) {
      if (ptx) size = strnlen(bytes, size);
      bytes[size] = '\0';
      out->kind = ptx ? CUPLUG_CODE_PTX : CUPLUG_CODE_CUBIN;
      out->data = bytes;
      out->size = size;
      out->name = cuplug__strdup(ptx ? "linked.ptx" : "linked.cubin");
      if (log) *log = get_log(jl, h, false);
      if (!out->name || (log && !*log)) e = cuplug__error_oom();
    } else {
      free(bytes);
      e = cuplug__error(CUPLUG_ERR_LINK, "cannot read nvJitLink's %s", ptx ? "PTX" : "cubin");
    }
  }
  jl->destroy(&h);
  if (e) cuplug__code_free(out);
  return e;
}

cuplug_error *cuplug__link(cuplug__toolkit *tk, const cuplug__code *inputs, size_t n,
                           const cuplug__link_options *o, cuplug__code *cubin,
                           cuplug__code *ptx, char **log) {
  const cuplug__nvjitlink_api *jl;
  memset(cubin, 0, sizeof *cubin);
  if (ptx) memset(ptx, 0, sizeof *ptx);
  *log = NULL;
  CUPLUG_TRY(cuplug__toolkit_nvjitlink(tk, &jl));
  if (ptx && !o->lto)
    return cuplug__error(CUPLUG_ERR_LINK,
                         "nvJitLink gives the linked PTX only with link-time optimisation");
  CUPLUG_TRY(run(jl, inputs, n, o, false, cubin, log));
  if (ptx) {
    cuplug_error *e = run(jl, inputs, n, o, true, ptx, NULL);
    if (e) {
      cuplug__code_free(cubin);
      free(*log);
      *log = NULL;
      return e;
    }
  }
  return NULL;
}

/* ---- link(): the public call ---- */

#include "session.h"

cuplug_error *cuplug__link_api(cuplug_link_args *a) {
  cuplug_session *s = a->session;
  if (!s) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "link: session is NULL");
  if ((a->num_code && !a->code) || (a->num_artifacts && !a->artifacts) ||
      (a->num_include_paths && !a->include_paths))
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "link: a count without its array");
  if (!a->num_code && !a->num_artifacts)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "link: nothing to link");
  for (size_t i = 0; i < a->num_artifacts; i++)
    if (!a->artifacts[i])
      return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "link: artifact %zu is NULL", i);

  /* cc and registers: given, else the artifacts', else the defaults */
  uint32_t major = a->cc_major, minor = a->cc_minor, regs = a->max_registers;
  const cuplug_artifact *kernel = NULL;
  bool cooperative = a->use_cooperative != 0;
  for (size_t i = 0; i < a->num_artifacts; i++) {
    const cuplug_artifact *art = a->artifacts[i];
    if (!major) {
      major = art->cc_major;
      minor = art->cc_minor;
    }
    if (!a->max_registers && art->max_registers > regs) regs = art->max_registers;
    if (art->kind == CUPLUG_KERNEL) kernel = kernel ? NULL : art; /* one kernel, or none */
    cooperative |= art->cooperative;
  }
  CUPLUG_TRY(cuplug__session_cc(s, major, minor, &major, &minor));
  bool lto = !a->no_lto && !a->debug;

  cuplug__code *list = NULL;
  size_t n = 0;
  cuplug_error *e = NULL;
  for (size_t i = 0; !e && i < a->num_artifacts; i++) {
    const cuplug_artifact *art = a->artifacts[i];
    for (size_t p = 0; !e && p < art->num_parts; p++) {
      const cuplug__code *c = &art->parts[p];
      if (art->output == CUPLUG_OUTPUT_CUBIN && c->kind == CUPLUG_CODE_PTX) continue;
      cuplug__code *v = realloc(list, (n + 1) * sizeof *v);
      if (!v) {
        e = cuplug__error_oom();
        break;
      }
      list = v;
      e = cuplug__code_make(c->kind, c->name, c->data, c->size, &list[n]);
      if (!e) n++;
    }
  }
  for (size_t i = 0; !e && i < a->num_code; i++) {
    cuplug__code in;
    e = cuplug__code_import(a->code[i], i, &in);
    if (e) break;
    cuplug__code *v = realloc(list, (n + 1) * sizeof *v);
    if (!v) {
      cuplug__code_free(&in);
      e = cuplug__error_oom();
      break;
    }
    list = v;
    if (in.kind == CUPLUG_CODE_CU) {
      cuplug__nvrtc_options o = {major, minor, lto, a->debug != 0, a->lineinfo != 0,
                                 a->include_paths, a->num_include_paths};
      e = cuplug__nvrtc_compile(&s->toolkit, &s->nvrtc, &in, &o, &list[n]);
      cuplug__code_free(&in);
    } else {
      list[n] = in;
    }
    if (!e) n++;
  }
  if (!e && cooperative) {
    const void *rt;
    size_t size;
    e = cuplug__toolkit_cudadevrt(&s->toolkit, &rt, &size);
    cuplug__code *v = e ? NULL : realloc(list, (n + 1) * sizeof *v);
    if (!e && !v) e = cuplug__error_oom();
    if (!e) {
      list = v;
      e = cuplug__code_make(CUPLUG_CODE_ARCHIVE, "libcudadevrt.a", rt, size, &list[n]);
      if (!e) n++;
    }
  }

  cuplug_artifact *art = NULL;
  if (!e) {
    art = cuplug__artifact_new();
    if (!art) e = cuplug__error_oom();
  }
  if (!e) {
    cuplug__link_options o = {major, minor, lto, a->debug != 0, a->lineinfo != 0, regs};
    cuplug__code cubin, ptx;
    e = cuplug__link(&s->toolkit, list, n, &o, &cubin, a->want_ptx ? &ptx : NULL,
                     &art->link_log);
    if (!e) e = cuplug__artifact_add_part(art, &cubin);
    if (!e && a->want_ptx) e = cuplug__artifact_add_part(art, &ptx);
  }
  for (size_t i = 0; i < n; i++) cuplug__code_free(&list[i]);
  free(list);
  if (e) {
    cuplug__artifact_destroy(art);
    return e;
  }
  art->output = CUPLUG_OUTPUT_CUBIN;
  art->cc_major = major;
  art->cc_minor = minor;
  art->max_registers = regs;
  art->lineinfo = a->lineinfo != 0;
  art->cooperative = cooperative;
  if (kernel) {
    /* the kernel of the link, as load and kernel_get's defaults */
    art->kind = CUPLUG_KERNEL;
    art->symbol = kernel->symbol ? cuplug__strdup(kernel->symbol) : NULL;
    art->signature = kernel->signature;
    art->debug = kernel->debug;
  }
  a->artifact = art;
  return NULL;
}
