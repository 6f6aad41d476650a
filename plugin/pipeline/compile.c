/* compile.c - the compile pipeline.
 *
 * One compile is a job that passes through these stages, in order:
 *
 *   check_options     numba-cuda's rules for the options, and warnings
 *   read_signature    the signature string or handle
 *   read_modules      the host's IR modules, none empty
 *   look_up           the result cache: a result found ends the compile
 *   copy_modules      within cuplug's size limit, copied (NUL-terminated)
 *   wake_helper       the helper process that will run libNVVM wakes up
 *   parse_modules     each lexed once (within cuplug's nesting limit) and
 *                     split into items, for the passes of `lower`
 *   start_validation  LLVM parses and verifies them, finds the entry,
 *                     checks its type
 *   choose_cc         explicit, current device, or the default rule
 *   find_entry        the module that defines the entry
 *   lower             for each module, two passes over its parse:
 *     wrap              C-ABI wrapper, or kernel fix-up (+ exception store)
 *     legalise          make the module acceptable to libNVVM
 *                     and, for each registered symbol the modules call whose
 *                     implementation is NVVM IR, that IR as one more module
 *                     (the host's and callbacks' one each, the built-ins'
 *                     all in one: each module costs libNVVM a link), so
 *                     that libNVVM can inline it
 *   run_nvvm          PTX or LTO-IR (libdevice added when the IR calls it)
 *   link_code         cubin output and compile_all: the declared functions
 *                     the IR calls and the extra code, .cu through NVRTC,
 *                     all linked by nvJitLink (or listed, for compile_all)
 *   keep              the result goes into the cache
 *
 * Each stage reads and updates the job; the first error ends the compile.
 *
 * Validation runs on a thread of its own, alongside the stages after it:
 * nothing downstream uses what LLVM makes of the IR, and LLVM's parse costs
 * as much as libNVVM's compile of a small kernel.  Every compile waits for
 * it, and when it finds a problem its error is the one reported: it names
 * the line and column, where a later stage would only stumble. */
#include "plugin/pipeline/compile.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/code.h"
#include "base/error.h"
#include "base/types.h"
#include "lowering/lowering.h"
#include "plugin/llvm/validate.h"
#include "plugin/pipeline/link.h"
#include "plugin/pipeline/options.h"
#include "plugin/pipeline/results.h"
#include "plugin/session/session.h"
#include "plugin/compilers/nvvm.h"

typedef struct job {
  cuplug_compile_args *a;
  cuplug_session *s;
  const cuplug_type *sig;
  cuplug_abi entry_abi; /* resolved: NUMBA or C */
  cuplug_abi abi;       /* resolved: NUMBA or C */
  const char *symbol;   /* the exported name */
  int opt;
  cuplug__cc cc;
  cuplug__ir_version irv;
  bool uses_libdevice;
  bool all;          /* compile_all: list the code, do not link it */
  bool lto;          /* cubin output: link LTO-IR (not debug, not no_lto) */
  cuplug__impl **used; /* registered implementations the IR calls */
  size_t num_used;
  cuplug__buf builtins;  /* the IR of the built-ins called, merged */
  char **builtin_decls;  /* the functions `builtins` declares */
  size_t num_builtin_decls;
  cuplug__text *mods; /* the current text of each module: the host's, then implementations' */
  size_t num_mods, cap_mods;
  ir_rewrite *parsed; /* the caller's modules, parsed for `lower` */
  size_t num_parsed;  /* how many of them */
  size_t taken;       /* how many `lower` took over (it finishes them) */
  size_t entry_module;
  /* validation, on its own thread */
  cuplug__text *inputs; /* the caller's modules, as given */
  bool validating;            /* validation was started */
  cuplug__nvvm_job nvvm;      /* libNVVM's job: readied early, started by run_nvvm */
  cuplug__worker *validator; /* running the validation, or NULL */
  size_t valid_entry_module;
  cuplug_error *validation;
  char **copies; /* NUL-terminated copies of the caller's modules */
  char **owned;  /* texts the passes wrote, one slot per module (cap_mods) */
  char **names; /* names the job made up for unnamed modules */
  cuplug_artifact *art;
  /* the result cache */
  bool keyed;           /* the result is to be kept under key */
  cuplug__buf key_bytes;
  cuplug__cache_key key;
  cuplug_error *note;   /* the cache's warning, for the result */
  bool done;            /* the result came from the cache */
} job;

typedef cuplug_error *(*stage)(job *j);

/* ---- check_options ---- */

static cuplug_error *check_options(job *j) {
  cuplug_compile_args *a = j->a;
  cuplug__options o;
  CUPLUG__TRY(cuplug__check_options(a, j->all, &o));
  j->s = a->session;
  j->entry_abi = o.entry_abi;
  j->abi = o.abi;
  j->opt = o.opt;
  j->lto = o.lto;
  j->art = cuplug__artifact_new();
  if (!j->art) return cuplug__error_oom();
  if (a->debug && j->opt)
    CUPLUG__TRY(cuplug__artifact_warn(
        j->art, cuplug__error(CUPLUG_WARN_DEBUG_WITH_OPT,
                              "debug=True with opt=True is not supported by CUDA. This may "
                              "result in a crash - set debug=False or opt=False.")));
  return NULL;
}

/* ---- read_signature ---- */

static cuplug_error *read_signature(job *j) {
  cuplug_compile_args *a = j->a;
  if (!!a->signature == !!a->signature_type)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "compile: give exactly one of signature and signature_type");
  if (a->signature) {
    CUPLUG__TRY(cuplug__signature_parse(a->signature, &j->sig));
  } else {
    if (a->signature_type->kind != CUPLUG_TYPE_SIGNATURE)
      return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                           "compile: signature_type %s is not a signature",
                           a->signature_type->name);
    j->sig = a->signature_type;
  }
  if (a->kind == CUPLUG_KERNEL && j->sig->restype->kind != CUPLUG_TYPE_VOID)
    return cuplug__error(CUPLUG_ERR_KERNEL_RETURN,
                         "CUDA kernel must have void return type (signature '%s')",
                         j->sig->name);
  return NULL;
}

/* ---- read_modules ---- */

static cuplug_error *read_modules(job *j) {
  cuplug_compile_args *a = j->a;
  if (!a->num_modules || !a->modules)
    return cuplug__error(CUPLUG_ERR_IR_EMPTY, "compile: no IR modules given");
  j->num_mods = j->cap_mods = a->num_modules;
  j->mods = calloc(a->num_modules, sizeof *j->mods);
  j->owned = calloc(a->num_modules, sizeof *j->owned);
  j->copies = calloc(a->num_modules, sizeof *j->copies);
  j->names = calloc(a->num_modules, sizeof *j->names);
  if (!j->mods || !j->owned || !j->copies || !j->names) return cuplug__error_oom();
  for (size_t i = 0; i < a->num_modules; i++) {
    const cuplug_module *m = a->modules[i];
    if (!m) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "compile: module %zu is NULL", i);
    if (m->struct_size < offsetof(cuplug_module, size) + sizeof m->size)
      return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                           "compile: module %zu has struct_size %zu; set it to "
                           "sizeof(cuplug_module)",
                           i, m->struct_size);
    if (!m->name) {
      cuplug__buf b;
      cuplug__buf_init(&b);
      cuplug__buf_printf(&b, "module%zu", i);
      j->names[i] = cuplug__buf_take(&b, NULL);
      if (!j->names[i]) return cuplug__error_oom();
    }
    const char *name = m->name ? m->name : j->names[i];
    bool blank = true;
    for (size_t k = 0; m->text && k < m->size && blank; k++)
      blank = isspace((unsigned char)m->text[k]);
    if (!m->text || blank)
      return cuplug__error(CUPLUG_ERR_IR_EMPTY, "IR module %s is empty", name);
    j->mods[i] = (cuplug__text){name, m->text, m->size}; /* the caller's, for now */
  }
  return NULL;
}

/* ---- copy_modules ---- */

static cuplug_error *copy_modules(job *j) {
  cuplug_compile_args *a = j->a;
  for (size_t i = 0; i < a->num_modules; i++) {
    cuplug__text *m = &j->mods[i];
    CUPLUG__TRY(cuplug__ir_check_size(m->name, m->size));
    /* A NUL-terminated copy: the lexer's sentinel, and LLVM's.  It lives
     * to the end of the compile, for the validator reads it meanwhile. */
    if (!(j->copies[i] = cuplug__strndup(m->text, m->size))) return cuplug__error_oom();
    m->text = j->copies[i];
  }
  /* the modules as given, which the passes' output replaces in mods */
  j->inputs = malloc(a->num_modules * sizeof *j->inputs);
  if (!j->inputs) return cuplug__error_oom();
  memcpy(j->inputs, j->mods, a->num_modules * sizeof *j->inputs);
  return NULL;
}

/* ---- look_up ---- */

static cuplug_error *look_up(job *j) {
  if (!cuplug__cache_on(j->s->cache) || (j->a->flags & CUPLUG_COMPILE_NO_CACHE)) return NULL;
  /* A host artifact is IR, made in a few passes (the JIT comes at load),
   * and it holds this process's addresses of host implementations: it is
   * not kept. */
  if (j->a->output == CUPLUG_OUTPUT_HOST) return NULL;
  CUPLUG__TRY(cuplug__compile_key(j->s, j->a, j->all, j->sig, j->mods, &j->key_bytes));
  cuplug__cache_key_init(&j->key, j->key_bytes.data, j->key_bytes.len);
  j->keyed = true;
  cuplug_artifact *found = cuplug__fetch_result(j->s, &j->key, &j->note);
  if (found) {
    cuplug__artifact_destroy(j->art);
    j->art = found;
    j->done = true;
  }
  return NULL;
}

/* ---- wake_helper ---- */

/* libNVVM runs in a helper process: waking it now, while the rest of the
 * pipeline runs, spares the compile the wait for a sleeping process. */
static cuplug_error *wake_helper(job *j) {
  if (j->a->output == CUPLUG_OUTPUT_HOST) return NULL; /* no libNVVM for the host */
  cuplug__nvvm_reserve(&j->s->runner, &j->nvvm);
  return NULL;
}

/* ---- parse_modules ---- */

static cuplug_error *launch_validation(job *j);

/* Lexing keeps a module within the nesting limit, which LLVM's parser
 * needs: the validator starts after it.  A module cuplug cannot split into
 * items still goes to the validator, whose error names line and column. */
static cuplug_error *parse_modules(job *j) {
  size_t n = j->a->num_modules;
  j->parsed = calloc(n, sizeof *j->parsed);
  if (!j->parsed) return cuplug__error_oom();
  cuplug_error *unparsed = NULL;
  for (size_t i = 0; i < n; i++) {
    ir_rewrite *rw = &j->parsed[j->num_parsed];
    cuplug_error *e = cuplug__ir_rewrite_begin(rw, j->mods[i].name, j->mods[i].text,
                                               j->mods[i].size, cuplug__legalize_watch());
    if (!e) {
      j->num_parsed++;
      continue;
    }
    if (e->code != CUPLUG_ERR_IR_PARSE) { /* the limit, or memory */
      cuplug__error_destroy(unparsed);
      return e;
    }
    if (unparsed)
      cuplug__error_destroy(e);
    else
      unparsed = e;
  }
  if (unparsed && !j->s->trusted) launch_validation(j);
  return unparsed;
}

/* ---- start_validation ---- */

/* The registry's answer for a declared symbol: validation checks the IR's
 * declaration of every registered function that has a signature. */
static bool registered(void *registry, const char *symbol, size_t len, cuplug__declared *out) {
  const cuplug__impl *m = cuplug__registry_symbol(registry, symbol, len);
  if (!m || !m->sig) return false;
  *out = (cuplug__declared){m->key, m->sig, m->abi};
  return true;
}

static void validate_task(void *arg) {
  job *j = arg;
  j->validation = cuplug__validate(j->inputs, j->a->num_modules, j->a->entry, j->sig,
                                   j->entry_abi, registered, j->s->registry,
                                   &j->valid_entry_module);
}

static cuplug_error *launch_validation(job *j) {
  j->validating = true;
  j->validator = cuplug__pool_run(&j->s->validators, validate_task, j);
  if (!j->validator) validate_task(j); /* no thread to be had: validate here */
  return NULL;
}

static cuplug_error *start_validation(job *j) {
  return j->s->trusted ? NULL : launch_validation(j); /* trusted: the host vouches for its IR */
}

/* Waits for the validator; returns its error, if it found one. */
static cuplug_error *finish_validation(job *j) {
  if (j->validator) {
    cuplug__pool_wait(&j->s->validators, j->validator);
    j->validator = NULL;
  }
  cuplug_error *e = j->validation;
  j->validation = NULL;
  return e;
}

/* ---- choose_cc ---- */

static cuplug_error *choose_cc(job *j) {
  cuplug_compile_args *a = j->a;
  /* The host needs no cc, nor libNVVM's IR version (the IR keeps zeros). */
  if (a->output == CUPLUG_OUTPUT_HOST) return NULL;
  CUPLUG__TRY(cuplug__nvvm_ir_version(&j->s->toolkit, &j->irv));
  if (a->flags & CUPLUG_COMPILE_CURRENT_DEVICE) {
    int major, minor;
    CUPLUG__TRY(cuplug__toolkit_current_cc(&j->s->toolkit, &major, &minor));
    return cuplug__session_cc(j->s, (uint32_t)major, (uint32_t)minor, (char)a->cc_suffix,
                              &j->cc);
  }
  return cuplug__session_cc(j->s, a->cc_major, a->cc_minor, (char)a->cc_suffix, &j->cc);
}

/* ---- find_entry ---- */

static cuplug_error *find_entry(job *j) {
  for (size_t i = 0; i < j->num_mods; i++) {
    if (cuplug__ir_text_defines(j->mods[i].text, j->mods[i].size, j->a->entry)) {
      j->entry_module = i;
      return NULL;
    }
  }
  /* A name the quick look cannot see (escapes), or no entry at all: the
   * validator knows which (a trusted session's compile asks it now). */
  if (!j->validating) CUPLUG__TRY(launch_validation(j));
  CUPLUG__TRY(finish_validation(j));
  j->entry_module = j->valid_entry_module;
  return NULL;
}

/* ---- lower: wrap, then legalise, on one parse of each module ---- */

static cuplug_error *wrap(job *j, size_t i, ir_rewrite *rw) {
  cuplug_compile_args *a = j->a;
  bool has_entry = i == j->entry_module;
  if (a->kind == CUPLUG_KERNEL) {
    if (!has_entry) return NULL;
    cuplug__kernel_options ko = {a->debug != 0, a->launch_bounds, a->num_launch_bounds,
                                 j->entry_abi == CUPLUG_ABI_C};
    return cuplug__kernel_fixup(rw, a->entry, &ko);
  }
  if (j->abi == CUPLUG_ABI_C && j->entry_abi == CUPLUG_ABI_NUMBA) {
    /* Does anything call the entry?  Only its definition names it. */
    size_t refs = 0;
    for (size_t k = 0; has_entry && k < a->num_modules; k++)
      refs += cuplug__ir_text_references(j->inputs[k].text, j->inputs[k].size, a->entry);
    cuplug__cabi_options co = {.sig = j->sig,
                               .entry = a->entry,
                               .name = j->symbol,
                               .forceinline = a->forceinline != 0,
                               .has_entry = has_entry,
                               .sole_caller = refs == 1};
    return cuplug__cabi_wrap(rw, &co);
  }
  if (a->forceinline && has_entry) return cuplug__force_inline(rw, a->entry);
  return NULL;
}

/* Adds a module to those the compile lowers; `owned` texts are the job's. */
static cuplug_error *add_module(job *j, const char *name, char *text, bool owned) {
  if (j->num_mods == j->cap_mods) {
    size_t cap = j->cap_mods * 2;
    cuplug__text *m = realloc(j->mods, cap * sizeof *m);
    if (m) j->mods = m;
    char **o = realloc(j->owned, cap * sizeof *o);
    if (o) j->owned = o;
    if (!m || !o) return cuplug__error_oom();
    memset(j->owned + j->cap_mods, 0, (cap - j->cap_mods) * sizeof *o);
    j->cap_mods = cap;
  }
  if (owned) j->owned[j->num_mods] = text;
  j->mods[j->num_mods++] = (cuplug__text){name, text, strlen(text)};
  return NULL;
}

/* Appends a built-in's IR to the merged module, each function declared
 * once.  Built-ins are cuplug's own text: definitions, globals and one
 * `declare` a line, with no metadata or attribute groups to renumber. */
static cuplug_error *merge_builtin(job *j, const char *text) {
  for (const char *line = text; *line;) {
    size_t n = strcspn(line, "\n");
    bool keep = true;
    if (strncmp(line, "declare ", 8) == 0) {
      const char *at = memchr(line, '@', n);
      size_t len = at ? strcspn(at, "(") : 0;
      for (size_t k = 0; at && k < j->num_builtin_decls && keep; k++)
        keep = !(strlen(j->builtin_decls[k]) == len && memcmp(j->builtin_decls[k], at, len) == 0);
      if (keep && at) {
        char **v = realloc(j->builtin_decls, (j->num_builtin_decls + 1) * sizeof *v);
        if (!v) return cuplug__error_oom();
        j->builtin_decls = v;
        if (!(v[j->num_builtin_decls] = cuplug__strndup(at, len))) return cuplug__error_oom();
        j->num_builtin_decls++;
      }
    }
    if (keep) {
      cuplug__buf_append(&j->builtins, line, n);
      cuplug__buf_putc(&j->builtins, '\n');
    }
    line += n + (line[n] == '\n');
  }
  return j->builtins.oom ? cuplug__error_oom() : NULL;
}

/* Which registered functions does the module declare (and so call)?  Each
 * is noted once; an NVVM IR implementation joins the modules. */
static cuplug_error *note_declared(job *j, const ir_module *m) {
  for (size_t i = 0; i < m->num_items; i++) {
    const ir_item *it = &m->items[i];
    if (it->kind != IR_ITEM_DECLARE) continue;
    cuplug__impl *d = cuplug__registry_symbol(j->s->registry, it->name, strlen(it->name));
    if (!d && strncmp(it->name, "__cuplug_", 9) == 0)
      return cuplug__error(CUPLUG_ERR_NO_LOWERING,
                           "%s: the IR calls @%s, a symbol resolve_call gives, but the "
                           "session's registry never resolved it: resolve the call in this "
                           "process, with this session's registry",
                           m->name, it->name);
    if (!d) continue;
    bool seen = false;
    for (size_t k = 0; k < j->num_used && !seen; k++) seen = j->used[k] == d;
    if (seen) continue;
    cuplug__impl **v = realloc(j->used, (j->num_used + 1) * sizeof *v);
    if (!v) return cuplug__error_oom();
    j->used = v;
    j->used[j->num_used++] = d;
    if (d->kind == CUPLUG__IMPL_IR || d->kind == CUPLUG__IMPL_CALLBACK ||
        d->kind == CUPLUG__IMPL_BUILTIN) {
      const char *text;
      CUPLUG__TRY(cuplug__impl_ir(d, &text));
      if (d->kind == CUPLUG__IMPL_BUILTIN)
        CUPLUG__TRY(merge_builtin(j, text));
      else
        CUPLUG__TRY(add_module(j, d->symbol, (char *)text, false));
    }
  }
  return NULL;
}

static cuplug_error *lower(job *j) {
  cuplug_compile_args *a = j->a;
  j->symbol = a->kind == CUPLUG_DEVICE_FUNCTION && j->abi == CUPLUG_ABI_C &&
                      j->entry_abi == CUPLUG_ABI_NUMBA && a->abi_name
                  ? a->abi_name
                  : a->entry;
  /* num_mods grows as implementations join; the built-ins' module last */
  for (size_t i = 0;; i++) {
    if (i == j->num_mods && j->builtins.len) {
      char *text = cuplug__buf_take(&j->builtins, NULL);
      if (!text) return cuplug__error_oom();
      cuplug_error *e = add_module(j, "cuplug.builtins", text, true);
      if (e) {
        free(text);
        return e;
      }
    }
    if (i == j->num_mods) break;
    ir_rewrite rw;
    if (i < j->num_parsed) {
      rw = j->parsed[i];
      j->taken = i + 1;
    } else {
      CUPLUG__TRY(cuplug__ir_rewrite_begin(&rw, j->mods[i].name, j->mods[i].text,
                                           j->mods[i].size, cuplug__legalize_watch()));
    }
    /* an implementation's definitions become linkonce_odr: artifacts that
     * both inline it still link together */
    cuplug_error *e =
        i < j->a->num_modules ? wrap(j, i, &rw) : cuplug__linkonce_definitions(&rw);
    if (!e) e = cuplug__legalize(&rw, j->irv, &j->uses_libdevice);
    if (!e) e = note_declared(j, &rw.m);
    if (e) {
      cuplug__ir_rewrite_abort(&rw);
      return e;
    }
    char *out;
    size_t n;
    CUPLUG__TRY(cuplug__ir_rewrite_finish(&rw, &out, &n));
    free(j->owned[i]); /* the text it was made from, when the job owned it */
    j->owned[i] = out;
    j->mods[i].text = out;
    j->mods[i].size = n;
  }
  return NULL;
}

/* ---- run_nvvm ---- */

static cuplug_error *keep_ir(job *j);

/* For the host, the artifact is the IR libNVVM would have been handed:
 * load() compiles it for the CPU (plugin/load/cpu.c). */
static cuplug_error *keep_host_ir(job *j) {
  cuplug_compile_args *a = j->a;
  CUPLUG__TRY(finish_validation(j));
  CUPLUG__TRY(keep_ir(j));
  cuplug_artifact *art = j->art;
  art->sources = calloc(a->num_modules, sizeof *art->sources);
  if (!art->sources) return cuplug__error_oom();
  for (size_t i = 0; i < a->num_modules; i++) {
    cuplug__text *m = &art->sources[art->num_sources++];
    m->name = cuplug__strdup(j->inputs[i].name);
    m->text = cuplug__strndup(j->inputs[i].text, j->inputs[i].size);
    m->size = j->inputs[i].size;
    if (!m->name || !m->text) return cuplug__error_oom();
  }
  art->output = CUPLUG_OUTPUT_HOST;
  art->uses_libdevice = j->uses_libdevice;
  art->fastmath = a->fastmath != 0;
  /* declared functions the IR calls: those with a host implementation are
   * defined for the JIT; the others it refuses by name at load */
  art->cpu_externs = calloc(j->num_used ? j->num_used : 1, sizeof *art->cpu_externs);
  if (!art->cpu_externs) return cuplug__error_oom();
  for (size_t d = 0; d < j->num_used; d++) {
    if (!j->used[d]->host_function) continue;
    cuplug__cpu_extern *x = &art->cpu_externs[art->num_cpu_externs++];
    x->address = j->used[d]->host_function;
    if (!(x->symbol = cuplug__strdup(j->used[d]->symbol))) return cuplug__error_oom();
  }
  art->symbol = cuplug__strdup(j->symbol);
  if (!art->symbol) return cuplug__error_oom();
  art->kind = a->kind;
  art->debug = a->debug != 0;
  art->lineinfo = a->lineinfo != 0;
  art->signature = j->sig;
  return a->kind == CUPLUG_KERNEL ? cuplug__artifact_add_kernel(art, j->symbol, j->sig, a->debug)
                                  : NULL;
}

static cuplug_error *run_nvvm(job *j) {
  cuplug_compile_args *a = j->a;
  if (a->output == CUPLUG_OUTPUT_HOST) return keep_host_ir(j);
  bool ltoir = a->output == CUPLUG_OUTPUT_LTOIR || (a->output == CUPLUG_OUTPUT_CUBIN && j->lto);
  cuplug__nvvm_options o = {.cc_major = j->cc.major,
                            .cc_minor = j->cc.minor,
                            .opt = j->opt,
                            .debug = a->debug != 0,
                            .lineinfo = a->lineinfo != 0,
                            .fastmath = a->fastmath != 0,
                            .ltoir = ltoir,
                            .libdevice = j->uses_libdevice,
                            .time_limit_ms = a->time_limit_ms};
  memcpy(o.cc_suffix, j->cc.suffix, sizeof o.cc_suffix);
  cuplug_artifact *art = j->art;
  cuplug__code own = {ltoir ? CUPLUG_CODE_LTOIR : CUPLUG_CODE_PTX, NULL, NULL, 0};
  /* libNVVM starts on the IR (in a helper process) while the verifier may
   * still be at work; IR it rejects stops libNVVM, which may be stuck on it */
  cuplug__nvvm_job *nvvm = &j->nvvm;
  CUPLUG__TRY(cuplug__nvvm_start(&j->s->runner, j->mods, j->num_mods, &o, nvvm));
  cuplug_error *invalid = finish_validation(j);
  if (invalid) {
    cuplug__nvvm_cancel(&j->s->runner, nvvm);
    return invalid;
  }
  CUPLUG__TRY(cuplug__nvvm_finish(&j->s->runner, nvvm, &own.data, &own.size, &art->log));
  own.name = cuplug__strdup(j->symbol);
  CUPLUG__TRY(cuplug__artifact_add_part(art, &own));
  if (!art->parts[0].name) return cuplug__error_oom();
  /* libNVVM passes a call to an llvm.* function it does not know through
   * as an external function, which no assembler takes. */
  const char *ext = ltoir ? NULL : strstr(art->parts[0].data, ".extern .func");
  for (; ext; ext = strstr(ext + 1, ".extern .func")) {
    const char *name = strstr(ext, "llvm.");
    const char *eol = strchr(ext, '\n');
    if (name && (!eol || name < eol))
      return cuplug__error(CUPLUG_ERR_NVVM,
                           "libNVVM left a call to @%.*s unresolved: it is no intrinsic "
                           "libNVVM knows",
                           (int)strcspn(name, " (\n;"), name);
  }
  art->output = ltoir ? CUPLUG_OUTPUT_LTOIR : CUPLUG_OUTPUT_PTX;
  art->symbol = cuplug__strdup(j->symbol);
  art->cc_major = j->cc.major;
  art->cc_minor = j->cc.minor;
  memcpy(art->cc_suffix, j->cc.suffix, sizeof art->cc_suffix);
  art->kind = a->kind;
  art->debug = a->debug != 0;
  art->lineinfo = a->lineinfo != 0;
  art->max_registers = a->max_registers;
  art->signature = j->sig;
  if (!art->symbol) return cuplug__error_oom();
  return a->kind == CUPLUG_KERNEL ? cuplug__artifact_add_kernel(art, j->symbol, j->sig, a->debug)
                                  : NULL;
}

/* ---- link_code ---- */

/* The own code first, then the code of the declared functions and CUDA C++
 * lowerings the IR calls, then the caller's: linked into a cubin, or, for
 * compile_all, listed as the artifact's parts. */
static cuplug_error *gather_code(job *j, cuplug__link_inputs *in, bool *cooperative) {
  cuplug_compile_args *a = j->a;
  CUPLUG__TRY(cuplug__link_add(in, &j->art->parts[0]));
  for (size_t d = 0; d < j->num_used; d++) {
    *cooperative |= j->used[d]->cooperative;
    for (size_t c = 0; c < j->used[d]->num_code; c++)
      CUPLUG__TRY(cuplug__link_add(in, &j->used[d]->code[c]));
  }
  CUPLUG__TRY(cuplug__link_add_caller(in, a->link, a->num_link));
  return *cooperative && !j->all ? cuplug__link_add_cudadevrt(in) : NULL;
}

static cuplug_error *link_code(job *j) {
  cuplug_compile_args *a = j->a;
  if (a->output != CUPLUG_OUTPUT_CUBIN && !j->all) return NULL;
  cuplug_artifact *art = j->art;
  cuplug__link_inputs in = {.session = j->s,
                            .cc_major = j->cc.major,
                            .cc_minor = j->cc.minor,
                            .cc_suffix = {j->cc.suffix[0], 0},
                            .ltoir = j->all ? a->output == CUPLUG_OUTPUT_LTOIR : j->lto,
                            .debug = a->debug != 0,
                            .lineinfo = a->lineinfo != 0,
                            .include_paths = a->include_paths,
                            .num_include_paths = a->num_include_paths,
                            .time_limit_ms = a->time_limit_ms};
  bool cooperative = false;
  cuplug_error *e = gather_code(j, &in, &cooperative);
  art->cooperative = cooperative;
  if (!e && j->all) {
    /* compile_all: the own code is part 0 already; the rest follow */
    for (size_t i = 1; !e && i < in.num_code; i++) e = cuplug__artifact_add_part(art, &in.code[i]);
  } else if (!e) {
    /* the cubin replaces the own code as the result */
    e = cuplug__link_run(&in, j->lto, a->max_registers,
                         (a->flags & CUPLUG_COMPILE_LINKED_PTX) != 0, art);
  }
  cuplug__link_inputs_free(&in);
  return e;
}

/* Keeps the legalised modules in the artifact (CUPLUG_COMPILE_KEEP_IR). */
static cuplug_error *keep_ir(job *j) {
  cuplug_artifact *art = j->art;
  cuplug__text *v = realloc(art->ir, (art->num_ir + j->num_mods) * sizeof *v);
  if (!v) return cuplug__error_oom();
  art->ir = v;
  for (size_t i = 0; i < j->num_mods; i++) {
    cuplug__text *m = &art->ir[art->num_ir];
    m->name = cuplug__strdup(j->mods[i].name);
    m->text = j->owned[i];
    m->size = j->mods[i].size;
    if (!m->name) return cuplug__error_oom();
    j->owned[i] = NULL; /* the artifact has it now */
    art->num_ir++;
  }
  return NULL;
}

static cuplug_error *run(cuplug_compile_args *a, bool all) {
  static const stage stages[] = {check_options, read_signature, read_modules,     look_up,
                                 copy_modules,  wake_helper,    parse_modules,    start_validation,
                                 choose_cc,     find_entry,     lower,            run_nvvm,
                                 link_code};
  job j = {0};
  j.a = a;
  j.all = all;
  a->artifact = NULL;
  cuplug_error *e = NULL;
  for (size_t i = 0; i < sizeof stages / sizeof stages[0] && !e && !j.done; i++)
    e = stages[i](&j);
  if (!e && !j.done && (a->flags & CUPLUG_COMPILE_KEEP_IR) && a->output != CUPLUG_OUTPUT_HOST)
    e = keep_ir(&j);
  /* The validator's verdict comes first: it names the line and column. */
  cuplug_error *v = finish_validation(&j);
  if (v) {
    cuplug__error_destroy(e);
    e = v;
  }
  if (j.s) cuplug__nvvm_unreserve(&j.s->runner, &j.nvvm); /* a helper woken for nothing */
  for (size_t i = j.taken; i < j.num_parsed; i++) cuplug__ir_rewrite_abort(&j.parsed[i]);
  free(j.parsed);
  for (size_t i = 0; j.owned && i < j.cap_mods; i++) free(j.owned[i]);
  for (size_t i = 0; j.copies && i < a->num_modules; i++) free(j.copies[i]);
  for (size_t i = 0; j.names && i < a->num_modules; i++) free(j.names[i]);
  free(j.copies);
  free(j.owned);
  free(j.names);
  free(j.mods);
  free(j.inputs);
  free(j.used);
  cuplug__buf_free(&j.builtins);
  for (size_t i = 0; i < j.num_builtin_decls; i++) free(j.builtin_decls[i]);
  free(j.builtin_decls);
  if (e) {
    cuplug__error_destroy(j.note);
    cuplug__buf_free(&j.key_bytes);
    cuplug__artifact_destroy(j.art);
    return e;
  }
  if (j.keyed && !j.done) /* keep: the result goes into the cache */
    cuplug__keep_result(j.s, &j.key, j.art, j.note);
  else if (j.note)
    cuplug__error_destroy(cuplug__artifact_warn(j.art, j.note));
  cuplug__buf_free(&j.key_bytes);
  a->artifact = j.art;
  return NULL;
}

cuplug_error *cuplug__compile(cuplug_compile_args *a) { return run(a, false); }
cuplug_error *cuplug__compile_all(cuplug_compile_args *a) { return run(a, true); }
