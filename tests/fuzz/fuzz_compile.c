/* fuzz_compile.c - the whole compile through the table, so that LLVM's
 * parser and verifier and libNVVM (in the helper process) see the bytes:
 * a device function or a kernel, to LTO-IR, with the entry named by the
 * module's first definition. */
#include <stdio.h>

#include "cuplug/cuplug.h"
#include "fuzz.h"

static const cuplug_api *api;
static cuplug_session *session;

static const char *const signatures[] = {"int64(int32, int32)", "bool(bool, bool, bool)",
                                         "void(float32[::1], float32[::1], float32)",
                                         "float32(float32)", "void(int32[::1])"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!api) {
    api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
    cuplug_session_options o = {.struct_size = sizeof o, .time_limit_ms = 10000};
    cuplug_error *e = api->session_create(&o, &session);
    if (e) {
      fprintf(stderr, "fuzz_compile: %s\n", api->error_message(e));
      abort();
    }
  }
  unsigned which = fuzz_choose(&data, &size, sizeof signatures / sizeof signatures[0]);
  bool kernel = fuzz_choose(&data, &size, 2);
  char *text = fuzz_string(data, size);
  const char *sig = signatures[which];
  if (kernel && strncmp(sig, "void", 4) != 0) kernel = false;
  cuplug_module m = {.struct_size = sizeof m, .name = "fuzz.ll", .text = text, .size = size};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = session, .modules = mods,
                           .num_modules = 1, .entry = fuzz_first_definition(text), .signature = sig,
                           .kind = kernel ? CUPLUG_KERNEL : CUPLUG_DEVICE_FUNCTION,
                           .output = CUPLUG_OUTPUT_LTOIR, .cc_major = 9, .abi_name = NULL,
                           /* arch-specific for a quarter of the inputs, chosen by
                            * length so that the bytes mean what they meant */
                           .cc_suffix = size % 4 == 1 ? 'a' : 0};
  if (!kernel && strchr(a.entry, '.')) a.abi_name = "exported";
  cuplug_error *e = api->compile(&a);
  if (e) {
    if (!api->error_message(e)[0]) abort();
    /* a crash or a hang of libNVVM is reported, and the host goes on; the
     * fuzzer counts them so that they can be looked into */
    if (api->error_code(e) == CUPLUG_ERR_TOOLKIT_CRASH || api->error_code(e) == CUPLUG_ERR_TIMEOUT)
      fprintf(stderr, "fuzz_compile: %s\n", api->error_message(e));
    api->error_destroy(e);
  } else {
    api->artifact_destroy(a.artifact);
  }
  free(text);
  return 0;
}
