/* fuzz_code_kind.c - telling the kind of code to link (by name and by
 * contents), and reading it in, as declare_device and link() do. */
#include "base/code.h"
#include "base/error.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* a name of up to 15 bytes first, then the contents */
  size_t name_len = fuzz_choose(&data, &size, 16);
  if (name_len > size) name_len = size;
  char *name = fuzz_string(data, name_len);
  cuplug_code in = {.struct_size = sizeof in, .name = name, .data = data + name_len,
                    .size = size - name_len};
  cuplug__code c;
  cuplug_error *e = cuplug__code_import(&in, 0, &c);
  if (!e) {
    if (c.kind == CUPLUG_CODE_AUTO || c.size != in.size || c.data[c.size] != '\0') abort();
    if (cuplug__code_sniff(name, in.data, in.size) != c.kind) abort();
    cuplug__code_free(&c);
  }
  cuplug__error_destroy(e);
  free(name);
  return 0;
}
