/* setup.c - LLVM's process-wide settings, made once for the plugin: both
 * the validator and the modern-IR module read IR, and LLVM takes its
 * command-line options only once. */
#include "plugin/llvm/setup.h"

#include <llvm-c/Core.h>
#include <llvm-c/Support.h>
#include <pthread.h>

static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;

static void llvm_options(void) {
  /* A module that carries debug info and fails LLVM's verifier would make
   * the parser's debug-info upgrade abort the process; cuplug reports
   * problems itself. */
  const char *argv[] = {"cuplug", "-disable-auto-upgrade-debug-info"};
  LLVMParseCommandLineOptions(2, argv, NULL);
}

void cuplug__llvm_setup(void) { pthread_once(&llvm_once, llvm_options); }

/* The plugin is being unloaded: LLVM frees what it keeps for the process
 * (it cannot be used again, and will not be). */
__attribute__((destructor)) static void llvm_unload(void) { LLVMShutdown(); }
