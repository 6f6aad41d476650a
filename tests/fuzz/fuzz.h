/* fuzz.h - what the libFuzzer harnesses share.
 *
 * One harness per entry point a host can feed (SQLite's and LLVM's
 * practice): each takes the fuzzer's bytes as that input, and must return
 * an error or a result, never crash, hang or leak. */
#ifndef CUPLUG_FUZZ_H
#define CUPLUG_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The bytes as a NUL-terminated string (free it). */
static inline char *fuzz_string(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) abort();
  memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

/* Takes the first byte as a choice among n, leaving the rest. */
static inline unsigned fuzz_choose(const uint8_t **data, size_t *size, unsigned n) {
  if (!*size) return 0;
  unsigned c = **data % n;
  ++*data;
  --*size;
  return c;
}

/* The name of the first "define ... @name(" of IR text (in a static
 * buffer), or "f": the entry the compile harnesses ask for. */
static inline const char *fuzz_first_definition(const char *text) {
  static char name[256];
  const char *d = strstr(text, "define ");
  const char *at = d ? strchr(d, '@') : NULL;
  if (!at) return "f";
  at++;
  size_t n = *at == '"' ? strcspn(at + 1, "\"") : strcspn(at, "( \n");
  if (*at == '"') at++;
  if (!n || n >= sizeof name) return "f";
  memcpy(name, at, n);
  name[n] = '\0';
  return name;
}

#endif
