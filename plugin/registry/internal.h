/* internal.h - what the registry's own files share: registry.c (creation,
 * lookups, insertion, list), register.c (the registering calls) and
 * resolve.c (resolve_call, instances, lowering on demand).
 *
 * Locking: one reader-writer lock per registry.  Registrations write;
 * resolves and compiles read, and take the write lock only to add an
 * instance.  Keys, templates and implementations are never freed before
 * the registry, so pointers to them stay good after the lock is let go. */
#ifndef CUPLUG__PLUGIN_REGISTRY_INTERNAL_H
#define CUPLUG__PLUGIN_REGISTRY_INTERNAL_H

#include "plugin/registry/registry.h"

void cuplug__impl_free(cuplug__impl *m);

/* ---- lookups: the caller holds the lock ---- */

/* The registry's own key, or the built-ins' (NULL when absent). */
cuplug__key *cuplug__registry_own_key(const cuplug_registry *r, const char *name);
const cuplug__key *cuplug__registry_base_key(const cuplug_registry *r, const char *name);
/* The key's implementation for sig (NULL: its generic one), or NULL. */
cuplug__impl *cuplug__key_impl(const cuplug__key *k, const cuplug_type *sig);
bool cuplug__key_has_signature(const cuplug__key *k, const cuplug_type *sig);

/* ---- insertion ---- */

/* Why an insertion must not happen (a duplicate), asked under the write
 * lock; NULL lets it go ahead. */
typedef cuplug_error *(*cuplug__refuse_fn)(cuplug_registry *r, const char *key,
                                           const cuplug__template *t, const cuplug__impl *m);

/* Adds, under the write lock, to `key` (made when new) the template t and
 * the implementation m, each when not NULL, and m's symbol to the symbol
 * table, unless `refuse` (may be NULL) objects.  Takes m: on failure it is
 * freed.  On success m lives as long as the registry. */
cuplug_error *cuplug__registry_insert(cuplug_registry *r, const char *key,
                                      const cuplug__template *t, cuplug__impl *m,
                                      cuplug__refuse_fn refuse);

/* ---- symbols ---- */

/* "__cuplug_<key as a C name>_<hash of key and signature>[_serial]":
 * the same in every registry and process (malloc'd). */
char *cuplug__symbol_for(const char *key, const cuplug_type *sig, unsigned long serial);
/* "declare float @sym(float)", written once per implementation. */
const char *cuplug__declaration_of(cuplug__impl *m);

#endif
