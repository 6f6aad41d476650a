/* structs.c - argument structs of whatever size a caller's header gave them. */
#include "base/structs.h"

#include <string.h>

#include "base/error.h"

cuplug_error *cuplug__struct_import(void *local, size_t local_size, const void *caller,
                                    size_t min_size, const char *what) {
  if (!caller) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "%s is NULL", what);
  size_t size = *(const size_t *)caller;
  if (size < min_size)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "%s has struct_size %zu, less than the %zu bytes of its first version: set "
                         "struct_size = sizeof(%s)",
                         what, size, min_size, what);
  memset(local, 0, local_size);
  memcpy(local, caller, size < local_size ? size : local_size);
  for (size_t i = local_size; i < size; i++) {
    if (((const unsigned char *)caller)[i])
      return cuplug__error(CUPLUG_ERR_ABI_FIELD,
                           "%s sets byte %zu, beyond the %zu bytes this plugin (ABI %d.%d) "
                           "knows: a field of a newer ABI that it cannot honour",
                           what, i, local_size, CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  }
  *(size_t *)local = local_size;
  return NULL;
}

void cuplug__struct_export(void *caller, const void *local, size_t local_size) {
  size_t size = *(const size_t *)caller;
  size_t n = size < local_size ? size : local_size;
  memcpy((char *)caller + sizeof(size_t), (const char *)local + sizeof(size_t),
         n - sizeof(size_t));
}
