/* args.h - the arguments of a launch or a CPU call, in either of the
 * forms the ABI takes (cuplug_value, or the growable cuplug_argument),
 * checked against the signature and packed as numba-cuda packs them. */
#ifndef CUPLUG__PLUGIN_LOAD_ARGS_H
#define CUPLUG__PLUGIN_LOAD_ARGS_H

#include <stdint.h>

#include "cuplug/cuplug.h"

/* The most parameters a launch passes once arrays are flattened. */
#define CUPLUG__MAX_PARAMS 512

/* Who takes the arguments, for messages: "kernel k, argument 2 (T): ..."
 * or "call f, argument 2 (T): ...". */
typedef struct cuplug__arg_site {
  const char *what; /* "kernel" or "call" */
  const char *name;
  const cuplug_type *sig;
} cuplug__arg_site;

/* The arguments as the caller gave them: `values` or `arguments`, num of
 * them. */
typedef struct cuplug__args {
  const cuplug_value *values;
  const cuplug_argument *const *arguments;
  size_t num;
} cuplug__args;

/* One argument, read.  An array's fields are filled for arrays only. */
typedef struct cuplug__arg {
  cuplug_type_kind kind;
  const void *data; /* where a scalar's or a pointer's value is */
  uint64_t array_data;
  cuplug_type_kind dtype;
  uint32_t ndim;
  const int64_t *shape, *strides;
  uint32_t flags; /* CUPLUG_ARRAY_*: a cuplug_ndarray's; a cuplug_array has none */
} cuplug__arg;

/* CUPLUG_ERR_LAUNCH_ARGS (or `code`), naming the site and the argument. */
cuplug_error *cuplug__arg_error(const cuplug__arg_site *site, size_t i, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Checks the count against the signature (its arguments but the omitted
 * ones) and that exactly one form is
 * given when there are arguments. */
cuplug_error *cuplug__args_check(const cuplug__arg_site *site, const cuplug__args *args);
/* Reads argument i, which must be of the kind the signature says; a
 * read-only array only for a parameter declared readonly.  An omitted
 * argument has no value among the caller's (its kind is read as OMITTED,
 * its data NULL); an opaque one's value is ignored, and read as a NULL
 * address. */
cuplug_error *cuplug__arg_read(const cuplug__arg_site *site, const cuplug__args *args, size_t i,
                               cuplug__arg *out);

/* Argument i, an array, as numba's array struct in slots[0, 5 + 2N):
 * meminfo and parent NULL, nitems, itemsize, data, shape[N], strides[N];
 * its strides checked against its type's layout. */
cuplug_error *cuplug__arg_array_struct(const cuplug__arg_site *site, size_t i,
                                       const cuplug__arg *arr, int64_t *slots);

/* Packs a kernel's flattened parameters as cuLaunchKernel takes them:
 * scalars point at the caller's values; arrays expand to meminfo (NULL),
 * parent (NULL), nitems, itemsize, data, shape[N] and strides[N], held in
 * `slots`.  params and slots have CUPLUG__MAX_PARAMS entries. */
cuplug_error *cuplug__args_pack(const cuplug__arg_site *site, const cuplug__args *args,
                                void **params, int64_t *slots, size_t *num_params);

#endif
