/* entry.c - libcuplug-host.so's one export: the table of host.h. */
#include "plugin/cpu/internal.h"

static const cuplug__host_api api = {
    .version = CUPLUG__HOST_VERSION,
    .jit_create = cuplug__host_jit_create,
    .jit_destroy = cuplug__host_jit_destroy,
    .lib_create = cuplug__host_lib_create,
    .lib_destroy = cuplug__host_lib_destroy,
    .lookup = cuplug__host_lookup,
    .launch = cuplug__host_launch,
    .call = cuplug__host_ffi_call,
};

__attribute__((visibility("default"))) const cuplug__host_api *cuplug__host_get(uint32_t version) {
  return version == CUPLUG__HOST_VERSION ? &api : NULL;
}
