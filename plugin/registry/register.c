/* register.c - the registering calls: declare_device, register_template,
 * register_lowering and const_array.
 *
 * Each checks its arguments, makes what it registers without a lock, and
 * inserts it under the write lock (cuplug__registry_insert), where the
 * duplicates are refused. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/types.h"
#include "lowering/builtins.h"
#include "lowering/irlex.h"
#include "plugin/llvm/validate.h"
#include "plugin/registry/internal.h"

/* ---- argument checks shared by the registering calls ---- */

static bool is_key(const char *s) {
  if (!s || !*s) return false;
  for (; *s; s++)
    if (isspace((unsigned char)*s) || !isprint((unsigned char)*s)) return false;
  return true;
}

static bool is_symbol(const char *s) {
  if (!s || !(isalpha((unsigned char)*s) || *s == '_' || *s == '$')) return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_' && *s != '$' && *s != '.') return false;
  return true;
}

static cuplug_error *check_key(const char *what, const char *key) {
  if (!is_key(key))
    return cuplug__error(CUPLUG_ERR_OPTION_NAME, "%s: key '%s' is empty or holds spaces", what,
                         key ? key : "(null)");
  return NULL;
}

/* The signature a call gives as a string or a handle ("what" names the
 * call in messages); with `optional`, neither is fine (*out NULL). */
static cuplug_error *read_signature(const char *what, const char *key, const char *text,
                                    const cuplug_type *type, bool optional,
                                    const cuplug_type **out) {
  *out = NULL;
  if (text && type)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "%s %s: give one of signature and signature_type, not both", what, key);
  if (!text && !type) {
    if (optional) return NULL;
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "%s %s: give its signature", what, key);
  }
  if (text) CUPLUG__TRY(cuplug__signature_parse(text, &type));
  if (type->kind != CUPLUG_TYPE_SIGNATURE)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "%s %s: signature_type %s is not a signature",
                         what, key, type->name);
  *out = type;
  return NULL;
}

static cuplug_error *check_abi(const char *what, const char *key, cuplug_abi abi) {
  if (!cuplug__abi_valid(abi))
    return cuplug__error(CUPLUG_ERR_OPTION_ABI, "%s %s: unsupported ABI %d (numba or c)", what,
                         key, (int)abi);
  return NULL;
}

/* ---- declare_device ---- */

/* A declared name must be new as a key and as a symbol. */
static cuplug_error *refuse_declaration(cuplug_registry *r, const char *key,
                                        const cuplug__template *t, const cuplug__impl *m) {
  (void)t;
  const cuplug__key *old = cuplug__registry_own_key(r, key);
  if (old)
    return cuplug__error(CUPLUG_ERR_DUPLICATE, "%s is already declared, as %s", key,
                         old->num_templates && old->templates[0].sig ? old->templates[0].sig->name
                                                                     : "a generic template");
  const cuplug__impl *taken = cuplug__map_get(&r->symbols, m->symbol, strlen(m->symbol));
  if (taken)
    return cuplug__error(CUPLUG_ERR_DUPLICATE, "%s is already the symbol of %s (%s)", key,
                         taken->key, taken->sig ? taken->sig->name : "generic");
  return NULL;
}

static cuplug_error *check_declaration(const cuplug_declare_device_args *a) {
  if (!a->registry)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "declare_device: registry is NULL");
  if (!a->name || !*a->name)
    return cuplug__error(CUPLUG_ERR_OPTION_NAME, "declare_device: no name given");
  if (!is_symbol(a->name))
    return cuplug__error(CUPLUG_ERR_OPTION_NAME, "declare_device: '%s' is not a symbol name",
                         a->name);
  CUPLUG__TRY(check_abi("declare_device", a->name, a->abi));
  if (a->num_link && !a->link)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "declare_device %s: num_link is %zu but link is NULL", a->name,
                         a->num_link);
  return NULL;
}

/* The external implementation, with its code read now. */
static cuplug_error *make_external(const cuplug_declare_device_args *a, const cuplug_type *sig,
                                   cuplug__impl **out) {
  cuplug__impl *m = calloc(1, sizeof *m);
  if (!m) return cuplug__error_oom();
  m->kind = CUPLUG__IMPL_EXTERNAL;
  m->symbol = cuplug__strdup(a->name);
  m->sig = sig;
  m->abi = a->abi == CUPLUG_ABI_C ? CUPLUG_ABI_C : CUPLUG_ABI_NUMBA;
  m->cooperative = a->use_cooperative != 0;
  m->host_function = a->host_function;
  m->code = a->num_link ? calloc(a->num_link, sizeof *m->code) : NULL;
  cuplug_error *e = !m->symbol || (a->num_link && !m->code) ? cuplug__error_oom() : NULL;
  for (size_t i = 0; !e && i < a->num_link; i++) {
    e = cuplug__code_import(a->link[i], i, &m->code[i]);
    if (!e) m->num_code++;
  }
  if (e) {
    cuplug__impl_free(m);
    return e;
  }
  *out = m;
  return NULL;
}

cuplug_error *cuplug__declare_device(cuplug_declare_device_args *a) {
  CUPLUG__TRY(check_declaration(a));
  const cuplug_type *sig;
  CUPLUG__TRY(read_signature("declare_device", a->name, a->signature, a->signature_type, false,
                             &sig));
  cuplug__impl *m = NULL;
  CUPLUG__TRY(make_external(a, sig, &m));
  cuplug__template t = {.sig = sig};
  return cuplug__registry_insert(a->registry, a->name, &t, m, refuse_declaration);
}

/* ---- register_template ---- */

/* A key holds each concrete signature once, its own or the built-ins'. */
static cuplug_error *refuse_template(cuplug_registry *r, const char *key,
                                     const cuplug__template *t, const cuplug__impl *m) {
  (void)m;
  if (t->sig && (cuplug__key_has_signature(cuplug__registry_own_key(r, key), t->sig) ||
                 cuplug__key_has_signature(cuplug__registry_base_key(r, key), t->sig)))
    return cuplug__error(CUPLUG_ERR_DUPLICATE, "%s already has the signature %s", key,
                         t->sig->name);
  return NULL;
}

cuplug_error *cuplug__register_template(cuplug_template_args *a) {
  if (!a->registry)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "register_template: registry is NULL");
  CUPLUG__TRY(check_key("register_template", a->key));
  cuplug__template t = {.typer = a->typer, .user_data = a->user_data,
                        .description = (char *)a->description};
  if (a->typer && (a->signature || a->signature_type))
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "register_template %s: give a signature or a typer, not both", a->key);
  if (!a->typer)
    CUPLUG__TRY(read_signature("register_template", a->key, a->signature, a->signature_type,
                               false, &t.sig));
  return cuplug__registry_insert(a->registry, a->key, &t, NULL, refuse_template);
}

/* ---- register_lowering: check, make, insert ---- */

/* Does the text hold `name` as a whole identifier? */
static bool mentions_name(const char *text, size_t n, const char *name) {
  size_t len = strlen(name);
  for (const char *p = text; (p = memmem(p, n - (size_t)(p - text), name, len)); p++) {
    bool start = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    bool end = (size_t)(p - text) + len == n ||
               !(isalnum((unsigned char)p[len]) || p[len] == '_');
    if (start && end) return true;
  }
  return false;
}

static cuplug_error *check_lowering(const cuplug_lowering_args *a, const cuplug_type **sig) {
  if (!a->registry)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "register_lowering: registry is NULL");
  CUPLUG__TRY(check_key("register_lowering", a->key));
  const char *key = a->key;
  CUPLUG__TRY(check_abi("register_lowering", key, a->abi));
  if (a->kind != CUPLUG_LOWER_IR && a->kind != CUPLUG_LOWER_CUDA &&
      a->kind != CUPLUG_LOWER_CALLBACK)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "register_lowering %s: kind %d is not IR (1), CUDA (2) or CALLBACK (3)",
                         key, (int)a->kind);
  bool callback = a->kind == CUPLUG_LOWER_CALLBACK;
  CUPLUG__TRY(read_signature("register_lowering", key, a->signature, a->signature_type, callback,
                             sig));
  if (callback && !a->lowerer)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "register_lowering %s: a CALLBACK lowering needs its lowerer", key);
  if (!callback && (!a->source || !*a->source))
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "register_lowering %s: an %s lowering needs its source text", key,
                         a->kind == CUPLUG_LOWER_IR ? "IR" : "CUDA");
  if ((!callback || a->symbol) && !is_symbol(a->symbol))
    return cuplug__error(CUPLUG_ERR_OPTION_NAME, "register_lowering %s: %s", key,
                         a->symbol ? "the symbol is not a symbol name"
                                   : "give the symbol its code defines");
  if (!*sig && a->symbol)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "register_lowering %s: a lowering for every signature cannot have one "
                         "symbol: give a signature, or no symbol",
                         key);
  return NULL;
}

/* IR: parsed by LLVM now, and it must define the symbol with the type of
 * the signature. */
static cuplug_error *take_ir(const cuplug_lowering_args *a, size_t n, cuplug__impl *m) {
  m->kind = CUPLUG__IMPL_IR;
  char *text = cuplug__strndup(a->source, n);
  if (!text) return cuplug__error_oom();
  atomic_init(&m->ir, text); /* the lowering's now, to free */
  CUPLUG__TRY(cuplug__ir_check_limits(a->key, text, n));
  cuplug__text t = {a->key, text, n};
  return cuplug__validate_lowering(&t, a->key, m->symbol, m->sig, m->abi);
}

/* CUDA C++: compiled by NVRTC when a compile links it; it must at least
 * mention the symbol. */
static cuplug_error *take_cuda(const cuplug_lowering_args *a, size_t n, cuplug__impl *m) {
  m->kind = CUPLUG__IMPL_CUDA;
  m->code = calloc(1, sizeof *m->code);
  if (!m->code) return cuplug__error_oom();
  char name[512];
  snprintf(name, sizeof name, "%s.cu", m->symbol);
  CUPLUG__TRY(cuplug__code_make(CUPLUG_CODE_CU, name, a->source, n, &m->code[0]));
  m->num_code = 1;
  if (!mentions_name(a->source, n, m->symbol))
    return cuplug__error(CUPLUG_ERR_LOWERING,
                         "lowering of %s: its CUDA C++ does not mention the symbol %s it "
                         "should define",
                         a->key, m->symbol);
  return NULL;
}

static cuplug_error *make_lowering(const cuplug_lowering_args *a, const cuplug_type *sig,
                                   cuplug__impl **out) {
  cuplug__impl *m = calloc(1, sizeof *m);
  if (!m) return cuplug__error_oom();
  m->kind = CUPLUG__IMPL_CALLBACK;
  m->sig = sig;
  m->abi = a->abi == CUPLUG_ABI_NUMBA ? CUPLUG_ABI_NUMBA : CUPLUG_ABI_C;
  m->lowerer = a->lowerer;
  m->user_data = a->user_data;
  cuplug_error *e = a->symbol && !(m->symbol = cuplug__strdup(a->symbol)) ? cuplug__error_oom()
                                                                          : NULL;
  size_t n = a->source ? (a->source_size ? a->source_size : strlen(a->source)) : 0;
  if (!e && a->kind == CUPLUG_LOWER_IR) e = take_ir(a, n, m);
  if (!e && a->kind == CUPLUG_LOWER_CUDA) e = take_cuda(a, n, m);
  if (e) {
    cuplug__impl_free(m);
    return e;
  }
  *out = m;
  return NULL;
}

/* A key has one lowering per signature (its own or the built-ins'), and a
 * symbol is defined once. */
static cuplug_error *refuse_lowering(cuplug_registry *r, const char *key,
                                     const cuplug__template *t, const cuplug__impl *m) {
  (void)t;
  if (cuplug__key_impl(cuplug__registry_own_key(r, key), m->sig) ||
      (m->sig && cuplug__key_impl(cuplug__registry_base_key(r, key), m->sig)))
    return cuplug__error(CUPLUG_ERR_DUPLICATE, "%s already has a lowering for %s", key,
                         m->sig ? m->sig->name : "every signature");
  const cuplug__impl *taken =
      m->symbol ? cuplug__map_get(&r->symbols, m->symbol, strlen(m->symbol)) : NULL;
  if (taken)
    return cuplug__error(CUPLUG_ERR_DUPLICATE, "symbol %s is already the lowering of %s (%s)",
                         m->symbol, taken->key, taken->sig ? taken->sig->name : "generic");
  return NULL;
}

cuplug_error *cuplug__register_lowering(cuplug_lowering_args *a) {
  const cuplug_type *sig;
  CUPLUG__TRY(check_lowering(a, &sig));
  cuplug__impl *m = NULL;
  CUPLUG__TRY(make_lowering(a, sig, &m));
  return cuplug__registry_insert(a->registry, a->key, NULL, m, refuse_lowering);
}

/* ---- constant arrays ---- */

static cuplug_error *check_const_array(const cuplug_const_array_args *a) {
  if (!a->registry)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "const_array: registry is NULL");
  if (!a->dtype || !cuplug__type_is_scalar_value(a->dtype))
    return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                         "const_array: the dtype must be bool, an integer, a float or a complex%s%s",
                         a->dtype ? ", not " : "", a->dtype ? a->dtype->name : "");
  if (a->ndim < 1 || a->ndim > 8 || !a->shape)
    return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                         "const_array: give 1 to 8 dimensions and their shape (ndim %u)", a->ndim);
  uint64_t count = 1;
  for (uint32_t d = 0; d < a->ndim; d++) {
    if (a->shape[d] < 0 || (a->shape[d] && count > UINT64_MAX / (uint64_t)a->shape[d]))
      return cuplug__error(CUPLUG_ERR_INVALID_TYPE, "const_array: extent %u is %lld", d,
                           (long long)a->shape[d]);
    count *= (uint64_t)a->shape[d];
  }
  uint64_t size = cuplug__type_size(a->dtype);
  if (count > UINT64_MAX / size)
    return cuplug__error(CUPLUG_ERR_INVALID_TYPE, "const_array: %llu elements of %s are too many",
                         (unsigned long long)count, a->dtype->name);
  if (count * size != a->size || (a->size && !a->data))
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "const_array: the shape holds %llu bytes of %s, but %zu were given",
                         (unsigned long long)(count * size), a->dtype->name, a->size);
  return NULL;
}

cuplug_error *cuplug__const_array(cuplug_const_array_args *a) {
  CUPLUG__TRY(check_const_array(a));
  cuplug_registry *r = a->registry;
  const cuplug_type *array, *sig;
  CUPLUG__TRY(cuplug__type_array(a->dtype, a->ndim, CUPLUG_LAYOUT_C, &array));
  CUPLUG__TRY(cuplug__type_signature(array, NULL, 0, &sig));

  cuplug__impl *m = calloc(1, sizeof *m);
  if (!m) return cuplug__error_oom();
  m->kind = CUPLUG__IMPL_IR;
  m->sig = sig;
  m->abi = CUPLUG_ABI_C;
  unsigned long serial = atomic_fetch_add(&r->serial, 1) + 1;
  m->symbol = cuplug__symbol_for("cuda.const.array_like", sig, serial);
  cuplug__buf b;
  cuplug__buf_init(&b);
  if (m->symbol) cuplug__const_array_ir(&b, m->symbol, array, a->shape, a->data, a->size);
  if (!m->symbol || b.oom) {
    cuplug__buf_free(&b);
    cuplug__impl_free(m);
    return cuplug__error_oom();
  }
  atomic_init(&m->ir, cuplug__buf_take(&b, NULL));
  /* m is the registry's once inserted, and never moves: its fields are read
   * here without the lock, which a registration on another thread may
   * hold while it grows the key's list of implementations */
  CUPLUG__TRY(cuplug__registry_insert(r, "cuda.const.array_like", NULL, m, NULL));
  a->declaration = cuplug__declaration_of(m);
  if (!a->declaration) return cuplug__error_oom();
  a->signature = sig;
  a->symbol = m->symbol;
  a->abi = CUPLUG_ABI_C;
  return NULL;
}
