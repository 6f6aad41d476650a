/* spaces.h - the address spaces a module's pointers are in, against those
 * a target has.  The NVPTX backend, libNVVM and the CPU each know a few;
 * LLVM's NVPTX backend takes any other as the generic one, silently, and
 * the CPU cannot run it.  Shared by libcuplug.so (plugin/llvm) and
 * libcuplug-host.so (plugin/cpu), which compile this file each. */
#ifndef CUPLUG__PLUGIN_LLVM_SPACES_H
#define CUPLUG__PLUGIN_LLVM_SPACES_H

#include <llvm-c/Core.h>
#include <stdbool.h>

/* The first address space the module uses that `has` refuses, in a
 * global's type or initializer, a function's return or parameters, an
 * instruction's value, operands or allocation, pointers inside aggregates
 * and constant expressions too (an addrspacecast of a global hides its
 * space); *where is the global or function.  0: none. */
unsigned cuplug__llvm_foreign_space(LLVMModuleRef m, bool (*has)(unsigned space),
                                    LLVMValueRef *where);

#endif
