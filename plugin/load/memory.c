/* memory.c - device memory for hosts that bring none of their own, and
 * the session's device as a whole. */
#include "plugin/load/memory.h"

#include "base/error.h"
#include "plugin/session/session.h"

cuplug_error *cuplug__mem_alloc(cuplug_session *s, size_t bytes, uint64_t *ptr) {
  if (!s || !ptr) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "mem_alloc: NULL argument");
  const cuplug__driver_api *cu;
  CUPLUG__TRY(cuplug__device_enter(&s->device, &s->toolkit, &cu));
  int rc = cu->mem_alloc(ptr, bytes);
  return rc ? cuplug__driver_error(cu, rc, "cuMemAlloc") : NULL;
}

cuplug_error *cuplug__mem_free(cuplug_session *s, uint64_t ptr) {
  if (!s) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "mem_free: session is NULL");
  if (!ptr) return NULL;
  const cuplug__driver_api *cu;
  CUPLUG__TRY(cuplug__device_enter(&s->device, &s->toolkit, &cu));
  int rc = cu->mem_free(ptr);
  return rc ? cuplug__driver_error(cu, rc, "cuMemFree") : NULL;
}

cuplug_error *cuplug__memcpy_to_device(cuplug_session *s, uint64_t dst, const void *src,
                                       size_t bytes) {
  if (!s || (!src && bytes))
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "memcpy_to_device: NULL argument");
  const cuplug__driver_api *cu;
  CUPLUG__TRY(cuplug__device_enter(&s->device, &s->toolkit, &cu));
  int rc = bytes ? cu->memcpy_htod(dst, src, bytes) : 0;
  return rc ? cuplug__driver_error(cu, rc, "cuMemcpyHtoD") : NULL;
}

cuplug_error *cuplug__memcpy_to_host(cuplug_session *s, void *dst, uint64_t src, size_t bytes) {
  if (!s || (!dst && bytes))
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "memcpy_to_host: NULL argument");
  const cuplug__driver_api *cu;
  CUPLUG__TRY(cuplug__device_enter(&s->device, &s->toolkit, &cu));
  int rc = bytes ? cu->memcpy_dtoh(dst, src, bytes) : 0;
  return rc ? cuplug__driver_error(cu, rc, "cuMemcpyDtoH") : NULL;
}

cuplug_error *cuplug__synchronize(cuplug_session *s) {
  if (!s) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "synchronize: session is NULL");
  const cuplug__driver_api *cu;
  CUPLUG__TRY(cuplug__device_enter(&s->device, &s->toolkit, &cu));
  int rc = cu->ctx_synchronize();
  return rc ? cuplug__driver_error(cu, rc, "cuCtxSynchronize") : NULL;
}

cuplug_error *cuplug__device_reset(cuplug_session *s) {
  if (!s) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "device_reset: session is NULL");
  return cuplug__device_reset_context(&s->device, &s->toolkit);
}
