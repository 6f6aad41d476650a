/* fuzz_irtext.c - the IR lexer and every text pass, as a compile runs
 * them on a module: the C-ABI wrapper (in place, or beside the entry), the
 * kernel fix-up with the exception store, or the linkonce rewrite of an
 * implementation; then legalisation.  The entry is the module's first
 * definition, its signature one of a few that numba-cuda's cases use. */
#include "base/error.h"
#include "base/types.h"
#include "fuzz.h"
#include "lowering/lowering.h"

static const char *const signatures[] = {
    "int64(int32, int32)",     "bool(bool, bool, bool)",   "complex64(complex64)",
    "void(float32[::1], float32[::1], float32)", "float64(float64[:, :])", "void()",
    "int32(CPointer(float32), int64)", "void(int32[::1])"};

/* The name of the first function the module defines (malloc'd), or NULL. */
static char *first_define(const char *text, size_t size) {
  ir_module m;
  cuplug_error *e = cuplug__ir_module_parse(&m, "fuzz", text, size, NULL);
  if (e) {
    cuplug__error_destroy(e);
    return NULL;
  }
  char *name = NULL;
  for (size_t i = 0; i < m.num_items && !name; i++)
    if (m.items[i].kind == IR_ITEM_DEFINE && m.items[i].name) name = strdup(m.items[i].name);
  cuplug__ir_module_free(&m);
  return name;
}

static cuplug_error *wrap(ir_rewrite *rw, unsigned mode, const cuplug_type *sig,
                          const char *entry) {
  static const uint32_t bounds[] = {256, 2, 1};
  switch (mode) {
    case 0:
    case 1: {
      cuplug__kernel_options ko = {mode == 1, bounds, mode == 1 ? 3 : 1, false};
      return cuplug__kernel_fixup(rw, entry, &ko);
    }
    case 2:
    case 3: {
      cuplug__cabi_options co = {.sig = sig, .entry = entry, .name = "exported",
                                 .forceinline = mode == 3, .has_entry = true,
                                 .sole_caller = mode == 2};
      return cuplug__cabi_wrap(rw, &co);
    }
    default:
      return cuplug__linkonce_definitions(rw);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  unsigned mode = fuzz_choose(&data, &size, 5);
  unsigned which = fuzz_choose(&data, &size, sizeof signatures / sizeof signatures[0]);
  char *text = fuzz_string(data, size);
  const cuplug_type *sig = NULL;
  cuplug_error *e = cuplug__signature_parse(signatures[which], &sig);
  if (e) abort();
  char *entry = first_define(text, size);
  ir_rewrite rw;
  e = cuplug__ir_rewrite_begin(&rw, "fuzz", text, size, cuplug__legalize_watch());
  if (!e) {
    cuplug__ir_version v = {2, 0, 3, 2};
    bool libdevice = false;
    e = entry ? wrap(&rw, mode, sig, entry) : NULL;
    if (!e) e = cuplug__legalize(&rw, v, &libdevice);
    if (e) {
      cuplug__ir_rewrite_abort(&rw);
    } else {
      char *out = NULL;
      size_t n = 0;
      e = cuplug__ir_rewrite_finish(&rw, &out, &n);
      if (!e && (!out || out[n] != '\0')) abort();
      free(out);
    }
  }
  cuplug__error_destroy(e);
  free(entry);
  free(text);
  return 0;
}
