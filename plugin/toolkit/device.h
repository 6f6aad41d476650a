/* device.h - the GPU a session uses: its context, its limits, and the
 * driver's errors as cuplug's.
 *
 * A call uses the calling thread's current context when it has one (a host
 * with its own CUDA work keeps control), else the session's: the primary
 * context of device 0, retained on first use. */
#ifndef CUPLUG__PLUGIN_TOOLKIT_DEVICE_H
#define CUPLUG__PLUGIN_TOOLKIT_DEVICE_H

#include <pthread.h>
#include <stdbool.h>

#include "cuplug/cuplug.h"
#include "plugin/toolkit/toolkit.h"

/* CUresult values cuplug tells apart */
enum {
  CUPLUG__CU_SUCCESS = 0,
  CUPLUG__CU_INVALID_VALUE = 1,
  CUPLUG__CU_OUT_OF_MEMORY = 2,
  CUPLUG__CU_INVALID_IMAGE = 200,
  CUPLUG__CU_NO_BINARY_FOR_GPU = 209,
  CUPLUG__CU_INVALID_PTX = 218,
  CUPLUG__CU_NOT_FOUND = 500,
  CUPLUG__CU_ILLEGAL_ADDRESS = 700,
  CUPLUG__CU_LAUNCH_OUT_OF_RESOURCES = 701,
  CUPLUG__CU_LAUNCH_TIMEOUT = 702,
  CUPLUG__CU_ASSERT = 710,
  CUPLUG__CU_HARDWARE_STACK_ERROR = 714,
  CUPLUG__CU_ILLEGAL_INSTRUCTION = 715,
  CUPLUG__CU_MISALIGNED_ADDRESS = 716,
  CUPLUG__CU_INVALID_ADDRESS_SPACE = 717,
  CUPLUG__CU_INVALID_PC = 718,
  CUPLUG__CU_LAUNCH_FAILED = 719,
  CUPLUG__CU_COOPERATIVE_LAUNCH_TOO_LARGE = 720
};

typedef struct cuplug__device {
  pthread_mutex_t lock;
  bool ready;
  bool own_primary; /* ctx is device dev's primary context, retained by cuplug */
  cuplug__cu_device dev;
  cuplug__cu_ctx ctx;
  int max_threads, max_block[3], max_grid[3], max_shared;
} cuplug__device;

void cuplug__device_init(cuplug__device *d);
void cuplug__device_release(cuplug__device *d, cuplug__toolkit *tk);
/* Makes sure this thread has a context, its own or the session's, and
 * reads the device's limits the first time. */
cuplug_error *cuplug__device_enter(cuplug__device *d, cuplug__toolkit *tk,
                                   const cuplug__driver_api **driver);
/* After a fault: resets the primary context and takes a fresh one. */
cuplug_error *cuplug__device_reset_context(cuplug__device *d, cuplug__toolkit *tk);

/* A driver error as a cuplug error, `what` naming the call: faults (after
 * which the context is lost) are CUPLUG_ERR_KERNEL_FAULT. */
cuplug_error *cuplug__driver_error(const cuplug__driver_api *cu, int rc, const char *what);

#endif
