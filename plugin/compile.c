/* compile.c - the compile pipeline.
 *
 * One compile is a job that passes through these stages, in order:
 *
 *   check_options     numba-cuda's rules for the options, and warnings
 *   read_signature    the signature string or handle
 *   read_modules      the host's IR modules, none empty
 *   start_validation  LLVM parses them, finds the entry, checks its type
 *   choose_cc         explicit, current device, or the default rule
 *   find_entry        the module that defines the entry
 *   lower             for each module, one parse and two passes:
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
 *
 * Each stage reads and updates the job; the first error ends the compile.
 *
 * Validation runs on a thread of its own, alongside the stages after it:
 * nothing downstream uses what LLVM makes of the IR, and LLVM's parse costs
 * as much as libNVVM's compile of a small kernel.  Every compile waits for
 * it, and when it finds a problem its error is the one reported: it names
 * the line and column, where a later stage would only stumble. */
#include "compile.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "code.h"
#include "error.h"
#include "linker.h"
#include "lowering.h"
#include "nvvm.h"
#include "session.h"
#include "types.h"
#include "validate.h"

typedef struct job {
  cuplug_compile_args *a;
  cuplug_session *s;
  const cuplug_type *sig;
  cuplug_abi entry_abi; /* resolved: NUMBA or C */
  cuplug_abi abi;       /* resolved: NUMBA or C */
  const char *symbol;   /* the exported name */
  int opt;
  uint32_t cc_major, cc_minor;
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
  size_t entry_module;
  /* validation, on its own thread */
  cuplug__text *inputs; /* the caller's modules, as given */
  cuplug__worker *validator; /* running the validation, or NULL */
  size_t valid_entry_module;
  cuplug_error *validation;
  char **copies; /* NUL-terminated copies of the caller's modules */
  char **owned;  /* texts the passes wrote, one slot per module (cap_mods) */
  char **names; /* names the job made up for unnamed modules */
  cuplug_artifact *art;
} job;

typedef cuplug_error *(*stage)(job *j);

static bool is_identifier(const char *s) {
  if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_' && *s != '$') return false;
  return true;
}

/* ---- check_options ---- */

static cuplug_error *check_options(job *j) {
  cuplug_compile_args *a = j->a;
  if (!a->session) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "compile: session is NULL");
  j->s = a->session;
  const uint32_t known =
      CUPLUG_COMPILE_CURRENT_DEVICE | CUPLUG_COMPILE_KEEP_IR | CUPLUG_COMPILE_LINKED_PTX;
  if (a->flags & ~known)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "compile: unknown flags 0x%x",
                         a->flags & ~known);
  if (a->kind != CUPLUG_DEVICE_FUNCTION && a->kind != CUPLUG_KERNEL)
    return cuplug__error(CUPLUG_ERR_OPTION_KIND,
                         "Unsupported function kind %d: a device function (0) or a kernel (1)",
                         (int)a->kind);
  bool kernel = a->kind == CUPLUG_KERNEL;
  /* numba-cuda's compile() checks, in its order */
  if (a->output != CUPLUG_OUTPUT_DEFAULT && a->output != CUPLUG_OUTPUT_PTX &&
      a->output != CUPLUG_OUTPUT_LTOIR && (a->output != CUPLUG_OUTPUT_CUBIN || j->all))
    return cuplug__error(CUPLUG_ERR_OPTION_OUTPUT, "Unsupported output type: %d (%s)",
                         (int)a->output, j->all ? "ptx or ltoir" : "ptx, ltoir or cubin");
  /* numba-cuda: compile() makes PTX, compile_all() LTO-IR */
  if (a->output == CUPLUG_OUTPUT_DEFAULT)
    a->output = j->all ? CUPLUG_OUTPUT_LTOIR : CUPLUG_OUTPUT_PTX;
  j->lto = !a->no_lto && !a->debug;
  if (a->num_link && !a->link)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "compile: num_link is %zu but link is NULL", a->num_link);
  if (a->num_include_paths && !a->include_paths)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "compile: num_include_paths is %zu but include_paths is NULL",
                         a->num_include_paths);
  if (a->forceinline && a->output != CUPLUG_OUTPUT_LTOIR)
    return cuplug__error(CUPLUG_ERR_FORCEINLINE_OUTPUT,
                         "Can only designate forced inlining in LTO-IR (output is ptx)");
  if (a->abi != CUPLUG_ABI_DEFAULT && a->abi != CUPLUG_ABI_NUMBA && a->abi != CUPLUG_ABI_C)
    return cuplug__error(CUPLUG_ERR_OPTION_ABI, "Unsupported ABI: %d (numba or c)", (int)a->abi);
  if (a->entry_abi != CUPLUG_ABI_DEFAULT && a->entry_abi != CUPLUG_ABI_NUMBA &&
      a->entry_abi != CUPLUG_ABI_C)
    return cuplug__error(CUPLUG_ERR_OPTION_ABI, "Unsupported entry ABI: %d (numba or c)",
                         (int)a->entry_abi);
  if (kernel && a->abi == CUPLUG_ABI_C)
    return cuplug__error(CUPLUG_ERR_C_ABI_KERNEL, "The C ABI is not supported for kernels");
  if (kernel && a->forceinline)
    return cuplug__error(CUPLUG_ERR_FORCEINLINE_KERNEL, "Cannot force-inline kernels");
  j->entry_abi = a->entry_abi == CUPLUG_ABI_C ? CUPLUG_ABI_C : CUPLUG_ABI_NUMBA;
  j->abi = kernel ? CUPLUG_ABI_NUMBA : (a->abi == CUPLUG_ABI_NUMBA ? CUPLUG_ABI_NUMBA : CUPLUG_ABI_C);
  if (!kernel && j->entry_abi == CUPLUG_ABI_C && j->abi == CUPLUG_ABI_NUMBA)
    return cuplug__error(CUPLUG_ERR_OPTION_ABI,
                         "a C-ABI entry cannot be exported under the Numba ABI");

  if (a->num_launch_bounds > 3) {
    cuplug__buf b;
    cuplug__buf_init(&b);
    for (size_t i = 0; a->launch_bounds && i < a->num_launch_bounds; i++)
      cuplug__buf_printf(&b, "%s%u", i ? ", " : "", a->launch_bounds[i]);
    cuplug_error *e = cuplug__error(
        CUPLUG_ERR_LAUNCH_BOUNDS,
        "Got %zu launch bounds: (%s). A maximum of three are supported: "
        "(max_threads_per_block, min_blocks_per_sm, max_blocks_per_cluster)",
        a->num_launch_bounds, b.data ? b.data : "");
    cuplug__buf_free(&b);
    return e;
  }
  if (a->num_launch_bounds && !a->launch_bounds)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "compile: num_launch_bounds is %zu but launch_bounds is NULL",
                         a->num_launch_bounds);
  if (a->num_launch_bounds && !kernel)
    return cuplug__error(CUPLUG_ERR_LAUNCH_BOUNDS,
                         "launch bounds apply to kernels, not device functions");
  static const char *const bound_names[] = {"max_threads_per_block", "min_blocks_per_sm",
                                            "max_blocks_per_cluster"};
  for (size_t i = 0; i < a->num_launch_bounds; i++)
    if (a->launch_bounds[i] == 0)
      return cuplug__error(CUPLUG_ERR_LAUNCH_BOUNDS, "launch bound %zu (%s) is 0: it must be positive",
                           i + 1, bound_names[i]);

  if (a->opt < CUPLUG_OPT_NONE || a->opt > 3)
    return cuplug__error(CUPLUG_ERR_OPTION_OPT,
                         "opt level %d: libNVVM takes 0 to 3 (CUPLUG_OPT_NONE for 0)", a->opt);
  j->opt = a->opt == 0 ? 3 : a->opt == CUPLUG_OPT_NONE ? 0 : a->opt;
  if (a->cc_major == 0 && a->cc_minor != 0)
    return cuplug__error(CUPLUG_ERR_OPTION_CC, "compute capability 0.%u: give a major version",
                         a->cc_minor);
  if (a->cc_major && (a->flags & CUPLUG_COMPILE_CURRENT_DEVICE))
    return cuplug__error(CUPLUG_ERR_OPTION_CC,
                         "compute capability %u.%u given together with "
                         "CUPLUG_COMPILE_CURRENT_DEVICE: give one",
                         a->cc_major, a->cc_minor);
  if (a->cc_major > 99 || a->cc_minor > 9)
    return cuplug__error(CUPLUG_ERR_OPTION_CC, "compute capability %u.%u is not one",
                         a->cc_major, a->cc_minor);

  if (!a->entry || !*a->entry)
    return cuplug__error(CUPLUG_ERR_OPTION_NAME, "compile: no entry symbol given");
  if (a->abi_name && !is_identifier(a->abi_name))
    return cuplug__error(CUPLUG_ERR_OPTION_NAME,
                         "abi_name '%s' is not a C identifier", a->abi_name);
  if (!a->abi_name && !kernel && j->abi == CUPLUG_ABI_C && j->entry_abi == CUPLUG_ABI_NUMBA &&
      !is_identifier(a->entry))
    return cuplug__error(CUPLUG_ERR_OPTION_NAME,
                         "the C-ABI function would take the entry's name '%s', which is not a "
                         "C identifier: give abi_name",
                         a->entry);
  if (a->abi_name && (kernel || j->abi == CUPLUG_ABI_NUMBA ||
                      (j->entry_abi == CUPLUG_ABI_C && strcmp(a->abi_name, a->entry) != 0)))
    return cuplug__error(CUPLUG_ERR_OPTION_NAME,
                         "abi_name '%s' names a C-ABI wrapper, which this compile has none of "
                         "(%s)",
                         a->abi_name,
                         kernel ? "a kernel keeps its entry's name"
                         : j->abi == CUPLUG_ABI_NUMBA ? "the Numba ABI keeps the entry's name"
                                                      : "the entry is already C-ABI");

  j->art = cuplug__artifact_new();
  if (!j->art) return cuplug__error_oom();
  if (a->debug && j->opt)
    CUPLUG_TRY(cuplug__artifact_warn(
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
    CUPLUG_TRY(cuplug__signature_parse(a->signature, &j->sig));
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
    /* A NUL-terminated copy: the lexer's sentinel, and LLVM's.  It lives
     * to the end of the compile, for the validator reads it meanwhile. */
    if (!(j->copies[i] = cuplug__strndup(m->text, m->size))) return cuplug__error_oom();
    j->mods[i] = (cuplug__text){name, j->copies[i], m->size};
  }
  return NULL;
}

/* ---- start_validation ---- */

static void validate_task(void *arg) {
  job *j = arg;
  j->validation = cuplug__validate(j->inputs, j->a->num_modules, j->a->entry, j->sig,
                                   j->entry_abi, j->s->registry, &j->valid_entry_module);
}

static cuplug_error *start_validation(job *j) {
  size_t n = j->a->num_modules;
  j->inputs = malloc(n * sizeof *j->inputs);
  if (!j->inputs) return cuplug__error_oom();
  memcpy(j->inputs, j->mods, n * sizeof *j->inputs);
  j->validator = cuplug__pool_run(&j->s->validators, validate_task, j);
  if (!j->validator) validate_task(j); /* no thread to be had: validate here */
  return NULL;
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
  CUPLUG_TRY(cuplug__nvvm_ir_version(&j->s->toolkit, &j->irv));
  if (a->flags & CUPLUG_COMPILE_CURRENT_DEVICE) {
    int major, minor;
    CUPLUG_TRY(cuplug__toolkit_current_cc(&j->s->toolkit, &major, &minor));
    return cuplug__session_cc(j->s, (uint32_t)major, (uint32_t)minor, &j->cc_major,
                              &j->cc_minor);
  }
  return cuplug__session_cc(j->s, a->cc_major, a->cc_minor, &j->cc_major, &j->cc_minor);
}

/* ---- find_entry ---- */

static cuplug_error *find_entry(job *j) {
  for (size_t i = 0; i < j->num_mods; i++) {
    if (ir_text_defines(j->mods[i].text, j->mods[i].size, j->a->entry)) {
      j->entry_module = i;
      return NULL;
    }
  }
  /* A name the quick look cannot see (escapes), or no entry at all: the
   * validator knows which. */
  CUPLUG_TRY(finish_validation(j));
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
      refs += ir_text_references(j->inputs[k].text, j->inputs[k].size, a->entry);
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
    if (d->kind == CUPLUG_IMPL_IR || d->kind == CUPLUG_IMPL_CALLBACK ||
        d->kind == CUPLUG_IMPL_BUILTIN) {
      const char *text;
      CUPLUG_TRY(cuplug__impl_ir(d, &text));
      if (d->kind == CUPLUG_IMPL_BUILTIN)
        CUPLUG_TRY(merge_builtin(j, text));
      else
        CUPLUG_TRY(add_module(j, d->symbol, (char *)text, false));
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
    CUPLUG_TRY(ir_rewrite_begin(&rw, j->mods[i].name, j->mods[i].text, j->mods[i].size,
                                cuplug__legalize_watch()));
    /* an implementation's definitions become linkonce_odr: artifacts that
     * both inline it still link together */
    cuplug_error *e =
        i < j->a->num_modules ? wrap(j, i, &rw) : cuplug__linkonce_definitions(&rw);
    if (!e) e = cuplug__legalize(&rw, j->irv, &j->uses_libdevice);
    if (!e) e = note_declared(j, &rw.m);
    if (e) {
      ir_rewrite_abort(&rw);
      return e;
    }
    char *out;
    size_t n;
    CUPLUG_TRY(ir_rewrite_finish(&rw, &out, &n));
    free(j->owned[i]); /* the text it was made from, when the job owned it */
    j->owned[i] = out;
    j->mods[i].text = out;
    j->mods[i].size = n;
  }
  return NULL;
}

/* ---- run_nvvm ---- */

static cuplug_error *run_nvvm(job *j) {
  cuplug_compile_args *a = j->a;
  bool ltoir = a->output == CUPLUG_OUTPUT_LTOIR || (a->output == CUPLUG_OUTPUT_CUBIN && j->lto);
  cuplug__nvvm_options o = {j->cc_major, j->cc_minor, j->opt, a->debug != 0,
                            a->lineinfo != 0, a->fastmath != 0, ltoir, j->uses_libdevice};
  cuplug_artifact *art = j->art;
  cuplug__code own = {ltoir ? CUPLUG_CODE_LTOIR : CUPLUG_CODE_PTX, NULL, NULL, 0};
  CUPLUG_TRY(cuplug__nvvm_compile(&j->s->toolkit, j->mods, j->num_mods, &o, &own.data,
                                  &own.size, &art->log));
  own.name = cuplug__strdup(j->symbol);
  CUPLUG_TRY(cuplug__artifact_add_part(art, &own));
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
  art->cc_major = j->cc_major;
  art->cc_minor = j->cc_minor;
  art->kind = a->kind;
  art->debug = a->debug != 0;
  art->lineinfo = a->lineinfo != 0;
  art->max_registers = a->max_registers;
  art->signature = j->sig;
  if (!art->symbol) return cuplug__error_oom();
  return NULL;
}

/* ---- link_code ---- */

/* Appends a copy of `c` (a .cu compiled by NVRTC first) to the list. */
static cuplug_error *gather(job *j, const cuplug__code *c, cuplug__code **list, size_t *n) {
  cuplug__code *v = realloc(*list, (*n + 1) * sizeof *v);
  if (!v) return cuplug__error_oom();
  *list = v;
  cuplug__code *out = &v[*n];
  if (c->kind == CUPLUG_CODE_CU) {
    cuplug_compile_args *a = j->a;
    cuplug__nvrtc_options o = {j->cc_major, j->cc_minor, j->all ? a->output == CUPLUG_OUTPUT_LTOIR
                                                                : j->lto,
                               a->debug != 0, a->lineinfo != 0, a->include_paths,
                               a->num_include_paths};
    CUPLUG_TRY(cuplug__nvrtc_compile(&j->s->toolkit, &j->s->nvrtc, c, &o, out));
  } else {
    CUPLUG_TRY(cuplug__code_make(c->kind, c->name, c->data, c->size, out));
  }
  (*n)++;
  return NULL;
}

static cuplug_error *link_code(job *j) {
  cuplug_compile_args *a = j->a;
  if (a->output != CUPLUG_OUTPUT_CUBIN && !j->all) return NULL;
  cuplug_artifact *art = j->art;
  /* the own code first, then what it links */
  cuplug__code *list = malloc(sizeof *list);
  if (!list) return cuplug__error_oom();
  size_t n = 0;
  cuplug_error *e = cuplug__code_make(art->parts[0].kind, art->parts[0].name,
                                      art->parts[0].data, art->parts[0].size, &list[0]);
  if (!e) n = 1;
  bool cooperative = false;
  /* declared functions' code and CUDA C++ implementations */
  for (size_t d = 0; !e && d < j->num_used; d++) {
    cooperative |= j->used[d]->cooperative;
    for (size_t c = 0; !e && c < j->used[d]->num_code; c++)
      e = gather(j, &j->used[d]->code[c], &list, &n);
  }
  for (size_t i = 0; !e && i < a->num_link; i++) {
    cuplug__code in;
    e = cuplug__code_import(a->link[i], i, &in);
    if (!e) e = gather(j, &in, &list, &n);
    cuplug__code_free(&in);
  }
  if (!e && cooperative && !j->all) {
    const void *rt;
    size_t size;
    e = cuplug__toolkit_cudadevrt(&j->s->toolkit, &rt, &size);
    if (!e) {
      cuplug__code devrt = {CUPLUG_CODE_ARCHIVE, "libcudadevrt.a", (char *)rt, size};
      e = gather(j, &devrt, &list, &n);
    }
  }
  art->cooperative = cooperative;
  if (!e && j->all) {
    /* compile_all: the own code is part 0 already; the rest follow */
    for (size_t i = 1; !e && i < n; i++) e = cuplug__artifact_add_part(art, &list[i]);
  } else if (!e) {
    cuplug__link_options o = {j->cc_major, j->cc_minor, j->lto, a->debug != 0,
                              a->lineinfo != 0, a->max_registers};
    cuplug__code cubin, ptx;
    bool want_ptx = a->flags & CUPLUG_COMPILE_LINKED_PTX;
    e = cuplug__link(&j->s->toolkit, list, n, &o, &cubin, want_ptx ? &ptx : NULL,
                     &art->link_log);
    if (!e) {
      /* the cubin replaces the own code as the result */
      for (size_t i = 0; i < art->num_parts; i++) cuplug__code_free(&art->parts[i]);
      art->num_parts = 0;
      e = cuplug__artifact_add_part(art, &cubin);
      if (!e && want_ptx) e = cuplug__artifact_add_part(art, &ptx);
      art->output = CUPLUG_OUTPUT_CUBIN;
    }
  }
  for (size_t i = 0; i < n; i++) cuplug__code_free(&list[i]);
  free(list);
  return e;
}

/* Keeps the legalised modules in the artifact (CUPLUG_COMPILE_KEEP_IR). */
static cuplug_error *keep_ir(job *j) {
  cuplug_artifact *art = j->art;
  cuplug__ir_module *v = realloc(art->ir, (art->num_ir + j->num_mods) * sizeof *v);
  if (!v) return cuplug__error_oom();
  art->ir = v;
  for (size_t i = 0; i < j->num_mods; i++) {
    cuplug__ir_module *m = &art->ir[art->num_ir];
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
  static const stage stages[] = {check_options, read_signature, read_modules, start_validation,
                                 choose_cc,     find_entry,     lower,        run_nvvm,
                                 link_code};
  job j = {0};
  j.a = a;
  j.all = all;
  a->artifact = NULL;
  cuplug_error *e = NULL;
  for (size_t i = 0; i < sizeof stages / sizeof stages[0] && !e; i++) e = stages[i](&j);
  if (!e && (a->flags & CUPLUG_COMPILE_KEEP_IR)) e = keep_ir(&j);
  /* The validator's verdict comes first: it names the line and column. */
  cuplug_error *v = finish_validation(&j);
  if (v) {
    cuplug__error_destroy(e);
    e = v;
  }
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
    cuplug__artifact_destroy(j.art);
    return e;
  }
  a->artifact = j.art;
  return NULL;
}

cuplug_error *cuplug__compile(cuplug_compile_args *a) { return run(a, false); }
cuplug_error *cuplug__compile_all(cuplug_compile_args *a) { return run(a, true); }
