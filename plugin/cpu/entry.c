/* entry.c - libcuplug-host.so's one export: the table of host.h. */
#include "plugin/cpu/cpu.h"
#include "plugin/cpu/ffi.h"
#include "plugin/cpu/grid.h"
#include "plugin/cpu/jit.h"

static const cuplug__cpu_api api = {
    .version = CUPLUG__CPU_VERSION,
    .jit_create = cuplug__cpu_jit_create,
    .jit_destroy = cuplug__cpu_jit_destroy,
    .lib_create = cuplug__cpu_lib_create,
    .lib_destroy = cuplug__cpu_lib_destroy,
    .lookup = cuplug__cpu_lookup,
    .launch = cuplug__cpu_launch,
    .call = cuplug__cpu_ffi_call,
};

__attribute__((visibility("default"))) const cuplug__cpu_api *cuplug__cpu_get(uint32_t version) {
  return version == CUPLUG__CPU_VERSION ? &api : NULL;
}
