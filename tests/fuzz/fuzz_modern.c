/* fuzz_modern.c - modern IR through the table (issue 20): the bytes as
 * LLVM text or as bitcode (they are whichever their first bytes say),
 * read, linked and lowered through LLVM-C in the plugin's process.  The
 * output is the CPU target's, which stops before any code generator: what
 * runs in the host process is the reader and the lowering, and that must
 * never crash, hang or leak, whatever the bytes.  The entry is the text's
 * first definition, as a kernel (its signature from the IR when it is a
 * ptx_kernel) or a device function exported under the C ABI. */
#include <stdio.h>

#include "cuplug/cuplug.h"
#include "fuzz.h"

static const cuplug_api *api;
static cuplug_session *session;

static const char *const signatures[] = {NULL, "int32(int32, int32)", "void(float32[::1], int64)",
                                         "float32(float32)", "void(CPointer(float32), int32)"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!api) {
    api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
    cuplug_session_options o = {.struct_size = sizeof o, .time_limit_ms = 10000};
    cuplug_error *e = api->session_create(&o, &session);
    if (e) {
      fprintf(stderr, "fuzz_modern: %s\n", api->error_message(e));
      abort();
    }
  }
  unsigned which = fuzz_choose(&data, &size, sizeof signatures / sizeof signatures[0]);
  bool kernel = fuzz_choose(&data, &size, 2);
  char *bytes = fuzz_string(data, size);
  const char *sig = signatures[which];
  if (sig && kernel && strncmp(sig, "void", 4) != 0) kernel = false;
  cuplug_module m = {.struct_size = sizeof m, .name = "fuzz.ll", .text = bytes, .size = size};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = session, .modules = mods,
                           .num_modules = 1, .entry = fuzz_first_definition(bytes),
                           .signature = sig,
                           .kind = kernel ? CUPLUG_KERNEL : CUPLUG_DEVICE_FUNCTION,
                           .entry_abi = which % 2 ? CUPLUG_ABI_NUMBA : CUPLUG_ABI_C,
                           .output = CUPLUG_OUTPUT_HOST};
  cuplug_error *e = api->compile(&a);
  if (e) {
    if (!api->error_message(e)[0]) abort();
    api->error_destroy(e);
  } else {
    api->artifact_destroy(a.artifact);
  }
  free(bytes);
  return 0;
}
