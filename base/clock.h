/* clock.h - CLOCK_MONOTONIC in nanoseconds: the clock every process of the
 * machine shares, so that the stamps a helper process takes and those of
 * its host compare. */
#ifndef CUPLUG__BASE_CLOCK_H
#define CUPLUG__BASE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t cuplug__now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

#endif
