/* bitcode_of.h - a module written as LLVM bitcode by the test's own LLVM,
 * for the unit suites that make bitcode inputs (test_modern.c defines it,
 * test_backends.c uses it too). */
#ifndef CUPLUG_TESTS_UNIT_BITCODE_OF_H
#define CUPLUG_TESTS_UNIT_BITCODE_OF_H

#include <stddef.h>

#include <llvm-c/Core.h>

/* The module as bitcode (malloc'd, *n bytes); the module and its context
 * are disposed of. */
char *t_bitcode_of_module(LLVMContextRef ctx, LLVMModuleRef mod, size_t *n);

#endif
