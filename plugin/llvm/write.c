/* write.c - the lowered module out: bitcode for the NVPTX backend's
 * helper process, or text for a person (and for libNVVM's modern reader). */
#include <llvm-c/BitWriter.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "plugin/llvm/internal.h"

cuplug_error *cuplug__modern_bitcode(cuplug__modern *m, char **data, size_t *size) {
  LLVMMemoryBufferRef mb = LLVMWriteBitcodeToMemoryBuffer(m->mod);
  if (!mb) return cuplug__error_oom();
  size_t n = LLVMGetBufferSize(mb);
  char *out = malloc(n ? n : 1);
  if (out) memcpy(out, LLVMGetBufferStart(mb), n);
  LLVMDisposeMemoryBuffer(mb);
  if (!out) return cuplug__error_oom();
  *data = out;
  *size = n;
  return NULL;
}

cuplug_error *cuplug__modern_text(cuplug__modern *m, char **text, size_t *size) {
  char *s = LLVMPrintModuleToString(m->mod);
  size_t n = strlen(s);
  char *out = malloc(n + 1);
  if (out) memcpy(out, s, n + 1);
  LLVMDisposeMessage(s);
  if (!out) return cuplug__error_oom();
  *text = out;
  *size = n;
  return NULL;
}
