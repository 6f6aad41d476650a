/* entry.c - libcuplug-nvptx.so's one export: the table of nvptx.h. */
#include <llvm-c/ErrorHandling.h>
#include <llvm/Config/llvm-config.h>

#include "plugin/nvptx/compile.h"
#include "plugin/nvptx/nvptx.h"

static const char *llvm_version(void) { return LLVM_VERSION_STRING; }

/* LLVM's fatal-error handler takes no context: the one there is lives here. */
static void (*fatal_report)(void *ctx, const char *reason);
static void *fatal_ctx;

static void on_fatal(const char *reason) {
  if (fatal_report) fatal_report(fatal_ctx, reason ? reason : "");
}

static void set_fatal_handler(void (*report)(void *ctx, const char *reason), void *ctx) {
  fatal_report = report;
  fatal_ctx = ctx;
  if (report)
    LLVMInstallFatalErrorHandler(on_fatal);
  else
    LLVMResetFatalErrorHandler();
}

static const cuplug__nvptx_api api = {
    .version = CUPLUG__NVPTX_VERSION,
    .compile = cuplug__nvptx_compile_module,
    .llvm_version = llvm_version,
    .set_fatal_handler = set_fatal_handler,
    .to_text = cuplug__nvptx_to_text,
};

__attribute__((visibility("default"))) const cuplug__nvptx_api *cuplug__nvptx_get(uint32_t version) {
  return version == CUPLUG__NVPTX_VERSION ? &api : NULL;
}
