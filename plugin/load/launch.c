/* launch.c - a kernel launched on its library's target: the arguments
 * packed from its signature as numba-cuda's dispatcher packs them
 * (args.c), then the GPU's driver (gpu.c) or the CPU's grid (cpu.c). */
#include "plugin/load/launch.h"

#include "base/error.h"
#include "plugin/load/args.h"
#include "plugin/load/cpu.h"
#include "plugin/load/gpu.h"
#include "plugin/load/objects.h"

cuplug_error *cuplug__launch(const cuplug_launch_args *a) {
  cuplug_kernel *k = a->kernel;
  if (!k) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "launch: kernel is NULL");
  void *params[CUPLUG__MAX_PARAMS];
  int64_t slots[CUPLUG__MAX_PARAMS];
  size_t num_params;
  cuplug__arg_site site = {"kernel", k->name, k->sig};
  cuplug__args args = {a->args, a->arguments, a->num_args};
  CUPLUG__TRY(cuplug__args_pack(&site, &args, params, slots, &num_params));
  if (k->library->cpu) return cuplug__launch_cpu(k, a, params, num_params);
  return cuplug__launch_gpu(k, a, params);
}
