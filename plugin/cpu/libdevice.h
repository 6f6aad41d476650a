/* libdevice.h - libdevice linked into a module (libdevice.c). */
#ifndef CUPLUG__PLUGIN_CPU_LIBDEVICE_H
#define CUPLUG__PLUGIN_CPU_LIBDEVICE_H

#include <stdbool.h>
#include <stddef.h>

#include <llvm-c/Core.h>

/* Links libdevice into the module, its __nvvm_reflect answered, the
 * functions the module does not call dropped. */
int cuplug__cpu_link_libdevice(LLVMModuleRef m, const void *bitcode, size_t size, bool ftz,
                               char **msg);

#endif
