/* info.c - versions of the plugin, the toolkit and the driver. */
#include "plugin/api/info.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <llvm/Config/llvm-config.h>

#include "base/error.h"
#include "plugin/toolkit/toolkit.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool probed; /* tk holds libraries */
static cuplug__toolkit tk; /* the default search, probed once */
static cuplug_info found;
static char device_name[256];
static char driver_status[512];

/* The status line of a probe: "ok", or the error's message. */
static const char *status_of(cuplug_error *e, cuplug__lib *lib) {
  if (!e) return "ok";
  cuplug__error_destroy(e);
  return lib->error ? lib->error : "not found";
}

static void probe(void) {
  memset(&found, 0, sizeof found);
  found.nvvm_major = found.nvvm_minor = -1;
  found.nvvm_ir_major = found.nvvm_ir_minor = found.nvvm_dbg_major = found.nvvm_dbg_minor = -1;
  found.nvrtc_major = found.nvrtc_minor = -1;
  found.nvjitlink_major = found.nvjitlink_minor = -1;
  found.driver_version = -1;
  found.device_cc_major = found.device_cc_minor = -1;
  found.device_name = "";
  found.nvvm_path = "";
  probed = true;
  if (cuplug__toolkit_init(&tk, NULL)) {
    probed = false;
    found.nvvm_status = found.nvrtc_status = found.nvjitlink_status = found.driver_status =
        found.nvptx_status = "out of memory";
    found.llvm_version = LLVM_VERSION_STRING;
    return;
  }

  const cuplug__nvvm_api *nvvm;
  cuplug_error *e = cuplug__toolkit_nvvm(&tk, &nvvm);
  if (!e) {
    nvvm->version(&found.nvvm_major, &found.nvvm_minor);
    nvvm->ir_version(&found.nvvm_ir_major, &found.nvvm_ir_minor, &found.nvvm_dbg_major,
                     &found.nvvm_dbg_minor);
    found.nvvm_path = tk.nvvm_lib.path ? tk.nvvm_lib.path : "";
  }
  found.nvvm_status = status_of(e, &tk.nvvm_lib);

  const cuplug__nvrtc_api *nvrtc;
  e = cuplug__toolkit_nvrtc(&tk, &nvrtc);
  if (!e) nvrtc->version(&found.nvrtc_major, &found.nvrtc_minor);
  found.nvrtc_status = status_of(e, &tk.nvrtc_lib);

  const cuplug__nvjitlink_api *jl;
  e = cuplug__toolkit_nvjitlink(&tk, &jl);
  if (!e) {
    unsigned major = 0, minor = 0;
    jl->version(&major, &minor);
    found.nvjitlink_major = (int32_t)major;
    found.nvjitlink_minor = (int32_t)minor;
  }
  found.nvjitlink_status = status_of(e, &tk.nvjitlink_lib);

  /* The LLVM this plugin is built on; libcuplug-nvptx.so carries the same */
  found.llvm_version = LLVM_VERSION_STRING;
  const cuplug__nvptx_api *nvptx;
  e = cuplug__toolkit_nvptx(&tk, &nvptx);
  found.nvptx_status = status_of(e, &tk.nvptx_lib);

  const cuplug__driver_api *cu;
  e = cuplug__toolkit_driver(&tk, &cu);
  if (tk.driver_lib.state == CUPLUG__LIB_LOADED)
    tk.driver.driver_get_version(&found.driver_version);
  if (!e) {
    int count = 0;
    cuplug__cu_device dev;
    if (cu->device_get_count(&count) == 0) found.device_count = count;
    if (count > 0 && cu->device_get(&dev, 0) == 0) {
      cu->device_get_attribute(&found.device_cc_major, CUPLUG__CU_DEVICE_ATTRIBUTE_CC_MAJOR, dev);
      cu->device_get_attribute(&found.device_cc_minor, CUPLUG__CU_DEVICE_ATTRIBUTE_CC_MINOR, dev);
      if (cu->device_get_name(device_name, sizeof device_name, dev) == 0)
        found.device_name = device_name;
    }
    found.driver_status = "ok";
  } else {
    snprintf(driver_status, sizeof driver_status, "%s", e->message);
    found.driver_status = driver_status;
    cuplug__error_destroy(e);
  }
}

/* The plugin is being unloaded: give back what the probe loaded. */
__attribute__((destructor)) static void info_shutdown(void) {
  pthread_mutex_lock(&lock);
  if (probed) cuplug__toolkit_release(&tk);
  probed = false;
  pthread_mutex_unlock(&lock);
}

void cuplug__info_fill(cuplug_info *info, const char *version) {
  pthread_once(&once, probe);
  size_t size = info->struct_size;
  *info = found;
  info->struct_size = size;
  info->cuplug_version = version;
  info->abi_major = CUPLUG_ABI_MAJOR;
  info->abi_minor = CUPLUG_ABI_MINOR;
}
