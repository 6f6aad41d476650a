/* registry.h - declared device functions (numba-cuda's
 * declare_device_function): name, signature, ABI and the code to link. */
#ifndef CUPLUG_REGISTRY_H
#define CUPLUG_REGISTRY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "code.h"
#include "cuplug/cuplug.h"

/* A declaration never changes once registered, and lives as long as its
 * registry: lookups hand out plain pointers. */
typedef struct cuplug__decl {
  char *name;
  const cuplug_type *sig;
  cuplug_abi abi; /* NUMBA or C */
  cuplug__code *code;
  size_t num_code;
  bool cooperative;
} cuplug__decl;

struct cuplug_registry {
  atomic_int refs;
  pthread_rwlock_t lock; /* readers: compiles; writers: declarations */
  cuplug__decl **decls;  /* open addressing on the name's hash */
  size_t cap, count;
};

cuplug_error *cuplug__registry_create(cuplug_registry **out);
void cuplug__registry_retain(cuplug_registry *r);
void cuplug__registry_release(cuplug_registry *r);
cuplug_error *cuplug__declare_device(cuplug_declare_device_args *args);
/* The declaration of `name`, or NULL.  Thread-safe. */
const cuplug__decl *cuplug__registry_find(cuplug_registry *r, const char *name, size_t len);

#endif
