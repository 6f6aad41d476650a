/* memory.h - device memory for hosts that bring none of their own, and
 * the session's device as a whole. */
#ifndef CUPLUG__PLUGIN_LOAD_MEMORY_H
#define CUPLUG__PLUGIN_LOAD_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "cuplug/cuplug.h"

cuplug_error *cuplug__mem_alloc(cuplug_session *s, size_t bytes, uint64_t *ptr);
cuplug_error *cuplug__mem_free(cuplug_session *s, uint64_t ptr);
cuplug_error *cuplug__memcpy_to_device(cuplug_session *s, uint64_t dst, const void *src,
                                       size_t bytes);
cuplug_error *cuplug__memcpy_to_host(cuplug_session *s, void *dst, uint64_t src, size_t bytes);
cuplug_error *cuplug__synchronize(cuplug_session *s);
cuplug_error *cuplug__device_reset(cuplug_session *s);

#endif
