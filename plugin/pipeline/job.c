/* job.c - the stages every target shares (job.h lists them): the
 * options, the signature and the modules read, the cache consulted, the
 * modules parsed and validated, and lowered: wrapped as the kind and ABI
 * ask, legalised, and joined by the implementations they call.
 *
 * Validation runs beside the work after it: nothing downstream uses what
 * LLVM makes of the IR, and LLVM's parse costs as much as libNVVM's
 * compile of a small kernel.  Where libNVVM runs in a helper process (a
 * safe session), it runs on the compiling thread while the helper works
 * (validate_later); otherwise on a thread of its own, alongside the stages
 * after start_validation.  Every compile waits for it, and when it finds a
 * problem its error is the one reported: it names the line and column,
 * where a later stage would only stumble. */
#include "plugin/pipeline/job.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/code.h"
#include "base/error.h"
#include "base/types.h"
#include "lowering/lowering.h"
#include "lowering/sigcheck.h"
#include "plugin/llvm/modern.h"
#include "plugin/llvm/validate.h"
#include "plugin/pipeline/link.h"
#include "plugin/pipeline/options.h"
#include "plugin/pipeline/results.h"

/* ---- check_options ---- */

cuplug_error *cuplug__stage_check_options(cuplug__job *j) {
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

cuplug_error *cuplug__stage_read_signature(cuplug__job *j) {
  cuplug_compile_args *a = j->a;
  if (a->signature && a->signature_type)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "compile: give one of signature and signature_type, not both");
  if (!a->signature && !a->signature_type) {
    if (j->signature_from_ir) return NULL; /* the entry's stage reads it */
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "compile: give the entry's signature (signature or signature_type)");
  }
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

cuplug_error *cuplug__stage_read_modules(cuplug__job *j) {
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

cuplug_error *cuplug__stage_copy_modules(cuplug__job *j) {
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

cuplug_error *cuplug__stage_look_up(cuplug__job *j) {
  if (!cuplug__cache_on(j->s->cache) || (j->a->flags & CUPLUG_COMPILE_NO_CACHE)) return NULL;
  /* bitcode's declarations only LLVM can list */
  const char *const *declared = NULL;
  size_t num_declared = 0;
  if (j->modern) CUPLUG__TRY(cuplug__modern_declared(j->modern, &declared, &num_declared));
  CUPLUG__TRY(cuplug__compile_key(j->s, j->a, j->all, j->sig, j->mods, declared, num_declared,
                                  &j->key_bytes));
  cuplug__cache_key_init(&j->key, j->key_bytes.data, j->key_bytes.len);
  j->to_cache = true;
  cuplug_artifact *found = cuplug__fetch_result(j->s, &j->key, &j->cache_warning);
  if (found) {
    cuplug__artifact_destroy(j->art);
    j->art = found;
    j->from_cache = true;
  }
  return NULL;
}

/* ---- parse_modules ---- */

static cuplug_error *launch_validation(cuplug__job *j);

/* Lexing keeps a module within the nesting limit, which LLVM's parser
 * needs: the validator starts after it.  A module cuplug cannot split into
 * items still goes to the validator, whose error names line and column. */
cuplug_error *cuplug__stage_parse_modules(cuplug__job *j) {
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
  cuplug__job *j = arg;
  /* LLVM checks the types cuplug's own check could not read */
  j->validation = cuplug__validate(j->inputs, j->a->num_modules, j->a->entry,
                                   j->entry_typed ? NULL : j->sig, j->entry_abi,
                                   j->declarations_typed ? NULL : registered, j->s->registry,
                                   &j->valid_entry_module);
}

static cuplug_error *launch_validation(cuplug__job *j) {
  j->validating = true;
  if (j->validate_later) {
    j->validation_due = true;
    return NULL;
  }
  j->validator = cuplug__pool_run(&j->s->validators, validate_task, j);
  if (!j->validator) validate_task(j); /* no thread to be had: validate here */
  return NULL;
}

/* Compares one function's header in m with sig: *known false when cuplug
 * cannot read it, which leaves the word to LLVM. */
static cuplug_error *check_header(const ir_module *m, const ir_item *it,
                                  const cuplug__sig_check *c, bool *known) {
  ir_function fn;
  cuplug_error *e = cuplug__ir_function_parse(m, it, &fn);
  if (e) {
    *known = false;
    if (e->code == CUPLUG_ERR_OUT_OF_MEMORY) return e;
    cuplug__error_destroy(e);
    return NULL;
  }
  e = cuplug__ir_check_signature(m, &fn, c, known);
  cuplug__ir_function_free(&fn);
  return e;
}

/* The entry's definition against its signature, in the first module that
 * defines it (as LLVM finds it); a missing entry is the validator's to name. */
static cuplug_error *check_entry_type(cuplug__job *j) {
  for (size_t i = 0; i < j->num_parsed; i++) {
    const ir_module *m = &j->parsed[i].m;
    const ir_item *it = cuplug__ir_module_find(m, IR_ITEM_DEFINE, j->a->entry);
    if (!it) continue;
    cuplug__sig_check c = {"entry", j->a->entry, NULL, j->sig, j->entry_abi,
                           CUPLUG_ERR_ENTRY_MISMATCH};
    return check_header(m, it, &c, &j->entry_typed);
  }
  return NULL;
}

/* The IR's declaration of each registered function with a signature. */
static cuplug_error *check_declared_types(cuplug__job *j) {
  bool all_known = true;
  for (size_t i = 0; i < j->num_parsed; i++) {
    const ir_module *m = &j->parsed[i].m;
    for (size_t k = 0; k < m->num_items; k++) {
      const ir_item *it = &m->items[k];
      if (it->kind != IR_ITEM_DECLARE) continue;
      const cuplug__impl *d = cuplug__registry_symbol(j->s->registry, it->name, strlen(it->name));
      if (!d || !d->sig) continue;
      const char *key = strcmp(d->key, it->name) != 0 ? d->key : NULL;
      cuplug__sig_check c = {"the IR's declaration of", it->name, key, d->sig, d->abi,
                             CUPLUG_ERR_DECLARATION_MISMATCH};
      bool known = false;
      CUPLUG__TRY(check_header(m, it, &c, &known));
      all_known &= known;
    }
  }
  j->declarations_typed = all_known;
  return NULL;
}

/* cuplug's check of the types runs in every session, a trusted one too: a
 * signature the IR contradicts corrupts memory there as well.  LLVM checks
 * what it could not read; when it found a mismatch, LLVM checks no types,
 * so that the error that names the parameter is the one reported (a module
 * LLVM rejects still comes first). */
cuplug_error *cuplug__stage_start_validation(cuplug__job *j) {
  cuplug_error *e = check_entry_type(j);
  if (!e) e = check_declared_types(j);
  if (e) j->entry_typed = j->declarations_typed = true;
  bool unread = !j->entry_typed || !j->declarations_typed;
  /* trusted: the host vouches for its IR, not for types cuplug cannot read */
  if (!j->s->trusted || (unread && !e)) launch_validation(j);
  return e;
}

/* Waits for the validator; returns its error, if it found one. */
cuplug_error *cuplug__job_finish_validation(cuplug__job *j) {
  if (j->validator) {
    cuplug__pool_wait(&j->s->validators, j->validator);
    j->validator = NULL;
  }
  if (j->validation_due) {
    j->validation_due = false;
    validate_task(j);
  }
  cuplug_error *e = j->validation;
  j->validation = NULL;
  return e;
}

/* ---- find_entry ---- */

cuplug_error *cuplug__stage_find_entry(cuplug__job *j) {
  for (size_t i = 0; i < j->num_mods; i++) {
    if (cuplug__ir_text_defines(j->mods[i].text, j->mods[i].size, j->a->entry)) {
      j->entry_module = i;
      return NULL;
    }
  }
  /* A name the quick look cannot see (escapes), or no entry at all: the
   * validator knows which (a trusted session's compile asks it now). */
  if (!j->validating) CUPLUG__TRY(launch_validation(j));
  CUPLUG__TRY(cuplug__job_finish_validation(j));
  j->entry_module = j->valid_entry_module;
  return NULL;
}

/* ---- lower: wrap, then legalise, on one parse of each module ---- */

static cuplug_error *wrap(cuplug__job *j, size_t i, ir_rewrite *rw) {
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
static cuplug_error *add_module(cuplug__job *j, const char *name, char *text, bool owned) {
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
static cuplug_error *merge_builtin(cuplug__job *j, const char *text) {
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

/* A registered function the IR declares (and so calls), noted once; an
 * NVVM IR implementation joins the modules.  `where` names the module for
 * messages. */
cuplug_error *cuplug__job_note_symbol(cuplug__job *j, const char *name, const char *where) {
  cuplug__impl *d = cuplug__registry_symbol(j->s->registry, name, strlen(name));
  if (!d && strncmp(name, "__cuplug_", 9) == 0)
    return cuplug__error(CUPLUG_ERR_NO_LOWERING,
                         "%s: the IR calls @%s, a symbol resolve_call gives, but the "
                         "session's registry never resolved it: resolve the call in this "
                         "process, with this session's registry",
                         where, name);
  if (!d) return NULL;
  for (size_t k = 0; k < j->num_used; k++)
    if (j->used[k] == d) return NULL;
  cuplug__impl **v = realloc(j->used, (j->num_used + 1) * sizeof *v);
  if (!v) return cuplug__error_oom();
  j->used = v;
  j->used[j->num_used++] = d;
  if (d->kind != CUPLUG__IMPL_IR && d->kind != CUPLUG__IMPL_CALLBACK &&
      d->kind != CUPLUG__IMPL_BUILTIN)
    return NULL;
  const char *text;
  CUPLUG__TRY(cuplug__impl_ir(d, &text));
  if (d->kind == CUPLUG__IMPL_BUILTIN) return merge_builtin(j, text);
  return add_module(j, d->symbol, (char *)text, false);
}

/* The module's declarations, through cuplug__job_note_symbol. */
static cuplug_error *note_declared(cuplug__job *j, const ir_module *m) {
  for (size_t i = 0; i < m->num_items; i++)
    if (m->items[i].kind == IR_ITEM_DECLARE)
      CUPLUG__TRY(cuplug__job_note_symbol(j, m->items[i].name, m->name));
  return NULL;
}

cuplug_error *cuplug__stage_lower(cuplug__job *j) {
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
      j->num_lowered = i + 1;
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


/* ---- choose_cc: explicit, the current device's, or numba-cuda's default ---- */

cuplug_error *cuplug__stage_choose_cc(cuplug__job *j) {
  cuplug_compile_args *a = j->a;
  if (a->flags & CUPLUG_COMPILE_CURRENT_DEVICE) {
    int major, minor;
    CUPLUG__TRY(cuplug__toolkit_current_cc(&j->s->toolkit, &major, &minor));
    return cuplug__session_device_cc(j->s, (uint32_t)major, (uint32_t)minor,
                                     (char)a->cc_suffix, &j->cc);
  }
  return cuplug__session_cc(j->s, a->cc_major, a->cc_minor, (char)a->cc_suffix, &j->cc);
}

/* ---- link_code: a cubin, or compile_all's list ---- */

/* The own code first, then the code of the declared functions and CUDA C++
 * lowerings the IR calls, then the caller's: linked into a cubin, or, for
 * compile_all, listed as the artifact's parts. */
static cuplug_error *gather_code(cuplug__job *j, cuplug__link_inputs *in, bool *cooperative) {
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

cuplug_error *cuplug__stage_link_code(cuplug__job *j) {
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

/* ---- keep: the result into the cache ---- */

cuplug_error *cuplug__stage_keep(cuplug__job *j) {
  if (j->to_cache) {
    cuplug__keep_result(j->s, &j->key, j->art, j->cache_warning);
    j->cache_warning = NULL;
  }
  return NULL;
}

/* Keeps the legalised modules in the artifact (CUPLUG_COMPILE_KEEP_IR). */
cuplug_error *cuplug__job_keep_modules(cuplug__job *j) {
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

cuplug_error *cuplug__job_describe_entry(cuplug__job *j) {
  cuplug_compile_args *a = j->a;
  cuplug_artifact *art = j->art;
  if (!(art->symbol = cuplug__strdup(j->symbol))) return cuplug__error_oom();
  art->kind = a->kind;
  /* the exception store is a Numba-ABI kernel's (a host's own kernel has
   * none to read back) */
  bool store = a->debug && j->entry_abi == CUPLUG_ABI_NUMBA;
  art->debug = a->debug != 0;
  art->lineinfo = a->lineinfo != 0;
  art->signature = j->sig;
  return a->kind == CUPLUG_KERNEL ? cuplug__artifact_add_kernel(art, j->symbol, j->sig, store)
                                  : NULL;
}

cuplug_error *cuplug__stage_keep_ir(cuplug__job *j) {
  return j->a->flags & CUPLUG_COMPILE_KEEP_IR ? cuplug__job_keep_modules(j) : NULL;
}

void cuplug__job_release(cuplug__job *j) {
  for (size_t i = j->num_lowered; i < j->num_parsed; i++) cuplug__ir_rewrite_abort(&j->parsed[i]);
  free(j->parsed);
  size_t n = j->a->num_modules;
  for (size_t i = 0; j->owned && i < j->cap_mods; i++) free(j->owned[i]);
  for (size_t i = 0; j->copies && i < n; i++) free(j->copies[i]);
  for (size_t i = 0; j->names && i < n; i++) free(j->names[i]);
  free(j->copies);
  free(j->owned);
  free(j->names);
  free(j->mods);
  free(j->inputs);
  free(j->used);
  cuplug__buf_free(&j->builtins);
  for (size_t i = 0; i < j->num_builtin_decls; i++) free(j->builtin_decls[i]);
  free(j->builtin_decls);
  cuplug__buf_free(&j->key_bytes);
  cuplug__modern_free(j->modern);
}
