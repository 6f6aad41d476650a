/* case.c - a conformance case folder (case.json) as a compile request.
 *
 * case.json holds numba-cuda's own names: kind (device/kernel), entry,
 * entry_abi, signature, abi, abi_name and options (fastmath, launch_bounds,
 * debug, opt, lineinfo, max_registers, forceinline, cc); then the files
 * beside it: declare_device's functions (each with the files it links and
 * its host version), link, and expected_ptx (input.ll is the IR, or
 * input.bc, bitcode).  A kernel that modern IR marks ptx_kernel needs no
 * signature. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "io.h"
#include "json.h"

static char *path_in(const char *dir, const char *file) {
  return cli_format("%s/%s", dir, file);
}

static bool truthy(const json *v) {
  return v && ((v->kind == JSON_BOOL && v->boolean) || (v->kind == JSON_NUMBER && v->number != 0));
}

static bool read_options(const json *opts, cli_request *r, char *err, size_t cap) {
  if (!opts) return true;
  if (opts->kind != JSON_OBJECT) {
    snprintf(err, cap, "case.json: options is not an object");
    return false;
  }
  for (size_t i = 0; i < opts->count; i++) {
    const char *k = opts->keys[i];
    const json *v = opts->items[i];
    if (!strcmp(k, "fastmath")) {
      r->fastmath = truthy(v);
    } else if (!strcmp(k, "debug")) {
      r->debug = truthy(v);
    } else if (!strcmp(k, "lineinfo")) {
      r->lineinfo = truthy(v);
    } else if (!strcmp(k, "forceinline")) {
      r->forceinline = truthy(v);
    } else if (!strcmp(k, "opt")) {
      /* numba's opt is a bool (3 or 0); a number is a level */
      if (v->kind == JSON_BOOL) r->opt = v->boolean ? 3 : CUPLUG_OPT_NONE;
      else if (v->kind == JSON_NUMBER) r->opt = v->number == 0 ? CUPLUG_OPT_NONE : (int32_t)v->number;
    } else if (!strcmp(k, "max_registers")) {
      if (v->kind == JSON_NUMBER) r->max_registers = (uint32_t)v->number;
    } else if (!strcmp(k, "launch_bounds")) {
      if (v->kind == JSON_NUMBER) {
        r->launch_bounds[0] = (uint32_t)v->number;
        r->num_launch_bounds = 1;
      } else if (v->kind == JSON_ARRAY) {
        for (size_t j = 0; j < v->count && j < CLI_MAX_BOUNDS; j++)
          r->launch_bounds[r->num_launch_bounds++] = (uint32_t)v->items[j]->number;
      }
    } else if (!strcmp(k, "cc")) {
      if (v->kind == JSON_ARRAY && v->count == 2) {
        r->cc_major = (uint32_t)v->items[0]->number;
        r->cc_minor = (uint32_t)v->items[1]->number;
      } else if (v->kind == JSON_STRING) {
        sscanf(v->string, "%u.%u", &r->cc_major, &r->cc_minor);
      }
    } else {
      snprintf(err, cap, "case.json: unknown option '%s'", k);
      return false;
    }
  }
  return true;
}

/* An ABI's name; one neither "c" nor "numba" stays invalid, for compile to refuse. */
static cuplug_abi abi_named(const char *name) {
  return !strcmp(name, "c") ? CUPLUG_ABI_C : !strcmp(name, "numba") ? CUPLUG_ABI_NUMBA
                                                                    : (cuplug_abi)99;
}

/* The function the case compiles: its kind, entry, signature and ABIs. */
static bool read_function(const json *c, const char *dir, cli_request *r, char *err, size_t cap) {
  const char *kind = json_string(c, "kind");
  const char *entry = json_string(c, "entry");
  const char *sig = json_string(c, "signature");
  if (!kind || !entry) {
    snprintf(err, cap, "%s/case.json: needs kind and entry", dir);
    return false;
  }
  if (!strcmp(kind, "kernel")) {
    r->kind = CUPLUG_KERNEL;
  } else if (!strcmp(kind, "device")) {
    r->kind = CUPLUG_DEVICE_FUNCTION;
  } else {
    snprintf(err, cap, "%s/case.json: kind '%s' is not device or kernel", dir, kind);
    return false;
  }
  r->entry = cli_own(r, strdup(entry));
  if (sig) r->signature = cli_own(r, strdup(sig)); /* none: the IR's (a ptx_kernel) */
  const char *abi = json_string(c, "abi");
  if (abi) r->abi = abi_named(abi);
  const char *eabi = json_string(c, "entry_abi");
  if (eabi) r->entry_abi = abi_named(eabi);
  const char *abi_name = json_string(c, "abi_name");
  if (abi_name && r->kind == CUPLUG_DEVICE_FUNCTION && r->abi != CUPLUG_ABI_NUMBA)
    r->abi_name = cli_own(r, strdup(abi_name));
  return true;
}

/* declare_device's entry i: an external function (numba-cuda's
 * declare_device), its files linked when called, and its host version. */
static bool read_declaration(const json *d, size_t i, const char *dir, cli_request *r, char *err,
                             size_t cap) {
  const char *name = json_string(d, "name"), *dsig = json_string(d, "signature");
  if (!name || !dsig || r->num_decls == CLI_MAX_FILES) {
    snprintf(err, cap, "%s/case.json: declare_device %zu needs name and signature", dir, i);
    return false;
  }
  cli_decl *out = &r->decls[r->num_decls++];
  out->name = cli_own(r, strdup(name));
  out->signature = cli_own(r, strdup(dsig));
  const char *dabi = json_string(d, "abi");
  out->abi = dabi && !strcmp(dabi, "c") ? CUPLUG_ABI_C : CUPLUG_ABI_NUMBA;
  const json *links = json_get(d, "link");
  for (size_t k = 0; links && links->kind == JSON_ARRAY && k < links->count &&
                     out->num_links < CLI_MAX_FILES;
       k++)
    if (links->items[k]->kind == JSON_STRING)
      out->links[out->num_links++] = cli_own(r, path_in(dir, links->items[k]->string));
  const json *host = json_get(d, "host");
  if (!host) return true;
  const char *ir = json_string(host, "ir"), *hsig = json_string(host, "signature");
  if (!ir || !hsig) {
    snprintf(err, cap, "%s/case.json: declare_device %zu: host needs ir and signature", dir, i);
    return false;
  }
  out->host_ir = cli_own(r, path_in(dir, ir));
  out->host_signature = cli_own(r, strdup(hsig));
  return true;
}

/* The files the case links that no declaration holds. */
static void read_links(const json *links, const char *dir, cli_request *r) {
  for (size_t k = 0; links && links->kind == JSON_ARRAY && k < links->count; k++) {
    const char *f = links->items[k]->kind == JSON_STRING ? links->items[k]->string : NULL;
    bool declared = false;
    for (size_t d = 0; f && d < r->num_decls; d++)
      for (size_t l = 0; l < r->decls[d].num_links; l++)
        declared |= strstr(r->decls[d].links[l], f) != NULL;
    if (f && !declared && r->num_links < CLI_MAX_FILES)
      r->links[r->num_links++] = cli_own(r, path_in(dir, f));
  }
}

/* The case's IR: input.ll, or input.bc (LLVM bitcode) where there is no
 * input.ll. */
static char *input_path(const char *dir) {
  char *ll = path_in(dir, "input.ll");
  if (access(ll, F_OK) == 0) return ll;
  char *bc = path_in(dir, "input.bc");
  if (access(bc, F_OK) != 0) {
    free(bc);
    return ll; /* the error names the file a case is expected to have */
  }
  free(ll);
  return bc;
}

bool cli_case_parse(const char *text, const char *dir, cli_request *r, char *err, size_t cap) {
  char jerr[128];
  json *c = json_parse(text, jerr, sizeof jerr);
  if (!c || c->kind != JSON_OBJECT) {
    snprintf(err, cap, "%s/case.json: %s", dir, c ? "not an object" : jerr);
    json_free(c);
    return false;
  }
  bool ok = read_function(c, dir, r, err, cap) && read_options(json_get(c, "options"), r, err, cap);
  if (ok) r->files[r->num_files++] = cli_own(r, input_path(dir));
  const json *decls = json_get(c, "declare_device");
  for (size_t i = 0; ok && decls && decls->kind == JSON_ARRAY && i < decls->count; i++)
    ok = read_declaration(decls->items[i], i, dir, r, err, cap);
  if (ok) {
    read_links(json_get(c, "link"), dir, r);
    const char *expected = json_string(c, "expected_ptx");
    r->expected_ptx = cli_own(r, path_in(dir, expected ? expected : "expected.ptx"));
  }
  json_free(c);
  return ok;
}
