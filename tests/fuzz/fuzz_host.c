/* fuzz_host.c - the CPU target: the bytes as IR compiled with
 * CUPLUG_OUTPUT_HOST and loaded, so that the retargeting passes and LLVM's
 * X86 code generator in libcuplug-host.so (which runs in the host's own
 * process) see whatever LLVM's verifier lets through.  The code is JIT
 * compiled, not run: running it is the host's own doing. */
#include <stdio.h>

#include "cuplug/cuplug.h"
#include "fuzz.h"

static const cuplug_api *api;
static cuplug_session *session;

static const char *const signatures[] = {"int64(int32, int32)", "float32(float32)",
                                         "void(float32[::1], float32[::1], float32)",
                                         "void(int32[::1])"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!api) {
    api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
    cuplug_session_options o = {.struct_size = sizeof o, .flags = CUPLUG_SESSION_NO_CACHE};
    cuplug_error *e = api->session_create(&o, &session);
    if (e) {
      fprintf(stderr, "fuzz_host: %s\n", api->error_message(e));
      abort();
    }
  }
  unsigned which = fuzz_choose(&data, &size, sizeof signatures / sizeof signatures[0]);
  char *text = fuzz_string(data, size);
  const char *sig = signatures[which];
  bool kernel = strncmp(sig, "void", 4) == 0;
  cuplug_module m = {.struct_size = sizeof m, .name = "fuzz.ll", .text = text, .size = size};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = session, .modules = mods,
                           .num_modules = 1, .entry = fuzz_first_definition(text),
                           .signature = sig,
                           .kind = kernel ? CUPLUG_KERNEL : CUPLUG_DEVICE_FUNCTION,
                           .output = CUPLUG_OUTPUT_HOST};
  cuplug_error *e = api->compile(&a);
  if (!e) {
    cuplug_load_args l = {.struct_size = sizeof l, .session = session, .artifact = a.artifact};
    e = api->load(&l);
    if (!e) api->library_unload(l.library);
    api->artifact_destroy(a.artifact);
  }
  if (e && !api->error_message(e)[0]) abort();
  api->error_destroy(e);
  free(text);
  return 0;
}
