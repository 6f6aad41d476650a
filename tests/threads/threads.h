/* threads.h - what the ThreadSanitizer programs share: plain C, no Check
 * (its asserts are not for threads); a failure is counted and printed. */
#ifndef CUPLUG_TEST_THREADS_H
#define CUPLUG_TEST_THREADS_H

#include <stdatomic.h>
#include <stdio.h>

extern atomic_int failures;

#define FAIL(...)                          \
  do {                                     \
    fprintf(stderr, "FAIL: " __VA_ARGS__); \
    fputc('\n', stderr);                   \
    atomic_fetch_add(&failures, 1);        \
  } while (0)

#endif
