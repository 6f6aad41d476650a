/* values.h - a call's arguments from Python values: what each parameter
 * takes, the storage the values live in while the plugin reads them, and
 * scalars both ways. */
#ifndef CUPLUG_PY_VALUES_H
#define CUPLUG_PY_VALUES_H

#include "objects.h"

/* Storage for one argument's value (or a host call's result) while the
 * plugin reads it. */
typedef union shim_slot {
  int64_t i;
  uint64_t u;
  double d;
  float f;
  uint16_t h;
  uint8_t b;
  double c[2];
  float cf[2];
} shim_slot;

/* An array argument as a cuplug_ndarray, the form that can say the
 * memory is read-only, with room for its shape and strides. */
typedef struct shim_array {
  cuplug_ndarray nd;
  int64_t shape[8], strides[8];
} shim_array;

/* One call's arguments as the plugin reads them, and what to release
 * after it: arrays index i of each array holds argument i.  A host call
 * gives `values`; a launch gives `arguments` and `argv` instead (the
 * growable form, cuplug_launch_args.arguments). */
typedef struct shim_pack {
  shim_state *st;
  void *stream; /* the launch's stream: arrays of another are waited for */
  cuplug_value *values;
  cuplug_argument *arguments;
  const cuplug_argument **argv; /* argv[i] is &arguments[i] */
  shim_slot *slots;
  shim_array *arrays;
  PyObject **keep; /* capsules and interfaces to release after the launch */
  size_t nkeep;
  Py_buffer *views; /* a host call's buffers, released after it */
  size_t nviews;
  bool sync_first; /* an array of another stream: wait for the device first */
  bool producer_known;
  uintptr_t producer; /* CuPy's current stream, once asked */
} shim_pack;

/* The parameters of the signature sig into c (c->params to PyMem_Free);
 * -1 when out of memory, without an exception. */
int shim_callee_describe(shim_state *st, const cuplug_type *sig, shim_callee *c);

/* Raises TypeError("<noun> <name>, argument <i> (<type>): <why>"); NULL. */
PyObject *shim_arg_error(const shim_callee *c, size_t i, const char *fmt, ...);

/* shim_arg_error with fmt's one %U the name of obj's type; -1. */
int shim_arg_got(const shim_callee *c, size_t i, const char *fmt, PyObject *obj);

/* Argument i, of kind k with its value at data, in p's form. */
void shim_pack_put(shim_pack *p, size_t i, cuplug_type_kind k, const void *data);

/* obj as the C value of the scalar pr into s: -1 with *why the reason
 * (a message whose %U, if any, is obj's type's name), or with *why NULL
 * and a Python exception set. */
int shim_scalar_value(const shim_param *pr, PyObject *obj, shim_slot *s, const char **why);

/* Argument i, a scalar, into p's slot and value i. */
int shim_scalar_arg(const shim_callee *c, size_t i, PyObject *obj, shim_pack *p);

/* A host call's result of kind k, as a Python value. */
PyObject *shim_result_value(cuplug_type_kind k, const shim_slot *r);

#endif
