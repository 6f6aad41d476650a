/* fuzz_signature.c - the type and signature parser, and the data model of
 * whatever parses (type_parse, type_lower, type_info through the table). */
#include "cuplug/cuplug.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const cuplug_api *api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  char *text = fuzz_string(data, size);
  const cuplug_type *t = NULL;
  cuplug_error *e = api->type_parse(text, &t);
  if (!e) {
    /* the name parses back to the same type */
    cuplug_type_info info = {.struct_size = sizeof info, .type = t};
    if (api->type_info(&info)) abort();
    const cuplug_type *again = NULL;
    cuplug_error *e2 = api->type_parse(info.name, &again);
    if (e2 || again != t) abort();
    for (int abi = CUPLUG_ABI_NUMBA; abi <= CUPLUG_ABI_C; abi++)
      for (int pos = 0; pos <= 1; pos++) {
        cuplug_type_lower_args l = {.struct_size = sizeof l, .type = t, .abi = abi,
                                    .position = pos};
        api->error_destroy(api->type_lower(&l));
      }
  } else if (!api->error_message(e)[0]) {
    abort(); /* every error says what went wrong */
  }
  api->error_destroy(e);
  free(text);
  return 0;
}
