/* jit.h - one LLJIT per session, one JITDylib per library (jit.c). */
#ifndef CUPLUG__PLUGIN_CPU_JIT_H
#define CUPLUG__PLUGIN_CPU_JIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Orc.h>

#include "plugin/cpu/cpu.h"
#include "plugin/cpu/launcher.h"

typedef struct cuplug__cpu_kernel {
  char *name;
  cuplug__cpu_launcher launcher;
  cuplug__cpu_launcher row; /* NULL where threads must run one by one */
  /* the exception store: errcode, tid x y z, ctaid x y z (NULL without) */
  int32_t *store[7];
} cuplug__cpu_kernel;

struct cuplug__cpu_lib {
  struct cuplug__cpu_jit *jit;
  LLVMOrcJITDylibRef jd;
  cuplug__cpu_kernel *kernels;
  size_t num_kernels;
  /* the code synchronises threads (barriers, warp collectives): its
   * threads run as fibers; without, as plain calls */
  bool uses_collectives;
};

int cuplug__cpu_jit_create(cuplug__cpu_jit **out, char **msg);
void cuplug__cpu_jit_destroy(cuplug__cpu_jit *j);
int cuplug__cpu_lib_create(cuplug__cpu_jit *j, const cuplug__cpu_lib_args *a,
                           cuplug__cpu_lib **out, char **msg);
void cuplug__cpu_lib_destroy(cuplug__cpu_lib *l);
void *cuplug__cpu_lookup(cuplug__cpu_lib *l, const char *name);

#endif
