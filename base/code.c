/* code.c - code to link: reading it and telling its kind. */
#include "base/code.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"

static const struct {
  const char *suffix;
  cuplug_code_kind kind;
} suffixes[] = {
    {".cu", CUPLUG_CODE_CU},         {".cuh", CUPLUG_CODE_CU},
    {".ptx", CUPLUG_CODE_PTX},       {".ltoir", CUPLUG_CODE_LTOIR},
    {".cubin", CUPLUG_CODE_CUBIN},   {".fatbin", CUPLUG_CODE_FATBIN},
    {".o", CUPLUG_CODE_OBJECT},      {".a", CUPLUG_CODE_ARCHIVE},
};

const char *cuplug__code_kind_name(cuplug_code_kind kind) {
  switch (kind) {
    case CUPLUG_CODE_CU: return "cu";
    case CUPLUG_CODE_PTX: return "ptx";
    case CUPLUG_CODE_LTOIR: return "ltoir";
    case CUPLUG_CODE_CUBIN: return "cubin";
    case CUPLUG_CODE_FATBIN: return "fatbin";
    case CUPLUG_CODE_OBJECT: return "object";
    case CUPLUG_CODE_ARCHIVE: return "archive";
    default: return "unknown";
  }
}

static bool starts(const unsigned char *d, size_t n, const char *magic, size_t m) {
  return n >= m && memcmp(d, magic, m) == 0;
}

/* Text that holds `word` in its first few kilobytes. */
static bool mentions(const char *d, size_t n, const char *word) {
  size_t limit = n < 8192 ? n : 8192;
  return memmem(d, limit, word, strlen(word)) != NULL;
}

cuplug_code_kind cuplug__code_sniff(const char *name, const void *data, size_t size) {
  if (name) {
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
      size_t k = strlen(suffixes[i].suffix);
      if (n > k && strcmp(name + n - k, suffixes[i].suffix) == 0) return suffixes[i].kind;
    }
  }
  const unsigned char *d = data;
  if (!d) return CUPLUG_CODE_AUTO;
  if (starts(d, size, "\xed\x43\x4e\x7f", 4)) return CUPLUG_CODE_LTOIR;
  if (starts(d, size, "\x50\xed\x55\xba", 4)) return CUPLUG_CODE_FATBIN;
  if (starts(d, size, "!<arch>\n", 8)) return CUPLUG_CODE_ARCHIVE;
  if (starts(d, size, "\x7f" "ELF", 4)) {
    /* e_machine 190 is EM_CUDA: a cubin; any other machine, a host object */
    if (size >= 20 && (d[18] | d[19] << 8) == 190) return CUPLUG_CODE_CUBIN;
    return CUPLUG_CODE_OBJECT;
  }
  const char *t = data;
  if (mentions(t, size, ".version") && mentions(t, size, ".target")) return CUPLUG_CODE_PTX;
  if (mentions(t, size, "__device__") || mentions(t, size, "__global__") ||
      mentions(t, size, "#include"))
    return CUPLUG_CODE_CU;
  return CUPLUG_CODE_AUTO;
}

cuplug_error *cuplug__code_make(cuplug_code_kind kind, const char *name, const void *data,
                                size_t size, cuplug__code *out) {
  memset(out, 0, sizeof *out);
  out->kind = kind;
  out->name = cuplug__strdup(name);
  out->data = malloc(size + 1);
  if (!out->name || !out->data) {
    cuplug__code_free(out);
    return cuplug__error_oom();
  }
  if (size) memcpy(out->data, data, size);
  out->data[size] = '\0';
  out->size = size;
  return NULL;
}

cuplug_error *cuplug__code_import(const cuplug_code *in, size_t index, cuplug__code *out) {
  memset(out, 0, sizeof *out);
  if (!in)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "code %zu is NULL", index);
  if (in->struct_size < offsetof(cuplug_code, size) + sizeof in->size)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "code %zu has struct_size %zu; set it to sizeof(cuplug_code)", index,
                         in->struct_size);
  const char *label = in->name ? in->name : in->path;
  char fallback[32];
  if (!label) {
    snprintf(fallback, sizeof fallback, "code%zu", index);
    label = fallback;
  }
  if ((unsigned)in->kind > CUPLUG_CODE_ARCHIVE)
    return cuplug__error(CUPLUG_ERR_CODE_KIND, "%s: code kind %d is not one", label,
                         (int)in->kind);
  char *bytes;
  size_t size;
  if (in->data) {
    bytes = malloc(in->size + 1);
    if (!bytes) return cuplug__error_oom();
    memcpy(bytes, in->data, in->size);
    bytes[in->size] = '\0';
    size = in->size;
  } else if (in->path) {
    bytes = cuplug__read_file(in->path, &size);
    if (!bytes)
      return cuplug__error(CUPLUG_ERR_IO, "cannot read %s: %s", in->path, strerror(errno));
  } else {
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "%s has neither a path nor data", label);
  }
  if (size == 0) {
    free(bytes);
    return cuplug__error(CUPLUG_ERR_IO, "%s is empty", label);
  }
  cuplug_code_kind kind = in->kind;
  if (kind == CUPLUG_CODE_AUTO)
    kind = cuplug__code_sniff(in->path ? in->path : in->name, bytes, size);
  if (kind == CUPLUG_CODE_AUTO) {
    free(bytes);
    return cuplug__error(CUPLUG_ERR_CODE_KIND,
                         "cannot tell what kind of code %s is: give its kind, or a name "
                         "ending in .cu, .ptx, .ltoir, .cubin, .fatbin, .o or .a",
                         label);
  }
  out->kind = kind;
  out->data = bytes;
  out->size = size;
  out->name = cuplug__strdup(label);
  if (!out->name) {
    cuplug__code_free(out);
    return cuplug__error_oom();
  }
  return NULL;
}

void cuplug__code_free(cuplug__code *c) {
  if (!c) return;
  free(c->name);
  free(c->data);
  memset(c, 0, sizeof *c);
}
