/* registry.h - typing templates and lowering implementations.
 *
 * A registry maps keys ("math.sin", or a declared function's name) to
 * typing templates (concrete signatures, or generic typers) and to
 * implementations (per signature, or generic), and symbols to the
 * implementations that define them, for compiles to link in. */
#ifndef CUPLUG__PLUGIN_REGISTRY_REGISTRY_H
#define CUPLUG__PLUGIN_REGISTRY_REGISTRY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "base/buf.h"
#include "base/code.h"
#include "base/map.h"
#include "cuplug/cuplug.h"

typedef struct cuplug__builtin cuplug__builtin; /* lowering/builtins.h */

typedef enum cuplug__impl_kind {
  CUPLUG__IMPL_EXTERNAL, /* declare_device: an external symbol and the code to link */
  CUPLUG__IMPL_IR,       /* NVVM IR the host gave */
  CUPLUG__IMPL_CUDA,     /* CUDA C++ the host gave, compiled by NVRTC when linking */
  CUPLUG__IMPL_CALLBACK, /* NVVM IR a host callback writes */
  CUPLUG__IMPL_BUILTIN   /* NVVM IR cuplug writes */
} cuplug__impl_kind;

/* An implementation.  A generic one (sig NULL, symbol NULL) lowers every
 * signature of its key; each signature resolved gets an instance of it,
 * with a symbol, whose IR is written the first time a compile needs it.
 * Implementations never change once registered (but for that IR, which is
 * set once) and live as long as their registry. */
typedef struct cuplug__impl {
  cuplug__impl_kind kind;
  const char *key; /* the key's name */
  const cuplug_type *sig;
  char *symbol;
  cuplug_abi abi; /* NUMBA or C */
  cuplug__code *code; /* EXTERNAL: the code to link; CUDA: the source */
  size_t num_code;
  bool cooperative;
  _Atomic(char *) ir; /* IR: the text; instances: once written */
  _Atomic(char *) declaration; /* "declare R @symbol(...)", once asked for */
  cuplug_lowerer_fn lowerer;
  void *user_data;
  const cuplug__builtin *builtin;
  const struct cuplug__impl *generic; /* an instance's */
  void *host_function; /* EXTERNAL: its implementation on the host, or NULL */
} cuplug__impl;

typedef struct cuplug__template {
  const cuplug_type *sig; /* concrete */
  cuplug_typer_fn typer;  /* generic, the host's */
  void *user_data;
  const cuplug__builtin *builtin; /* generic, cuplug's */
  char *description;
} cuplug__template;

typedef struct cuplug__key {
  char *name;
  cuplug__template *templates;
  size_t num_templates;
  cuplug__impl **impls; /* per signature, and at most one generic */
  size_t num_impls;
  bool builtin;
} cuplug__key;

struct cuplug_registry {
  atomic_int refs;
  pthread_rwlock_t lock; /* readers: resolves, compiles; writers: registrations */
  cuplug__map keys;      /* name -> cuplug__key */
  cuplug__map symbols;   /* symbol -> cuplug__impl */
  cuplug__impl **instances; /* owned instances of generic implementations */
  size_t num_instances;
  /* The built-ins, or NULL.  Their templates and lowerings never change;
   * the instances of built-in lowerings live there, for every registry of
   * the process to find. */
  cuplug_registry *base;
  /* Numbers the symbols that must be new at every call: each
   * cuda.shared.array resolve (a new array), each const_array. */
  atomic_ulong serial;
};

cuplug_error *cuplug__registry_create(uint32_t flags, cuplug_registry **out);
void cuplug__registry_retain(cuplug_registry *r);
void cuplug__registry_release(cuplug_registry *r);
cuplug_error *cuplug__declare_device(cuplug_declare_device_args *args);
cuplug_error *cuplug__register_template(cuplug_template_args *args);
cuplug_error *cuplug__register_lowering(cuplug_lowering_args *args);
cuplug_error *cuplug__resolve_call(cuplug_resolve_args *args);
cuplug_error *cuplug__registry_list(cuplug_registry *r, const char *prefix,
                                    cuplug_list_fn visit, void *user_data);
cuplug_error *cuplug__const_array(cuplug_const_array_args *args);

/* The implementation that defines `symbol`, or NULL.  Thread-safe. */
cuplug__impl *cuplug__registry_symbol(cuplug_registry *r, const char *symbol, size_t len);
/* The NVVM IR of an IR, callback or built-in implementation, written the
 * first time it is asked for.  Thread-safe. */
cuplug_error *cuplug__impl_ir(cuplug__impl *impl, const char **text);

#endif
