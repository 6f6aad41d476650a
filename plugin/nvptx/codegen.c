/* codegen.c - target machine, optimiser, PTX. */
#include "plugin/nvptx/codegen.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuplug/cuplug.h"

/* The processors LLVM 22's NVPTX backend knows (llc -mcpu=help).  LLVM
 * takes any other name with a line on stderr and writes PTX for none. */
static const char *const processors[] = {
    "sm_20",   "sm_21",   "sm_30",   "sm_32",   "sm_35",   "sm_37",   "sm_50",   "sm_52",
    "sm_53",   "sm_60",   "sm_61",   "sm_62",   "sm_70",   "sm_72",   "sm_75",   "sm_80",
    "sm_86",   "sm_87",   "sm_88",   "sm_89",   "sm_90",   "sm_90a",  "sm_100",  "sm_100a",
    "sm_100f", "sm_101",  "sm_101a", "sm_101f", "sm_103",  "sm_103a", "sm_103f", "sm_110",
    "sm_110a", "sm_110f", "sm_120",  "sm_120a", "sm_120f", "sm_121",  "sm_121a", "sm_121f",
    NULL};

static bool known_processor(const char *cpu) {
  for (size_t i = 0; cpu && processors[i]; i++)
    if (strcmp(processors[i], cpu) == 0) return true;
  return false;
}

static pthread_once_t registered = PTHREAD_ONCE_INIT;

static void register_nvptx(void) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
}

/* A module for another target is a host's mistake, not something to
 * retarget: its data layout and intrinsics are that target's. */
static int check_triple(cuplug__nvptx_work *w) {
  const char *triple = LLVMGetTarget(w->mod);
  if (!triple || !*triple || strncmp(triple, "nvptx64-", 8) == 0) return 0;
  return cuplug__nvptx_fail(w, CUPLUG_ERR_IR_UNSUPPORTED,
                            "%s is for %s, not " CUPLUG__NVPTX_TRIPLE
                            ": LLVM's NVPTX backend compiles device code for 64-bit CUDA",
                            w->args->name, triple);
}

static LLVMCodeGenOptLevel level_of(const cuplug__nvptx_args *a) {
  static const LLVMCodeGenOptLevel levels[] = {LLVMCodeGenLevelNone, LLVMCodeGenLevelLess,
                                               LLVMCodeGenLevelDefault,
                                               LLVMCodeGenLevelAggressive};
  return a->debug || a->opt < 0 ? levels[0] : a->opt > 3 ? levels[3] : levels[a->opt];
}

int cuplug__nvptx_target(cuplug__nvptx_work *w) {
  const cuplug__nvptx_args *a = w->args;
  if (!known_processor(a->cpu))
    return cuplug__nvptx_fail(w, CUPLUG_ERR_OPTION_CC,
                              "LLVM 22's NVPTX backend has no processor %s (it knows sm_20 "
                              "to sm_121f)",
                              a->cpu ? a->cpu : "(none)");
  if (check_triple(w)) return w->status;
  pthread_once(&registered, register_nvptx);
  LLVMTargetRef target;
  char *why = NULL;
  if (LLVMGetTargetFromTriple(CUPLUG__NVPTX_TRIPLE, &target, &why)) {
    cuplug__nvptx_fail(w, CUPLUG_ERR_NVPTX, "LLVM has no NVPTX target: %s", why ? why : "");
    LLVMDisposeMessage(why);
    return w->status;
  }
  LLVMTargetMachineOptionsRef o = LLVMCreateTargetMachineOptions();
  LLVMTargetMachineOptionsSetCPU(o, a->cpu);
  LLVMTargetMachineOptionsSetFeatures(o, a->features ? a->features : CUPLUG__NVPTX_FEATURES);
  LLVMTargetMachineOptionsSetCodeGenOptLevel(o, level_of(a));
  w->tm = LLVMCreateTargetMachineWithOptions(target, CUPLUG__NVPTX_TRIPLE, o);
  LLVMDisposeTargetMachineOptions(o);
  if (!w->tm) return cuplug__nvptx_fail(w, CUPLUG_ERR_NVPTX, "LLVM made no target machine for %s", a->cpu);
  /* PTX without the comments LLVM writes for people: ptxas reads less */
  LLVMSetTargetMachineAsmVerbosity(w->tm, 0);
  LLVMSetTarget(w->mod, CUPLUG__NVPTX_TRIPLE);
  LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(w->tm);
  LLVMSetModuleDataLayout(w->mod, layout);
  LLVMDisposeTargetData(layout);
  return 0;
}

int cuplug__nvptx_optimise(cuplug__nvptx_work *w) {
  const cuplug__nvptx_args *a = w->args;
  int level = a->debug ? 0 : a->opt < 0 ? 0 : a->opt > 3 ? 3 : a->opt;
  char pipeline[80];
  snprintf(pipeline, sizeof pipeline, "%sdefault<O%d>",
           a->lineinfo && !a->debug ? "strip-nonlinetable-debuginfo," : "", level);
  LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
  /* as clang sets them for -O2 and up */
  LLVMPassBuilderOptionsSetLoopVectorization(o, level > 1);
  LLVMPassBuilderOptionsSetSLPVectorization(o, level > 1);
  LLVMErrorRef e = LLVMRunPasses(w->mod, pipeline, w->tm, o);
  LLVMDisposePassBuilderOptions(o);
  if (e) {
    char *why = LLVMGetErrorMessage(e);
    cuplug__nvptx_fail(w, CUPLUG_ERR_NVPTX, "LLVM's optimiser failed on %s: %s", a->name, why);
    LLVMDisposeErrorMessage(why);
    return w->status;
  }
  return cuplug__nvptx_check_errors(w);
}

void cuplug__nvptx_drop_debug_target(char *ptx, size_t *size) {
  char *line = strncmp(ptx, ".target ", 8) == 0 ? ptx : strstr(ptx, "\n.target ");
  if (!line) return;
  char *end = strchr(line + 1, '\n');
  if (!end) end = ptx + *size;
  static const char word[] = ", debug";
  for (char *p = line; p + sizeof word - 1 <= end; p++) {
    if (memcmp(p, word, sizeof word - 1) != 0) continue;
    size_t n = sizeof word - 1;
    memmove(p, p + n, (size_t)(ptx + *size - (p + n)) + 1);
    *size -= n;
    return;
  }
}

/* Line tables (Triton's IR carries them, and lineinfo keeps them) make
 * LLVM write `.target sm_90a, debug`, and the driver compiles such PTX as
 * debug code: on the H200 Triton's matmul ran 3.9 times as long.  Only
 * debug=1 asks for that. */
int cuplug__nvptx_emit(cuplug__nvptx_work *w, char **ptx, size_t *size) {
  char *why = NULL;
  LLVMMemoryBufferRef out = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(w->tm, w->mod, LLVMAssemblyFile, &why, &out)) {
    cuplug__nvptx_check_errors(w);
    cuplug__nvptx_fail(w, CUPLUG_ERR_NVPTX, "LLVM's NVPTX backend wrote no PTX for %s: %s",
                       w->args->name, why ? why : "");
    LLVMDisposeMessage(why);
    return w->status;
  }
  if (cuplug__nvptx_check_errors(w)) {
    LLVMDisposeMemoryBuffer(out);
    return w->status;
  }
  size_t n = LLVMGetBufferSize(out);
  char *text = malloc(n + 1);
  if (text) {
    memcpy(text, LLVMGetBufferStart(out), n);
    text[n] = '\0';
    n = strlen(text);
    if (!w->args->debug) cuplug__nvptx_drop_debug_target(text, &n);
  }
  LLVMDisposeMemoryBuffer(out);
  if (!text) return cuplug__nvptx_fail(w, CUPLUG_ERR_OUT_OF_MEMORY, "out of memory");
  *ptx = text;
  *size = n;
  return 0;
}
