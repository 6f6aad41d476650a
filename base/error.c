/* error.c - error and warning objects. */
#include "base/error.h"

#include <stdarg.h>
#include <stdlib.h>

#include "base/buf.h"

static cuplug_error oom_error = {CUPLUG_ERR_OUT_OF_MEMORY, "out of memory",
                                 NULL};

cuplug_error *cuplug__error_oom(void) { return &oom_error; }

static cuplug_error *make(cuplug_status code, const char *log, const char *fmt,
                          va_list ap) {
  cuplug_error *e = calloc(1, sizeof *e);
  if (!e) return &oom_error;
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__buf_vprintf(&b, fmt, ap);
  e->code = code;
  e->message = cuplug__buf_take(&b, NULL);
  e->log = log && *log ? cuplug__strdup(log) : NULL;
  if (!e->message || (log && *log && !e->log)) {
    cuplug__error_destroy(e);
    return &oom_error;
  }
  return e;
}

cuplug_error *cuplug__error(cuplug_status code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cuplug_error *e = make(code, NULL, fmt, ap);
  va_end(ap);
  return e;
}

cuplug_error *cuplug__error_log(cuplug_status code, const char *log,
                                const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cuplug_error *e = make(code, log, fmt, ap);
  va_end(ap);
  return e;
}

void cuplug__error_destroy(cuplug_error *e) {
  if (!e || e == &oom_error) return;
  free(e->message);
  free(e->log);
  free(e);
}

const char *cuplug__status_name(cuplug_status s) {
  switch (s) {
#define NAME(x) \
  case x:       \
    return #x;
    NAME(CUPLUG_OK)
    NAME(CUPLUG_ERR_INVALID_ARGUMENT)
    NAME(CUPLUG_ERR_OUT_OF_MEMORY)
    NAME(CUPLUG_ERR_ABI_FIELD)
    NAME(CUPLUG_ERR_IO)
    NAME(CUPLUG_ERR_SIGNATURE_SYNTAX)
    NAME(CUPLUG_ERR_UNKNOWN_TYPE)
    NAME(CUPLUG_ERR_INVALID_TYPE)
    NAME(CUPLUG_ERR_IR_EMPTY)
    NAME(CUPLUG_ERR_IR_PARSE)
    NAME(CUPLUG_ERR_ENTRY_NOT_FOUND)
    NAME(CUPLUG_ERR_ENTRY_MISMATCH)
    NAME(CUPLUG_ERR_IR_UNSUPPORTED)
    NAME(CUPLUG_ERR_IR_VERSION)
    NAME(CUPLUG_ERR_OPTION_OUTPUT)
    NAME(CUPLUG_ERR_OPTION_ABI)
    NAME(CUPLUG_ERR_FORCEINLINE_OUTPUT)
    NAME(CUPLUG_ERR_FORCEINLINE_KERNEL)
    NAME(CUPLUG_ERR_C_ABI_KERNEL)
    NAME(CUPLUG_ERR_KERNEL_RETURN)
    NAME(CUPLUG_ERR_LAUNCH_BOUNDS)
    NAME(CUPLUG_ERR_OPTION_CC)
    NAME(CUPLUG_ERR_OPTION_OPT)
    NAME(CUPLUG_ERR_OPTION_KIND)
    NAME(CUPLUG_ERR_OPTION_NAME)
    NAME(CUPLUG_ERR_OPTION_BACKEND)
    NAME(CUPLUG_ERR_OPTION_CACHE_REMOTE)
    NAME(CUPLUG_ERR_NVVM_NOT_FOUND)
    NAME(CUPLUG_ERR_LIBDEVICE_NOT_FOUND)
    NAME(CUPLUG_ERR_NVVM)
    NAME(CUPLUG_ERR_DRIVER_NOT_FOUND)
    NAME(CUPLUG_ERR_NO_DEVICE)
    NAME(CUPLUG_ERR_DRIVER)
    NAME(CUPLUG_ERR_NVRTC_NOT_FOUND)
    NAME(CUPLUG_ERR_NVJITLINK_NOT_FOUND)
    NAME(CUPLUG_ERR_NVPTX_NOT_FOUND)
    NAME(CUPLUG_ERR_NVPTX)
    NAME(CUPLUG_ERR_CODE_KIND)
    NAME(CUPLUG_ERR_NVRTC)
    NAME(CUPLUG_ERR_LINK)
    NAME(CUPLUG_ERR_DUPLICATE)
    NAME(CUPLUG_ERR_DECLARATION_MISMATCH)
    NAME(CUPLUG_ERR_LOAD)
    NAME(CUPLUG_ERR_KERNEL_NOT_FOUND)
    NAME(CUPLUG_ERR_LAUNCH_ARGS)
    NAME(CUPLUG_ERR_LAUNCH_CONFIG)
    NAME(CUPLUG_ERR_KERNEL_EXCEPTION)
    NAME(CUPLUG_ERR_KERNEL_FAULT)
    NAME(CUPLUG_ERR_UNKNOWN_KEY)
    NAME(CUPLUG_ERR_NO_MATCH)
    NAME(CUPLUG_ERR_AMBIGUOUS)
    NAME(CUPLUG_ERR_NO_LOWERING)
    NAME(CUPLUG_ERR_CALLBACK)
    NAME(CUPLUG_ERR_LOWERING)
    NAME(CUPLUG_ERR_TOOLKIT_CRASH)
    NAME(CUPLUG_ERR_TIMEOUT)
    NAME(CUPLUG_ERR_HELPER)
    NAME(CUPLUG_ERR_LIMIT)
    NAME(CUPLUG_ERR_IR_INVALID)
    NAME(CUPLUG_ERR_HOST_UNSUPPORTED)
    NAME(CUPLUG_ERR_HOST_BARRIER)
    NAME(CUPLUG_ERR_HOST_NOT_FOUND)
    NAME(CUPLUG_ERR_INTERRUPTED)
    NAME(CUPLUG_WARN_DEBUG_WITH_OPT)
    NAME(CUPLUG_WARN_CACHE)
    NAME(CUPLUG_WARN_NVRTC_LOG)
#undef NAME
  }
  return "CUPLUG_UNKNOWN_STATUS";
}
