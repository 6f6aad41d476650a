/* options.c - numba-cuda's rules for a compile's options.
 *
 * The rules come in groups, checked in numba-cuda's order: the call's own
 * arguments, the output, the ABIs, launch bounds, the optimisation level
 * and cc, and the names. */
#include "plugin/pipeline/options.h"

#include <ctype.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/types.h"
#include "plugin/session/session.h"

static bool is_identifier(const char *s) {
  if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_' && *s != '$') return false;
  return true;
}

/* Pointers with their counts, flags, the function kind. */
static cuplug_error *check_arguments(const cuplug_compile_args *a) {
  if (!a->session) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "compile: session is NULL");
  const uint32_t known =
      CUPLUG_COMPILE_CURRENT_DEVICE | CUPLUG_COMPILE_KEEP_IR | CUPLUG_COMPILE_LINKED_PTX |
      CUPLUG_COMPILE_NO_CACHE;
  if (a->flags & ~known)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "compile: unknown flags 0x%x",
                         a->flags & ~known);
  if (a->kind != CUPLUG_DEVICE_FUNCTION && a->kind != CUPLUG_KERNEL)
    return cuplug__error(CUPLUG_ERR_OPTION_KIND,
                         "Unsupported function kind %d: a device function (0) or a kernel (1)",
                         (int)a->kind);
  return NULL;
}

/* numba-cuda's compile() makes PTX, compile_all() LTO-IR; a cubin only of
 * a kernel; forceinline only with LTO-IR. */
static cuplug_error *check_output(cuplug_compile_args *a, bool all) {
  if (a->output != CUPLUG_OUTPUT_DEFAULT && a->output != CUPLUG_OUTPUT_PTX &&
      a->output != CUPLUG_OUTPUT_LTOIR &&
      ((a->output != CUPLUG_OUTPUT_CUBIN && a->output != CUPLUG_OUTPUT_HOST) || all))
    return cuplug__error(CUPLUG_ERR_OPTION_OUTPUT, "Unsupported output type: %d (%s)",
                         (int)a->output, all ? "ptx or ltoir" : "ptx, ltoir, cubin or host");
  if (a->output == CUPLUG_OUTPUT_DEFAULT)
    a->output = all ? CUPLUG_OUTPUT_LTOIR : CUPLUG_OUTPUT_PTX;
  /* nvJitLink makes no relocatable cubin: a device function's would be
   * empty, and an empty cubin is no success */
  if (a->output == CUPLUG_OUTPUT_CUBIN && a->kind == CUPLUG_DEVICE_FUNCTION)
    return cuplug__error(CUPLUG_ERR_OPTION_OUTPUT,
                         "a device function has no cubin of its own: nvJitLink keeps only "
                         "kernels and what they call; compile it to ptx or ltoir and link it "
                         "into a kernel's cubin");
  if (a->num_link && !a->link)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "compile: num_link is %zu but link is NULL", a->num_link);
  if (a->num_include_paths && !a->include_paths)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "compile: num_include_paths is %zu but include_paths is NULL",
                         a->num_include_paths);
  if (a->forceinline && a->output != CUPLUG_OUTPUT_LTOIR)
    return cuplug__error(CUPLUG_ERR_FORCEINLINE_OUTPUT,
                         "Can only designate forced inlining in LTO-IR (output is ptx)");
  return NULL;
}

/* The entry's ABI and the exported one; kernels take neither the C ABI
 * nor forceinline. */
static cuplug_error *check_abis(const cuplug_compile_args *a, cuplug__options *o) {
  bool kernel = a->kind == CUPLUG_KERNEL;
  if (!cuplug__abi_valid(a->abi))
    return cuplug__error(CUPLUG_ERR_OPTION_ABI, "Unsupported ABI: %d (numba or c)", (int)a->abi);
  if (!cuplug__abi_valid(a->entry_abi))
    return cuplug__error(CUPLUG_ERR_OPTION_ABI, "Unsupported entry ABI: %d (numba or c)",
                         (int)a->entry_abi);
  if (kernel && a->abi == CUPLUG_ABI_C)
    return cuplug__error(CUPLUG_ERR_C_ABI_KERNEL, "The C ABI is not supported for kernels");
  if (kernel && a->forceinline)
    return cuplug__error(CUPLUG_ERR_FORCEINLINE_KERNEL, "Cannot force-inline kernels");
  o->entry_abi = a->entry_abi == CUPLUG_ABI_C ? CUPLUG_ABI_C : CUPLUG_ABI_NUMBA;
  o->abi = kernel || a->abi == CUPLUG_ABI_NUMBA ? CUPLUG_ABI_NUMBA : CUPLUG_ABI_C;
  if (!kernel && o->entry_abi == CUPLUG_ABI_C && o->abi == CUPLUG_ABI_NUMBA)
    return cuplug__error(CUPLUG_ERR_OPTION_ABI,
                         "a C-ABI entry cannot be exported under the Numba ABI");
  return NULL;
}

/* numba-cuda's message for too many bounds, with the bounds given. */
static cuplug_error *too_many_bounds(const cuplug_compile_args *a) {
  cuplug__buf b;
  cuplug__buf_init(&b);
  for (size_t i = 0; a->launch_bounds && i < a->num_launch_bounds; i++)
    cuplug__buf_printf(&b, "%s%u", i ? ", " : "", a->launch_bounds[i]);
  cuplug_error *e = cuplug__error(
      CUPLUG_ERR_LAUNCH_BOUNDS,
      "Got %zu launch bounds: (%s). A maximum of three are supported: "
      "(max_threads_per_block, min_blocks_per_sm, max_blocks_per_cluster)",
      a->num_launch_bounds, b.data ? b.data : "");
  cuplug__buf_free(&b);
  return e;
}

static cuplug_error *check_launch_bounds(const cuplug_compile_args *a) {
  static const char *const names[] = {"max_threads_per_block", "min_blocks_per_sm",
                                      "max_blocks_per_cluster"};
  if (a->num_launch_bounds > 3) return too_many_bounds(a);
  if (a->num_launch_bounds && !a->launch_bounds)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "compile: num_launch_bounds is %zu but launch_bounds is NULL",
                         a->num_launch_bounds);
  if (a->num_launch_bounds && a->kind != CUPLUG_KERNEL)
    return cuplug__error(CUPLUG_ERR_LAUNCH_BOUNDS,
                         "launch bounds apply to kernels, not device functions");
  for (size_t i = 0; i < a->num_launch_bounds; i++)
    if (a->launch_bounds[i] == 0)
      return cuplug__error(CUPLUG_ERR_LAUNCH_BOUNDS,
                           "launch bound %zu (%s) is 0: it must be positive", i + 1, names[i]);
  return NULL;
}

static cuplug_error *check_opt_and_cc(const cuplug_compile_args *a, cuplug__options *o) {
  if (a->opt < CUPLUG_OPT_NONE || a->opt > 3)
    return cuplug__error(CUPLUG_ERR_OPTION_OPT,
                         "opt level %d: libNVVM takes 0 to 3 (CUPLUG_OPT_NONE for 0)", a->opt);
  o->opt = a->opt == 0 ? 3 : a->opt == CUPLUG_OPT_NONE ? 0 : a->opt;
  if (a->cc_major == 0 && a->cc_minor != 0)
    return cuplug__error(CUPLUG_ERR_OPTION_CC, "compute capability 0.%u: give a major version",
                         a->cc_minor);
  if (a->cc_major && (a->flags & CUPLUG_COMPILE_CURRENT_DEVICE))
    return cuplug__error(CUPLUG_ERR_OPTION_CC,
                         "compute capability %u.%u given together with "
                         "CUPLUG_COMPILE_CURRENT_DEVICE: give one",
                         a->cc_major, a->cc_minor);
  if (a->cc_major > 99 || a->cc_minor > 9)
    return cuplug__error(CUPLUG_ERR_OPTION_CC, "compute capability %u.%u is not one",
                         a->cc_major, a->cc_minor);
  return cuplug__check_cc_suffix(a->cc_suffix);
}


/* The entry, and abi_name: the C-ABI wrapper's name, which only a device
 * function exported under the C ABI from a Numba-ABI entry has. */
static cuplug_error *check_names(const cuplug_compile_args *a, const cuplug__options *o) {
  bool kernel = a->kind == CUPLUG_KERNEL;
  bool wraps = !kernel && o->abi == CUPLUG_ABI_C && o->entry_abi == CUPLUG_ABI_NUMBA;
  if (!a->entry || !*a->entry)
    return cuplug__error(CUPLUG_ERR_OPTION_NAME, "compile: no entry symbol given");
  if (a->abi_name && !is_identifier(a->abi_name))
    return cuplug__error(CUPLUG_ERR_OPTION_NAME, "abi_name '%s' is not a C identifier",
                         a->abi_name);
  if (!a->abi_name && wraps && !is_identifier(a->entry))
    return cuplug__error(CUPLUG_ERR_OPTION_NAME,
                         "the C-ABI function would take the entry's name '%s', which is not a "
                         "C identifier: give abi_name",
                         a->entry);
  if (a->abi_name && (kernel || o->abi == CUPLUG_ABI_NUMBA ||
                      (o->entry_abi == CUPLUG_ABI_C && strcmp(a->abi_name, a->entry) != 0)))
    return cuplug__error(CUPLUG_ERR_OPTION_NAME,
                         "abi_name '%s' names a C-ABI wrapper, which this compile has none of "
                         "(%s)",
                         a->abi_name,
                         kernel                        ? "a kernel keeps its entry's name"
                         : o->abi == CUPLUG_ABI_NUMBA ? "the Numba ABI keeps the entry's name"
                                                      : "the entry is already C-ABI");
  return NULL;
}

cuplug_error *cuplug__check_options(cuplug_compile_args *a, bool all, cuplug__options *o) {
  CUPLUG__TRY(check_arguments(a));
  CUPLUG__TRY(check_output(a, all));
  o->lto = !a->no_lto && !a->debug;
  CUPLUG__TRY(check_abis(a, o));
  CUPLUG__TRY(check_launch_bounds(a));
  CUPLUG__TRY(check_opt_and_cc(a, o));
  return check_names(a, o);
}
