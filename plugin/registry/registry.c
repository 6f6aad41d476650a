/* registry.c - registries: creation and release, lookups, insertion, and
 * registry_list.
 *
 * Every registry but an empty one (CUPLUG_REGISTRY_NO_BUILTINS) sits on
 * the built-in registry, made once per process: lookups consult the
 * registry's own keys, then the built-ins'.  What a resolve instantiates (a
 * generic implementation's symbol for one signature) goes into the registry
 * that holds the implementation: a built-in's into the built-in registry,
 * where every registry of the process finds it, and its IR is written once.
 * Locking is described in internal.h. */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/types.h"
#include "lowering/builtins.h"
#include "plugin/registry/internal.h"

/* ---- creation and release ---- */

void cuplug__impl_free(cuplug__impl *m) {
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
  for (size_t i = 0; i < k->num_impls; i++) cuplug__impl_free(k->impls[i]);
  free(k->impls);
  free(k->name);
  free(k);
}

static void registry_free(cuplug_registry *r) {
  for (size_t i = 0; i < r->keys.cap; i++) key_free(r->keys.slots[i].value);
  for (size_t i = 0; i < r->num_instances; i++) cuplug__impl_free(r->instances[i]);
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

cuplug__key *cuplug__registry_own_key(const cuplug_registry *r, const char *name) {
  return cuplug__map_get(&r->keys, name, strlen(name));
}

const cuplug__key *cuplug__registry_base_key(const cuplug_registry *r, const char *name) {
  return r->base ? cuplug__registry_own_key(r->base, name) : NULL;
}

cuplug__impl *cuplug__key_impl(const cuplug__key *k, const cuplug_type *sig) {
  for (size_t i = 0; k && i < k->num_impls; i++)
    if (k->impls[i]->sig == sig) return k->impls[i];
  return NULL;
}

bool cuplug__key_has_signature(const cuplug__key *k, const cuplug_type *sig) {
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
  cuplug__key *k = cuplug__registry_own_key(r, name);
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
    cuplug__impl_free(m);
    return cuplug__error_oom();
  }
  k->impls = v;
  v[k->num_impls++] = m;
  m->key = k->name;
  return NULL;
}

cuplug_error *cuplug__registry_insert(cuplug_registry *r, const char *key,
                                      const cuplug__template *t, cuplug__impl *m,
                                      cuplug__refuse_fn refuse) {
  pthread_rwlock_wrlock(&r->lock);
  cuplug__key *k = NULL;
  cuplug_error *e = refuse ? refuse(r, key, t, m) : NULL;
  if (!e) e = key_get(r, key, false, &k);
  if (!e && t) e = add_template(k, t);
  if (!e && m) {
    e = add_impl(r, k, m);
    m = NULL; /* add_impl owns it now, or freed it */
  }
  pthread_rwlock_unlock(&r->lock);
  cuplug__impl_free(m);
  return e;
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
      const cuplug__impl *m = tp->sig ? cuplug__key_impl(keys[i], tp->sig) : NULL;
      const char *extension = tp->builtin ? cuplug__builtin_extension(tp->builtin) : "";
      cuplug_listing l = {sizeof l, keys[i]->name, tp->sig,
                          tp->sig ? "" : (tp->description ? tp->description : ""),
                          m && m->symbol ? m->symbol : "", keys[i]->builtin, extension};
      stop = visit(user_data, &l) != 0;
    }
  }
  pthread_rwlock_unlock(&r->lock);
  free(keys);
  return NULL;
}
