/* views.h - Python values the plugin reads during a call, borrowed rather
 * than copied: text and bytes, and the lists of structs a call takes (code
 * to link, IR modules, include paths).  What is borrowed stays alive until
 * the call is over: a list holds its items itself, whatever the caller's
 * sequence does meanwhile (a generator drops them, a callback of the call
 * may empty a list). */
#ifndef CUPLUG_PY_VIEWS_H
#define CUPLUG_PY_VIEWS_H

#include "shim.h"

/* Bytes of a str (UTF-8), bytes or buffer object, valid while the object
 * lives (a buffer view until shim_view_release). */
typedef struct shim_view {
  const char *data;
  Py_ssize_t size;
  Py_buffer buffer;
  bool has_buffer;
} shim_view;

int shim_view_of(PyObject *obj, const char *what, shim_view *v);
void shim_view_release(shim_view *v);

/* What a call takes from a Python sequence: an array of C structs of one
 * size, pointers to each, the views they borrow, and a tuple of the items
 * they borrow from, released together. */
typedef struct shim_list {
  void *items;
  const void **ptrs;
  shim_view *views;
  size_t n;
  PyObject *keep;
} shim_list;

/* Fills the struct at `out` from `item`, the i-th, borrowing into v. */
typedef int (*shim_item_fn)(PyObject *item, size_t i, void *out, shim_view *v);

/* seq (None: empty) as a shim_list of structs of `size` bytes; `what` is
 * the TypeError's message when seq is no sequence. */
int shim_list_of(PyObject *seq, const char *what, size_t size, shim_item_fn convert,
                 shim_list *l);
void shim_list_free(shim_list *l);

/* Code to link (cuplug_code): each a path (str), bytes (the kind told by
 * their contents), or a tuple (name, bytes) or (kind, name, bytes). */
int shim_code_list_of(PyObject *seq, shim_list *l);

/* A sequence of str (None: empty) as a shim_list whose items are a
 * NULL-terminated array of const char *. */
int shim_strings_of(PyObject *seq, const char *what, shim_list *l);

/* seq as a tuple that holds every item (seq itself when it is a tuple);
 * `what` is the TypeError's message when seq is no sequence. */
PyObject *shim_tuple_of(PyObject *seq, const char *what);

#endif
