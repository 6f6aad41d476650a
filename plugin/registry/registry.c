/* registry.c - typing templates, lowering implementations, resolve_call.
 *
 * Every registry but an empty one (CUPLUG_REGISTRY_NO_BUILTINS) sits on
 * the built-in registry, made once per process: lookups consult the
 * registry's own keys, then the built-ins'.  What a resolve instantiates (a
 * generic implementation's symbol for one signature) goes into the registry
 * that holds the implementation: a built-in's into the built-in registry,
 * where every registry of the process finds it, and its IR is written once.
 *
 * Locking: one reader-writer lock per registry.  Registrations write;
 * resolves and compiles read, and take the write lock only to add an
 * instance.  Keys, templates and implementations are never freed before
 * the registry, so pointers to them stay good after the lock is let go. */
#include "plugin/registry/registry.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lowering/builtins.h"
#include "base/error.h"
#include "base/typeconv.h"
#include "base/types.h"
#include "plugin/llvm/validate.h"

/* ---- creation and release ---- */

static void impl_free(cuplug__impl *m) {
  if (!m) return;
  free(m->symbol);
  for (size_t i = 0; i < m->num_code; i++) cuplug__code_free(&m->code[i]);
  free(m->code);
  free(atomic_load_explicit(&m->ir, memory_order_relaxed));
  free(atomic_load_explicit(&m->declaration, memory_order_relaxed));
  free(m);
}

static void key_free(cuplug__key *k) {
  if (!k) return;
  for (size_t i = 0; i < k->num_templates; i++) free(k->templates[i].description);
  free(k->templates);
  for (size_t i = 0; i < k->num_impls; i++) impl_free(k->impls[i]);
  free(k->impls);
  free(k->name);
  free(k);
}

static void registry_free(cuplug_registry *r) {
  for (size_t i = 0; i < r->keys.cap; i++) key_free(r->keys.slots[i].value);
  for (size_t i = 0; i < r->num_instances; i++) impl_free(r->instances[i]);
  free(r->instances);
  cuplug__map_free(&r->keys);
  cuplug__map_free(&r->symbols);
  pthread_rwlock_destroy(&r->lock);
  free(r);
}

static cuplug_error *registry_new(cuplug_registry **out) {
  cuplug_registry *r = calloc(1, sizeof *r);
  if (!r) return cuplug__error_oom();
  atomic_init(&r->refs, 1);
  atomic_init(&r->serial, 0);
  pthread_rwlock_init(&r->lock, NULL);
  *out = r;
  return NULL;
}

static cuplug_registry *builtin_registry;
static cuplug_error *builtin_failure;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static cuplug_error *add_builtin(cuplug_registry *r, const cuplug__builtin *b);

static void builtins_init(void) {
  cuplug_registry *r;
  cuplug_error *e = registry_new(&r);
  size_t n;
  const cuplug__builtin *const *all = cuplug__builtins(&n);
  for (size_t i = 0; !e && i < n; i++) e = add_builtin(r, all[i]);
  if (e) {
    if (r) registry_free(r);
    builtin_failure = e;
    return;
  }
  builtin_registry = r;
}

__attribute__((destructor)) static void builtins_unload(void) {
  if (builtin_registry) registry_free(builtin_registry);
  builtin_registry = NULL;
  cuplug__error_destroy(builtin_failure);
}

cuplug_error *cuplug__registry_create(uint32_t flags, cuplug_registry **out) {
  cuplug_registry *base = NULL;
  if (!(flags & CUPLUG_REGISTRY_NO_BUILTINS)) {
    pthread_once(&builtin_once, builtins_init);
    if (builtin_failure)
      return cuplug__error(builtin_failure->code, "the built-in library failed to register: %s",
                           builtin_failure->message);
    base = builtin_registry;
  }
  CUPLUG__TRY(registry_new(out));
  (*out)->base = base;
  return NULL;
}

void cuplug__registry_retain(cuplug_registry *r) {
  atomic_fetch_add_explicit(&r->refs, 1, memory_order_relaxed);
}

void cuplug__registry_release(cuplug_registry *r) {
  if (!r || atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) != 1) return;
  registry_free(r);
}

/* ---- lookups (the caller holds the lock) ---- */

static cuplug__key *own_key(const cuplug_registry *r, const char *name) {
  return cuplug__map_get(&r->keys, name, strlen(name));
}

static const cuplug__key *base_key(const cuplug_registry *r, const char *name) {
  return r->base ? own_key(r->base, name) : NULL;
}

static cuplug__impl *impl_for(const cuplug__key *k, const cuplug_type *sig) {
  for (size_t i = 0; k && i < k->num_impls; i++)
    if (k->impls[i]->sig == sig) return k->impls[i];
  return NULL;
}

static bool has_signature(const cuplug__key *k, const cuplug_type *sig) {
  for (size_t i = 0; k && i < k->num_templates; i++)
    if (k->templates[i].sig == sig) return true;
  return false;
}

cuplug__impl *cuplug__registry_symbol(cuplug_registry *r, const char *symbol, size_t len) {
  cuplug__impl *m = NULL;
  for (; r && !m; r = r->base) {
    pthread_rwlock_rdlock(&r->lock);
    m = cuplug__map_get(&r->symbols, symbol, len);
    pthread_rwlock_unlock(&r->lock);
  }
  return m;
}

/* ---- registering (the caller holds the write lock) ---- */

static cuplug_error *key_get(cuplug_registry *r, const char *name, bool builtin,
                             cuplug__key **out) {
  cuplug__key *k = own_key(r, name);
  if (!k) {
    k = calloc(1, sizeof *k);
    if (!k || !(k->name = cuplug__strdup(name)) || !cuplug__map_put(&r->keys, k->name, k)) {
      key_free(k);
      return cuplug__error_oom();
    }
    k->builtin = builtin;
  }
  *out = k;
  return NULL;
}

static cuplug_error *add_template(cuplug__key *k, const cuplug__template *t) {
  cuplug__template *v = realloc(k->templates, (k->num_templates + 1) * sizeof *v);
  if (!v) return cuplug__error_oom();
  k->templates = v;
  v[k->num_templates] = *t;
  if (t->description && !(v[k->num_templates].description = cuplug__strdup(t->description)))
    return cuplug__error_oom();
  k->num_templates++;
  return NULL;
}

/* Adds an implementation to its key (and its symbol to the table); on
 * failure the implementation is freed. */
static cuplug_error *add_impl(cuplug_registry *r, cuplug__key *k, cuplug__impl *m) {
  cuplug__impl **v = realloc(k->impls, (k->num_impls + 1) * sizeof *v);
  if (!v || (m->symbol && !cuplug__map_put(&r->symbols, m->symbol, m))) {
    if (v) k->impls = v;
    impl_free(m);
    return cuplug__error_oom();
  }
  k->impls = v;
  v[k->num_impls++] = m;
  m->key = k->name;
  return NULL;
}

static cuplug_error *add_builtin(cuplug_registry *r, const cuplug__builtin *b) {
  cuplug__key *k;
  CUPLUG__TRY(key_get(r, b->key, true, &k));
  if (b->signatures) {
    for (const char *const *s = b->signatures; *s; s++) {
      cuplug__template t = {0};
      CUPLUG__TRY(cuplug__signature_parse(*s, &t.sig));
      CUPLUG__TRY(add_template(k, &t));
    }
  } else {
    cuplug__template t = {.builtin = b, .description = (char *)b->description};
    CUPLUG__TRY(add_template(k, &t));
  }
  cuplug__impl *m = calloc(1, sizeof *m);
  if (!m) return cuplug__error_oom();
  m->kind = CUPLUG__IMPL_BUILTIN;
  m->abi = CUPLUG_ABI_C;
  m->builtin = b;
  return add_impl(r, k, m);
}

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

cuplug_error *cuplug__declare_device(cuplug_declare_device_args *a) {
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
  const cuplug_type *sig;
  CUPLUG__TRY(read_signature("declare_device", a->name, a->signature, a->signature_type, false,
                            &sig));

  cuplug__impl *m = calloc(1, sizeof *m);
  if (!m) return cuplug__error_oom();
  m->kind = CUPLUG__IMPL_EXTERNAL;
  m->symbol = cuplug__strdup(a->name);
  m->sig = sig;
  m->abi = a->abi == CUPLUG_ABI_C ? CUPLUG_ABI_C : CUPLUG_ABI_NUMBA;
  m->cooperative = a->use_cooperative != 0;
  m->code = a->num_link ? calloc(a->num_link, sizeof *m->code) : NULL;
  if (!m->symbol || (a->num_link && !m->code)) {
    impl_free(m);
    return cuplug__error_oom();
  }
  for (size_t i = 0; i < a->num_link; i++) {
    cuplug_error *e = cuplug__code_import(a->link[i], i, &m->code[i]);
    if (e) {
      impl_free(m);
      return e;
    }
    m->num_code++;
  }

  cuplug_registry *r = a->registry;
  pthread_rwlock_wrlock(&r->lock);
  cuplug_error *e = NULL;
  const cuplug__key *old = own_key(r, a->name);
  const cuplug__impl *taken = cuplug__map_get(&r->symbols, a->name, strlen(a->name));
  cuplug__key *k = NULL;
  if (old) {
    e = cuplug__error(CUPLUG_ERR_DUPLICATE, "%s is already declared, as %s", a->name,
                      old->num_templates && old->templates[0].sig ? old->templates[0].sig->name
                                                                  : "a generic template");
  } else if (taken) {
    e = cuplug__error(CUPLUG_ERR_DUPLICATE, "%s is already the symbol of %s (%s)", a->name,
                      taken->key, taken->sig ? taken->sig->name : "generic");
  } else if (!(e = key_get(r, a->name, false, &k))) {
    cuplug__template t = {.sig = sig};
    e = add_template(k, &t);
    if (!e) {
      e = add_impl(r, k, m);
      m = NULL; /* add_impl owns it now, or freed it */
    }
  }
  pthread_rwlock_unlock(&r->lock);
  impl_free(m);
  return e;
}

/* ---- register_template ---- */

cuplug_error *cuplug__register_template(cuplug_template_args *a) {
  if (!a->registry)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "register_template: registry is NULL");
  if (!is_key(a->key))
    return cuplug__error(CUPLUG_ERR_OPTION_NAME,
                         "register_template: key '%s' is empty or holds spaces",
                         a->key ? a->key : "(null)");
  cuplug__template t = {.typer = a->typer, .user_data = a->user_data,
                        .description = (char *)a->description};
  if (a->typer && (a->signature || a->signature_type))
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "register_template %s: give a signature or a typer, not both", a->key);
  if (!a->typer)
    CUPLUG__TRY(read_signature("register_template", a->key, a->signature, a->signature_type,
                              false, &t.sig));
  cuplug_registry *r = a->registry;
  pthread_rwlock_wrlock(&r->lock);
  cuplug__key *k = own_key(r, a->key);
  cuplug_error *e = NULL;
  if (t.sig && (has_signature(k, t.sig) || has_signature(base_key(r, a->key), t.sig)))
    e = cuplug__error(CUPLUG_ERR_DUPLICATE, "%s already has the signature %s", a->key,
                      t.sig->name);
  if (!e) e = key_get(r, a->key, false, &k);
  if (!e) e = add_template(k, &t);
  pthread_rwlock_unlock(&r->lock);
  return e;
}

/* ---- register_lowering ---- */

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

cuplug_error *cuplug__register_lowering(cuplug_lowering_args *a) {
  if (!a->registry)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "register_lowering: registry is NULL");
  if (!is_key(a->key))
    return cuplug__error(CUPLUG_ERR_OPTION_NAME,
                         "register_lowering: key '%s' is empty or holds spaces",
                         a->key ? a->key : "(null)");
  const char *key = a->key;
  CUPLUG__TRY(check_abi("register_lowering", key, a->abi));
  if (a->kind != CUPLUG_LOWER_IR && a->kind != CUPLUG_LOWER_CUDA &&
      a->kind != CUPLUG_LOWER_CALLBACK)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "register_lowering %s: kind %d is not IR (1), CUDA (2) or CALLBACK (3)",
                         key, (int)a->kind);
  bool callback = a->kind == CUPLUG_LOWER_CALLBACK;
  const cuplug_type *sig;
  CUPLUG__TRY(read_signature("register_lowering", key, a->signature, a->signature_type, callback,
                            &sig));
  if (callback && !a->lowerer)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "register_lowering %s: a CALLBACK lowering needs its lowerer", key);
  if (!callback && (!a->source || !*a->source))
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "register_lowering %s: an %s lowering needs its source text", key,
                         a->kind == CUPLUG_LOWER_IR ? "IR" : "CUDA");
  if ((!callback || a->symbol) && !is_symbol(a->symbol))
    return cuplug__error(CUPLUG_ERR_OPTION_NAME,
                         "register_lowering %s: %s", key,
                         a->symbol ? "the symbol is not a symbol name"
                                   : "give the symbol its code defines");
  if (!sig && a->symbol)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "register_lowering %s: a lowering for every signature cannot have one "
                         "symbol: give a signature, or no symbol",
                         key);

  cuplug__impl *m = calloc(1, sizeof *m);
  if (!m) return cuplug__error_oom();
  m->sig = sig;
  m->abi = a->abi == CUPLUG_ABI_NUMBA ? CUPLUG_ABI_NUMBA : CUPLUG_ABI_C;
  m->lowerer = a->lowerer;
  m->user_data = a->user_data;
  if (a->symbol && !(m->symbol = cuplug__strdup(a->symbol))) {
    impl_free(m);
    return cuplug__error_oom();
  }
  size_t n = a->source ? (a->source_size ? a->source_size : strlen(a->source)) : 0;
  cuplug_error *e = NULL;
  switch (a->kind) {
    case CUPLUG_LOWER_IR: {
      m->kind = CUPLUG__IMPL_IR;
      char *text = cuplug__strndup(a->source, n);
      if (!text) {
        e = cuplug__error_oom();
        break;
      }
      atomic_init(&m->ir, text);
      cuplug__text t = {key, text, n};
      e = cuplug__validate_lowering(&t, key, m->symbol, sig, m->abi);
      break;
    }
    case CUPLUG_LOWER_CUDA: {
      m->kind = CUPLUG__IMPL_CUDA;
      m->code = calloc(1, sizeof *m->code);
      cuplug__buf name;
      cuplug__buf_init(&name);
      cuplug__buf_printf(&name, "%s.cu", m->symbol);
      e = !m->code || name.oom
              ? cuplug__error_oom()
              : cuplug__code_make(CUPLUG_CODE_CU, name.data, a->source, n, &m->code[0]);
      cuplug__buf_free(&name);
      if (!e) m->num_code = 1;
      if (!e && !mentions_name(a->source, n, m->symbol))
        e = cuplug__error(CUPLUG_ERR_LOWERING,
                          "lowering of %s: its CUDA C++ does not mention the symbol %s it "
                          "should define",
                          key, m->symbol);
      break;
    }
    default:
      m->kind = CUPLUG__IMPL_CALLBACK;
      break;
  }
  if (e) {
    impl_free(m);
    return e;
  }

  cuplug_registry *r = a->registry;
  pthread_rwlock_wrlock(&r->lock);
  cuplug__key *k = own_key(r, key);
  const cuplug__impl *taken = m->symbol ? cuplug__map_get(&r->symbols, m->symbol, strlen(m->symbol)) : NULL;
  if (impl_for(k, sig) || (sig && impl_for(base_key(r, key), sig)))
    e = cuplug__error(CUPLUG_ERR_DUPLICATE, "%s already has a lowering for %s", key,
                      sig ? sig->name : "every signature");
  else if (taken)
    e = cuplug__error(CUPLUG_ERR_DUPLICATE, "symbol %s is already the lowering of %s (%s)",
                      m->symbol, taken->key, taken->sig ? taken->sig->name : "generic");
  if (!e) e = key_get(r, key, false, &k);
  if (!e) {
    e = add_impl(r, k, m);
    m = NULL;
  }
  pthread_rwlock_unlock(&r->lock);
  impl_free(m);
  return e;
}

/* ---- resolve_call ---- */

/* How a candidate signature fits the call: numba counts conversions of
 * each kind and prefers fewer unsafe, then fewer safe, then fewer
 * promotions; cuplug then prefers the nearer conversions (typeconv.c). */
typedef struct candidate {
  const cuplug_type *sig;
  int unsafe, safe, promote;
  unsigned distance;
  bool base; /* the built-ins' template gave it */
} candidate;

static int compare(const candidate *a, const candidate *b) {
  if (a->unsafe != b->unsafe) return a->unsafe - b->unsafe;
  if (a->safe != b->safe) return a->safe - b->safe;
  if (a->promote != b->promote) return a->promote - b->promote;
  return (a->distance > b->distance) - (a->distance < b->distance);
}

/* Rates sig against the argument types; false when it does not fit.
 * `unsafe_ok`: a generic template chose sig and may ask for any
 * conversion between numbers. */
static bool rate(const cuplug_type *sig, const cuplug_type *const *args, size_t n,
                 bool unsafe_ok, candidate *c) {
  *c = (candidate){sig, 0, 0, 0, 0, false};
  if (sig->nargs != n) return false;
  for (size_t i = 0; i < n; i++) {
    unsigned d;
    cuplug__conversion conv = cuplug__convert(args[i], sig->args[i], &d);
    c->distance += d;
    switch (conv) {
      case CUPLUG__CONV_EXACT: break;
      case CUPLUG__CONV_PROMOTE: c->promote++; break;
      case CUPLUG__CONV_SAFE: c->safe++; break;
      case CUPLUG__CONV_UNSAFE:
        if (!unsafe_ok) return false;
        c->unsafe++;
        break;
      default: return false;
    }
  }
  return true;
}

typedef struct search {
  const char *key;
  const cuplug_type *const *args;
  size_t nargs;
  candidate best;
  const cuplug_type *tied; /* a different signature as good as best */
  bool found;
} search;

static void consider(search *s, const candidate *c) {
  if (!s->found || compare(c, &s->best) < 0) {
    s->best = *c;
    s->tied = NULL;
    s->found = true;
  } else if (compare(c, &s->best) == 0 && c->sig != s->best.sig) {
    s->tied = c->sig;
  }
}

/* The candidates of a call that did not resolve: every template of the
 * key, for the message (written only then, so a resolve pays nothing). */
static void put_candidates(cuplug__buf *b, const cuplug__key *const *keys, size_t n) {
  size_t shown = 0;
  for (size_t k = 0; k < n; k++)
    for (size_t i = 0; keys[k] && i < keys[k]->num_templates; i++) {
      const cuplug__template *t = &keys[k]->templates[i];
      const char *what = t->sig ? t->sig->name
                         : t->description && *t->description ? t->description
                                                             : "a generic template";
      cuplug__buf_printf(b, "%s%s", shown++ ? ", " : "", what);
    }
  if (!shown) cuplug__buf_puts(b, "none");
}

static cuplug_error *consult(search *s, const cuplug__key *k, bool base) {
  for (size_t i = 0; k && i < k->num_templates; i++) {
    const cuplug__template *t = &k->templates[i];
    const cuplug_type *sig = t->sig;
    if (!sig && t->builtin) {
      CUPLUG__TRY(t->builtin->type(t->builtin, s->args, s->nargs, &sig));
    } else if (!sig) {
      char message[512] = "";
      cuplug_callback_status st =
          t->typer(t->user_data, s->key, s->args, s->nargs, &sig, message, sizeof message);
      message[sizeof message - 1] = '\0';
      if (st == CUPLUG_CALLBACK_NO_MATCH) {
        sig = NULL;
      } else if (st != CUPLUG_CALLBACK_OK) {
        return cuplug__error(CUPLUG_ERR_CALLBACK, "the typing template of %s failed%s%s",
                             s->key, *message ? ": " : "", message);
      } else if (!sig || sig->kind != CUPLUG_TYPE_SIGNATURE) {
        return cuplug__error(CUPLUG_ERR_CALLBACK,
                             "the typing template of %s answered OK without a signature",
                             s->key);
      } else if (sig->nargs != s->nargs) {
        return cuplug__error(CUPLUG_ERR_CALLBACK,
                             "the typing template of %s answered %s for a call with %zu "
                             "arguments",
                             s->key, sig->name, s->nargs);
      }
    }
    candidate c;
    if (sig && rate(sig, s->args, s->nargs, !t->sig, &c)) {
      c.base = base;
      consider(s, &c);
    }
  }
  return NULL;
}

/* "(int32, float32)" */
static void put_args(cuplug__buf *b, const cuplug_type *const *args, size_t n) {
  cuplug__buf_putc(b, '(');
  for (size_t i = 0; i < n; i++) cuplug__buf_printf(b, "%s%s", i ? ", " : "", args[i]->name);
  cuplug__buf_putc(b, ')');
}

/* "__cuplug_cuda_atomic_add_5d1c0e2a9b3f4471": the key made a C name,
 * and a hash of the key and signature.  The same in every registry, so
 * that code compiled with one links with code compiled with another. */
static size_t format_symbol(char *out, size_t cap, const char *key, const cuplug_type *sig,
                            unsigned long serial) {
  uint64_t h = 1469598103934665603ull;
  for (const char *p = key; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  h = (h ^ '|') * 1099511628211ull;
  for (const char *p = sig->name; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  size_t n = strlen("__cuplug_") + strlen(key);
  if (n + 40 > cap) return n + 40; /* room for the hash and a serial */
  char *p = stpcpy(out, "__cuplug_");
  for (const char *k = key; *k; k++) *p++ = isalnum((unsigned char)*k) ? *k : '_';
  p += sprintf(p, "_%016llx", (unsigned long long)h);
  if (serial) p += sprintf(p, "_%lu", serial);
  return (size_t)(p - out);
}

static char *symbol_for(const char *key, const cuplug_type *sig, unsigned long serial) {
  size_t need = format_symbol(NULL, 0, key, sig, serial);
  char *s = malloc(need);
  if (s) format_symbol(s, need, key, sig, serial);
  return s;
}

/* The symbol of the generic implementation `g` for sig: an instance made
 * now, or the one an earlier resolve made. */
static cuplug_error *instantiate(cuplug_registry *r, const cuplug__impl *g, const char *key,
                                 const cuplug_type *sig, const cuplug__impl **out) {
  bool unique = g->builtin && g->builtin->unique;
  unsigned long serial = unique ? atomic_fetch_add(&r->serial, 1) + 1 : 0;
  /* the common case: an earlier resolve made it (no allocation) */
  char local[192];
  if (format_symbol(local, sizeof local, key, sig, serial) < sizeof local && !unique) {
    pthread_rwlock_rdlock(&r->lock);
    cuplug__impl *m = cuplug__map_get(&r->symbols, local, strlen(local));
    pthread_rwlock_unlock(&r->lock);
    if (m && m->sig == sig && strcmp(m->key, key) == 0) {
      *out = m;
      return NULL;
    }
  }
  char *symbol = symbol_for(key, sig, serial);
  if (!symbol) return cuplug__error_oom();
  pthread_rwlock_wrlock(&r->lock);
  cuplug__impl *m = cuplug__map_get(&r->symbols, symbol, strlen(symbol));
  cuplug_error *e = NULL;
  if (m && (m->sig != sig || strcmp(m->key, key) != 0)) {
    e = cuplug__error(CUPLUG_ERR_DUPLICATE,
                      "the symbol %s of %s(%s) is taken by %s (%s): hash collision", symbol,
                      key, sig->name, m->key, m->sig ? m->sig->name : "generic");
  } else if (!m) {
    cuplug__impl **v = realloc(r->instances, (r->num_instances + 1) * sizeof *v);
    m = calloc(1, sizeof *m);
    if (v) r->instances = v;
    if (!v || !m || !cuplug__map_put(&r->symbols, symbol, m)) {
      free(m);
      m = NULL;
      e = cuplug__error_oom();
    } else {
      m->kind = g->kind;
      m->key = g->key;
      m->sig = sig;
      m->symbol = symbol;
      symbol = NULL;
      m->abi = g->abi;
      m->lowerer = g->lowerer;
      m->user_data = g->user_data;
      m->builtin = g->builtin;
      m->generic = g;
      r->instances[r->num_instances++] = m;
    }
  }
  pthread_rwlock_unlock(&r->lock);
  free(symbol);
  *out = m;
  return e;
}

/* Sets *slot to text made once: the first caller's text wins, the rest
 * free theirs.  Returns what is in the slot (NULL when text was). */
static const char *publish(_Atomic(char *) *slot, char *text) {
  char *expected = NULL;
  if (!text) return atomic_load_explicit(slot, memory_order_acquire);
  if (!atomic_compare_exchange_strong_explicit(slot, &expected, text, memory_order_acq_rel,
                                               memory_order_acquire)) {
    free(text);
    return expected;
  }
  return text;
}

/* "declare float @sym(float)": the signature's function type under the
 * implementation's ABI, with the symbol put in. */
static const char *declaration_of(cuplug__impl *m) {
  const char *d = atomic_load_explicit(&m->declaration, memory_order_acquire);
  if (d) return d;
  const char *ft = cuplug__type_lowered(m->sig, m->abi, CUPLUG_POSITION_ARGUMENT)->ir_type;
  const char *params = strstr(ft, " (");
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__buf_printf(&b, "declare %.*s @%s%s", (int)(params - ft), ft, m->symbol, params + 1);
  return publish(&m->declaration, cuplug__buf_take(&b, NULL));
}

cuplug_error *cuplug__resolve_call(cuplug_resolve_args *a) {
  cuplug_registry *r = a->registry;
  if (!r) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "resolve_call: registry is NULL");
  if (!a->key) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "resolve_call: key is NULL");
  if (a->nargs && !a->argtypes)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "resolve_call %s: nargs is %zu but argtypes is NULL", a->key, a->nargs);
  for (size_t i = 0; i < a->nargs; i++)
    if (!a->argtypes[i] || a->argtypes[i]->kind == CUPLUG_TYPE_SIGNATURE ||
        a->argtypes[i]->kind == CUPLUG_TYPE_VOID)
      return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                           "resolve_call %s: argument type %zu is %s", a->key, i,
                           a->argtypes[i] ? a->argtypes[i]->name : "NULL");

  search s = {.key = a->key, .args = a->argtypes, .nargs = a->nargs};
  pthread_rwlock_rdlock(&r->lock);
  const cuplug__key *own = own_key(r, a->key), *base = base_key(r, a->key);
  cuplug_error *e = NULL;
  if (!own && !base)
    e = cuplug__error(CUPLUG_ERR_UNKNOWN_KEY, "nothing is registered under the key '%s'",
                      a->key);
  if (!e) e = consult(&s, own, false);
  if (!e) e = consult(&s, base, true);
  cuplug__buf candidates; /* for a message, while the templates cannot move */
  cuplug__buf_init(&candidates);
  if (!e && (!s.found || s.tied)) {
    const cuplug__key *keys[] = {own, base};
    put_candidates(&candidates, keys, 2);
  }
  const cuplug__impl *m = NULL, *g = NULL;
  if (!e && s.found && !s.tied) {
    /* a signature is lowered by the registry whose template gave it: the
     * built-in lowering is not for signatures a host added to its key */
    const cuplug__key *k = s.best.base ? base : own;
    m = impl_for(k, s.best.sig);
    if (!m) g = impl_for(k, NULL);
  }
  pthread_rwlock_unlock(&r->lock);

  if (!e && !s.found) {
    cuplug__buf b;
    cuplug__buf_init(&b);
    put_args(&b, a->argtypes, a->nargs);
    e = cuplug__error(CUPLUG_ERR_NO_MATCH, "no signature of %s takes %s; it has: %s", a->key,
                      b.data ? b.data : "()", candidates.data ? candidates.data : "none");
    cuplug__buf_free(&b);
  } else if (!e && s.tied) {
    cuplug__buf b;
    cuplug__buf_init(&b);
    put_args(&b, a->argtypes, a->nargs);
    e = cuplug__error(CUPLUG_ERR_AMBIGUOUS,
                      "ambiguous call %s%s: %s and %s match equally well (candidates: %s)",
                      a->key, b.data ? b.data : "()", s.best.sig->name, s.tied->name,
                      candidates.data ? candidates.data : "");
    cuplug__buf_free(&b);
  } else if (!e && !m && !g) {
    e = cuplug__error(CUPLUG_ERR_NO_LOWERING, "%s types as %s, but has no lowering for it",
                      a->key, s.best.sig->name);
  } else if (!e && g) {
    e = instantiate(s.best.base ? r->base : r, g, g->key, s.best.sig, &m);
  }
  cuplug__buf_free(&candidates);
  if (e) return e;
  a->declaration = declaration_of((cuplug__impl *)m);
  if (!a->declaration) return cuplug__error_oom();
  a->signature = s.best.sig;
  a->symbol = m->symbol;
  a->abi = m->abi;
  return NULL;
}

/* ---- lowering on demand ---- */

cuplug_error *cuplug__impl_ir(cuplug__impl *m, const char **text) {
  char *ir = atomic_load_explicit(&m->ir, memory_order_acquire);
  if (ir) {
    *text = ir;
    return NULL;
  }
  cuplug__buf b;
  cuplug__buf_init(&b);
  if (m->kind == CUPLUG__IMPL_BUILTIN) {
    cuplug_error *e = m->builtin->lower(m->builtin, m->sig, m->symbol, &b);
    if (e) {
      cuplug__buf_free(&b);
      return e;
    }
  } else if (m->kind == CUPLUG__IMPL_CALLBACK) {
    const char *out = NULL;
    size_t size = 0;
    char message[512] = "";
    cuplug_callback_status st = m->lowerer(m->user_data, m->key, m->sig, m->symbol, m->abi,
                                           &out, &size, message, sizeof message);
    message[sizeof message - 1] = '\0';
    if (st != CUPLUG_CALLBACK_OK)
      return cuplug__error(CUPLUG_ERR_CALLBACK, "the lowering of %s for %s failed%s%s", m->key,
                           m->sig->name, *message ? ": " : "", message);
    if (!out)
      return cuplug__error(CUPLUG_ERR_CALLBACK,
                           "the lowering of %s for %s answered OK without IR", m->key,
                           m->sig->name);
    cuplug__buf_append(&b, out, size ? size : strlen(out));
    if (b.oom) return cuplug__error_oom();
    cuplug__text t = {m->key, b.data, b.len};
    cuplug_error *e = cuplug__validate_lowering(&t, m->key, m->symbol, m->sig, m->abi);
    if (e) {
      cuplug__buf_free(&b);
      return e;
    }
  } else {
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "%s: %s has no IR", m->key, m->symbol);
  }
  if (b.oom) return cuplug__error_oom();
  /* another thread may have been quicker: its text is as good */
  *text = publish(&m->ir, cuplug__buf_take(&b, NULL));
  return *text ? NULL : cuplug__error_oom();
}

/* ---- list ---- */

static int by_name(const void *a, const void *b) {
  return strcmp((*(const cuplug__key *const *)a)->name, (*(const cuplug__key *const *)b)->name);
}

static bool starts_with(const char *s, const char *prefix) {
  return !prefix || strncmp(s, prefix, strlen(prefix)) == 0;
}

cuplug_error *cuplug__registry_list(cuplug_registry *r, const char *prefix,
                                    cuplug_list_fn visit, void *user_data) {
  if (!r || !visit)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "registry_list: %s is NULL",
                         r ? "visit" : "registry");
  pthread_rwlock_rdlock(&r->lock);
  size_t n = r->keys.count + (r->base ? r->base->keys.count : 0), k = 0;
  const cuplug__key **keys = malloc((n ? n : 1) * sizeof *keys);
  if (!keys) {
    pthread_rwlock_unlock(&r->lock);
    return cuplug__error_oom();
  }
  const cuplug__map *maps[2] = {&r->keys, r->base ? &r->base->keys : NULL};
  for (int mi = 0; mi < 2; mi++)
    for (size_t i = 0; maps[mi] && i < maps[mi]->cap; i++)
      if (maps[mi]->slots[i].key && starts_with(maps[mi]->slots[i].key, prefix))
        keys[k++] = maps[mi]->slots[i].value;
  qsort(keys, k, sizeof *keys, by_name);
  bool stop = false;
  for (size_t i = 0; i < k && !stop; i++) {
    for (size_t t = 0; t < keys[i]->num_templates && !stop; t++) {
      const cuplug__template *tp = &keys[i]->templates[t];
      /* a template's signature is lowered by its own layer (see resolve) */
      const cuplug__impl *m = tp->sig ? impl_for(keys[i], tp->sig) : NULL;
      cuplug_listing l = {sizeof l, keys[i]->name, tp->sig,
                          tp->sig ? "" : (tp->description ? tp->description : ""),
                          m && m->symbol ? m->symbol : "", keys[i]->builtin};
      stop = visit(user_data, &l) != 0;
    }
  }
  pthread_rwlock_unlock(&r->lock);
  free(keys);
  return NULL;
}

/* ---- constant arrays ---- */

cuplug_error *cuplug__const_array(cuplug_const_array_args *a) {
  cuplug_registry *r = a->registry;
  if (!r) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "const_array: registry is NULL");
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
  uint64_t bytes = count * cuplug__type_size(a->dtype);
  if (bytes != a->size || (bytes && !a->data))
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "const_array: the shape holds %llu bytes of %s, but %zu were given",
                         (unsigned long long)bytes, a->dtype->name, a->size);
  const cuplug_type *array, *sig;
  CUPLUG__TRY(cuplug__type_array(a->dtype, a->ndim, CUPLUG_LAYOUT_C, &array));
  CUPLUG__TRY(cuplug__type_signature(array, NULL, 0, &sig));

  cuplug__impl *m = calloc(1, sizeof *m);
  if (!m) return cuplug__error_oom();
  m->kind = CUPLUG__IMPL_IR;
  m->sig = sig;
  m->abi = CUPLUG_ABI_C;
  unsigned long serial = atomic_fetch_add(&r->serial, 1) + 1;
  m->symbol = symbol_for("cuda.const.array_like", sig, serial);
  cuplug__buf b;
  cuplug__buf_init(&b);
  if (m->symbol) cuplug__const_array_ir(&b, m->symbol, array, a->shape, a->data, a->size);
  if (!m->symbol || b.oom) {
    cuplug__buf_free(&b);
    impl_free(m);
    return cuplug__error_oom();
  }
  atomic_init(&m->ir, cuplug__buf_take(&b, NULL));

  pthread_rwlock_wrlock(&r->lock);
  cuplug__key *k;
  cuplug_error *e = key_get(r, "cuda.const.array_like", false, &k);
  if (!e) {
    e = add_impl(r, k, m);
    m = NULL;
  }
  pthread_rwlock_unlock(&r->lock);
  impl_free(m);
  if (e) return e;
  cuplug__impl *made = k->impls[k->num_impls - 1];
  a->declaration = declaration_of(made);
  if (!a->declaration) return cuplug__error_oom();
  a->signature = sig;
  a->symbol = made->symbol;
  a->abi = CUPLUG_ABI_C;
  return NULL;
}
