/* code.h - code to link: CUDA C++, PTX, LTO-IR, cubins, fatbins, objects. */
#ifndef CUPLUG__BASE_CODE_H
#define CUPLUG__BASE_CODE_H

#include <stddef.h>

#include "cuplug/cuplug.h"

typedef struct cuplug__code {
  cuplug_code_kind kind; /* never AUTO */
  char *name;
  char *data; /* owned, with a NUL after the last byte (text kinds need it) */
  size_t size;
} cuplug__code;

/* Reads the caller's code (the file at path, or a copy of data) and tells
 * its kind: the one given, else from the suffix of path or name, else from
 * the contents.  `index` names it in messages when it has no name. */
cuplug_error *cuplug__code_import(const cuplug_code *in, size_t index, cuplug__code *out);
/* A copy of bytes cuplug made (NVRTC's output, an artifact's part). */
cuplug_error *cuplug__code_make(cuplug_code_kind kind, const char *name, const void *data,
                                size_t size, cuplug__code *out);
void cuplug__code_free(cuplug__code *c);
/* From the suffix, else the contents; CUPLUG_CODE_AUTO when neither tells. */
cuplug_code_kind cuplug__code_sniff(const char *name, const void *data, size_t size);
/* "cu", "ptx", "ltoir", "cubin", "fatbin", "object", "archive" */
const char *cuplug__code_kind_name(cuplug_code_kind kind);

#endif
