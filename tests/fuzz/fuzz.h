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

#endif
