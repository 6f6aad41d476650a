/* device.c - the GPU a session uses: its context and its limits. */
#include "plugin/toolkit/device.h"

#include <string.h>

#include "base/error.h"

/* Errors after which the context is unusable. */
static bool sticky(int rc) {
  switch (rc) {
    case CUPLUG__CU_ILLEGAL_ADDRESS:
    case CUPLUG__CU_LAUNCH_TIMEOUT:
    case CUPLUG__CU_ASSERT:
    case CUPLUG__CU_HARDWARE_STACK_ERROR:
    case CUPLUG__CU_ILLEGAL_INSTRUCTION:
    case CUPLUG__CU_MISALIGNED_ADDRESS:
    case CUPLUG__CU_INVALID_ADDRESS_SPACE:
    case CUPLUG__CU_INVALID_PC:
    case CUPLUG__CU_LAUNCH_FAILED:
      return true;
    default:
      return false;
  }
}

cuplug_error *cuplug__driver_error(const cuplug__driver_api *cu, int rc, const char *what) {
  char why[256];
  cuplug__driver_describe(cu, rc, why, sizeof why);
  if (sticky(rc))
    return cuplug__error(CUPLUG_ERR_KERNEL_FAULT,
                         "%s: a kernel faulted: %s; the context is lost: device_reset() asks "
                         "the driver for a fresh one",
                         what, why);
  if (rc == CUPLUG__CU_OUT_OF_MEMORY)
    return cuplug__error(CUPLUG_ERR_OUT_OF_MEMORY, "%s: %s", what, why);
  return cuplug__error(CUPLUG_ERR_DRIVER, "%s: %s", what, why);
}

void cuplug__device_init(cuplug__device *d) {
  memset(d, 0, sizeof *d);
  pthread_mutex_init(&d->lock, NULL);
}

void cuplug__device_release(cuplug__device *d, cuplug__toolkit *tk) {
  if (d->own_primary && tk->driver_lib.state == CUPLUG__LIB_LOADED)
    tk->driver.primary_ctx_release(d->dev);
  pthread_mutex_destroy(&d->lock);
}

/* Reads the device's limits (the caller holds the lock). */
static int read_limits(const cuplug__driver_api *cu, cuplug__device *d) {
  static const int attrs[] = {CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
                              CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                              CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z,
                              CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
                              CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                              CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
  int *out[] = {&d->max_block[0], &d->max_block[1], &d->max_block[2],
                &d->max_grid[0],  &d->max_grid[1],  &d->max_grid[2]};
  int rc = cu->device_get_attribute(&d->max_threads,
                                    CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, d->dev);
  for (int i = 0; i < 6 && !rc; i++) rc = cu->device_get_attribute(out[i], attrs[i], d->dev);
  if (!rc)
    rc = cu->device_get_attribute(&d->max_shared,
                                  CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_SHARED_PER_BLOCK_OPTIN, d->dev);
  return rc;
}

cuplug_error *cuplug__device_enter(cuplug__device *d, cuplug__toolkit *tk,
                                   const cuplug__driver_api **out) {
  const cuplug__driver_api *cu;
  CUPLUG__TRY(cuplug__toolkit_driver(tk, &cu));
  cuplug__cu_ctx cur = NULL;
  int rc = cu->ctx_get_current(&cur);
  if (rc) return cuplug__driver_error(cu, rc, "cuCtxGetCurrent");
  pthread_mutex_lock(&d->lock);
  cuplug_error *e = NULL;
  if (!d->ready) {
    if (cur) {
      rc = cu->ctx_get_device(&d->dev);
    } else {
      rc = cu->device_get(&d->dev, 0);
      if (!rc) rc = cu->primary_ctx_retain(&d->ctx, d->dev);
      if (!rc) d->own_primary = true;
    }
    if (!rc) rc = read_limits(cu, d);
    if (rc)
      e = cuplug__driver_error(cu, rc, "cannot set up the CUDA device");
    else
      d->ready = true;
  }
  if (!e && !cur && d->ctx) {
    rc = cu->ctx_set_current(d->ctx);
    if (rc) e = cuplug__driver_error(cu, rc, "cuCtxSetCurrent");
  } else if (!e && !cur) {
    e = cuplug__error(CUPLUG_ERR_DRIVER,
                      "this thread has no CUDA context, and the session's first GPU call "
                      "used another thread's: make a context current");
  }
  pthread_mutex_unlock(&d->lock);
  *out = cu;
  return e;
}

cuplug_error *cuplug__device_reset_context(cuplug__device *d, cuplug__toolkit *tk) {
  const cuplug__driver_api *cu;
  CUPLUG__TRY(cuplug__toolkit_driver(tk, &cu));
  pthread_mutex_lock(&d->lock);
  cuplug_error *e = NULL;
  if (d->ready) {
    /* Reset the primary context, then take its handle afresh (retain
     * once more, release the extra reference): the handle may change. */
    cu->ctx_set_current(NULL);
    int rc = cu->primary_ctx_reset(d->dev);
    if (!rc && d->own_primary) {
      cuplug__cu_ctx fresh;
      rc = cu->primary_ctx_retain(&fresh, d->dev);
      if (!rc) {
        cu->primary_ctx_release(d->dev);
        d->ctx = fresh;
        rc = cu->ctx_set_current(fresh);
      }
    }
    if (sticky(rc)) {
      /* CUDA's rule for these errors: the process must be relaunched.
       * Drivers that keep to it refuse every new context. */
      char why[256];
      cuplug__driver_describe(cu, rc, why, sizeof why);
      e = cuplug__error(CUPLUG_ERR_KERNEL_FAULT,
                        "device_reset: the CUDA driver keeps this process from the device "
                        "after the fault (%s): GPU work needs a new process; compiling and "
                        "linking go on",
                        why);
    } else if (rc) {
      e = cuplug__driver_error(cu, rc, "cuDevicePrimaryCtxReset");
    }
  }
  pthread_mutex_unlock(&d->lock);
  return e;
}
