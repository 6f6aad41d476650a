/* error.h - error and warning objects. */
#ifndef CUPLUG__BASE_ERROR_H
#define CUPLUG__BASE_ERROR_H

#include "cuplug/cuplug.h"

struct cuplug_error {
  cuplug_status code;
  char *message;
  char *log; /* the toolkit's log, or NULL */
};

/* Creates an error with a printf-style message.  Never returns NULL: when
 * memory runs out it returns a static out-of-memory error, which
 * cuplug__error_destroy recognises and leaves alone. */
cuplug_error *cuplug__error(cuplug_status code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The same, with the toolkit's log attached (copied). */
cuplug_error *cuplug__error_log(cuplug_status code, const char *log,
                                const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
cuplug_error *cuplug__error_oom(void);
void cuplug__error_destroy(cuplug_error *e);
const char *cuplug__status_name(cuplug_status s);

/* Evaluates an expression yielding cuplug_error* and returns it if set. */
#define CUPLUG__TRY(expr)                                                       \
  do {                                                                         \
    cuplug_error *cuplug__e = (expr);                                          \
    if (cuplug__e) return cuplug__e;                                           \
  } while (0)

#endif
