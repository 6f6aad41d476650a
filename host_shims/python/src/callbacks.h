/* callbacks.h - Python callables as the plugin's typing and lowering
 * callbacks (cuplug_typer_fn, cuplug_lowerer_fn). */
#ifndef CUPLUG_PY_CALLBACKS_H
#define CUPLUG_PY_CALLBACKS_H

#include "shim.h"

/* The user_data of the callbacks below: fn with the module its calls
 * convert types for, a new reference the registry keeps alive for as long
 * as the plugin may call it. */
PyObject *shim_callback_new(PyObject *module, PyObject *fn);

/* A generic typing template: fn(key, argtypes) -> signature or None. */
cuplug_callback_status shim_python_typer(void *user, const char *key,
                                         const cuplug_type *const *argtypes, size_t nargs,
                                         const cuplug_type **signature, char *message,
                                         size_t message_size);
/* A lowering: fn(key, signature, symbol, abi) -> IR text. */
cuplug_callback_status shim_python_lowerer(void *user, const char *key,
                                           const cuplug_type *signature, const char *symbol,
                                           cuplug_abi abi, const char **ir, size_t *ir_size,
                                           char *message, size_t message_size);

#endif
