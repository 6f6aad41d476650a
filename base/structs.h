/* structs.h - argument structs of whatever size a caller's header gave
 * them (see "Conventions" in cuplug.h). */
#ifndef CUPLUG__BASE_STRUCTS_H
#define CUPLUG__BASE_STRUCTS_H

#include <stddef.h>

#include "cuplug/cuplug.h"

/* Reads the caller's struct (its struct_size first) into `local`, the
 * plugin's own of local_size bytes: fields an older caller lacks read as
 * zero, their defaults, and bytes a newer caller sets beyond local_size are
 * refused (CUPLUG_ERR_ABI_FIELD), as is a struct shorter than min_size,
 * its first version (CUPLUG_ERR_INVALID_ARGUMENT).  `what` names the
 * struct in messages.  local's struct_size becomes local_size. */
cuplug_error *cuplug__struct_import(void *local, size_t local_size, const void *caller,
                                    size_t min_size, const char *what);

/* Copies outputs back, as far as the caller's struct reaches. */
void cuplug__struct_export(void *caller, const void *local, size_t local_size);

#endif
