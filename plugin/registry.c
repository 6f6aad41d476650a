/* registry.c - declared device functions. */
#include "registry.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "types.h"

static uint64_t hash_name(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

cuplug_error *cuplug__registry_create(cuplug_registry **out) {
  cuplug_registry *r = calloc(1, sizeof *r);
  if (!r) return cuplug__error_oom();
  atomic_init(&r->refs, 1);
  pthread_rwlock_init(&r->lock, NULL);
  *out = r;
  return NULL;
}

void cuplug__registry_retain(cuplug_registry *r) {
  atomic_fetch_add_explicit(&r->refs, 1, memory_order_relaxed);
}

static void decl_free(cuplug__decl *d) {
  if (!d) return;
  free(d->name);
  for (size_t i = 0; i < d->num_code; i++) cuplug__code_free(&d->code[i]);
  free(d->code);
  free(d);
}

void cuplug__registry_release(cuplug_registry *r) {
  if (!r || atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) != 1) return;
  for (size_t i = 0; i < r->cap; i++) decl_free(r->decls[i]);
  free(r->decls);
  pthread_rwlock_destroy(&r->lock);
  free(r);
}

/* The slot of `name`: its declaration, or the empty slot it would take. */
static size_t slot_of(const cuplug_registry *r, const char *name, size_t len) {
  size_t i = hash_name(name, len) & (r->cap - 1);
  while (r->decls[i] && !(strncmp(r->decls[i]->name, name, len) == 0 &&
                          r->decls[i]->name[len] == '\0'))
    i = (i + 1) & (r->cap - 1);
  return i;
}

const cuplug__decl *cuplug__registry_find(cuplug_registry *r, const char *name, size_t len) {
  if (!r) return NULL;
  pthread_rwlock_rdlock(&r->lock);
  const cuplug__decl *d = r->cap ? r->decls[slot_of(r, name, len)] : NULL;
  pthread_rwlock_unlock(&r->lock);
  return d;
}

/* Doubles the table (the caller holds the write lock). */
static bool grow(cuplug_registry *r) {
  size_t cap = r->cap ? r->cap * 2 : 16;
  cuplug__decl **v = calloc(cap, sizeof *v);
  if (!v) return false;
  cuplug__decl **old = r->decls;
  size_t old_cap = r->cap;
  r->decls = v;
  r->cap = cap;
  for (size_t i = 0; i < old_cap; i++)
    if (old[i]) r->decls[slot_of(r, old[i]->name, strlen(old[i]->name))] = old[i];
  free(old);
  return true;
}

cuplug_error *cuplug__declare_device(cuplug_declare_device_args *a) {
  if (!a->registry)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "declare_device: registry is NULL");
  if (!a->name || !*a->name)
    return cuplug__error(CUPLUG_ERR_OPTION_NAME, "declare_device: no name given");
  if (a->abi != CUPLUG_ABI_DEFAULT && a->abi != CUPLUG_ABI_NUMBA && a->abi != CUPLUG_ABI_C)
    return cuplug__error(CUPLUG_ERR_OPTION_ABI, "Unsupported ABI: %d (numba or c)",
                         (int)a->abi);
  if (!!a->signature == !!a->signature_type)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "declare_device %s: give exactly one of signature and signature_type",
                         a->name);
  if (a->num_link && !a->link)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "declare_device %s: num_link is %zu but link is NULL", a->name,
                         a->num_link);
  const cuplug_type *sig = a->signature_type;
  if (a->signature) CUPLUG_TRY(cuplug__signature_parse(a->signature, &sig));
  if (sig->kind != CUPLUG_TYPE_SIGNATURE)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "declare_device %s: signature_type %s is not a signature", a->name,
                         sig->name);

  cuplug__decl *d = calloc(1, sizeof *d);
  if (!d) return cuplug__error_oom();
  d->name = cuplug__strdup(a->name);
  d->sig = sig;
  d->abi = a->abi == CUPLUG_ABI_C ? CUPLUG_ABI_C : CUPLUG_ABI_NUMBA;
  d->cooperative = a->use_cooperative != 0;
  d->code = a->num_link ? calloc(a->num_link, sizeof *d->code) : NULL;
  if (!d->name || (a->num_link && !d->code)) {
    decl_free(d);
    return cuplug__error_oom();
  }
  for (size_t i = 0; i < a->num_link; i++) {
    cuplug_error *e = cuplug__code_import(a->link[i], i, &d->code[i]);
    if (e) {
      decl_free(d);
      return e;
    }
    d->num_code++;
  }

  cuplug_registry *r = a->registry;
  pthread_rwlock_wrlock(&r->lock);
  cuplug_error *e = NULL;
  size_t len = strlen(d->name);
  if (r->cap && r->decls[slot_of(r, d->name, len)]) {
    const cuplug__decl *old = r->decls[slot_of(r, d->name, len)];
    e = cuplug__error(CUPLUG_ERR_DUPLICATE, "%s is already declared, as %s", d->name,
                      old->sig->name);
  } else if ((r->count + 1) * 2 > r->cap && !grow(r)) {
    e = cuplug__error_oom();
  } else {
    r->decls[slot_of(r, d->name, len)] = d;
    r->count++;
  }
  pthread_rwlock_unlock(&r->lock);
  if (e) decl_free(d);
  return e;
}
