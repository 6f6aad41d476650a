/* handoff.c - the switches of the host-helper handoff. */
#include "plugin/helper/handoff.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* A number from the environment, at most `max`; `fallback` when unset or
 * not a number. */
static uint64_t env_number(const char *name, uint64_t fallback, uint64_t max) {
  const char *s = getenv(name);
  if (!s || *s < '0' || *s > '9') return fallback; /* strtoull would take " 7", "-7" */
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end || errno) return fallback;
  return v > max ? max : v;
}

static uint64_t env_us(const char *name, uint64_t fallback) {
  return env_number(name, fallback, CUPLUG__HANDOFF_MAX_SPIN_US);
}

/* A 0 or a 1 from the environment; `fallback` when unset or neither. */
static bool env_bool(const char *name, bool fallback) {
  const char *s = getenv(name);
  return s && (s[0] == '0' || s[0] == '1') && !s[1] ? s[0] == '1' : fallback;
}

void cuplug__handoff_from_env(cuplug__handoff *o) {
  o->pin = env_bool("CUPLUG_HELPER_PIN", CUPLUG__HANDOFF_PIN);
  o->shared = env_bool("CUPLUG_HELPER_SHARED", CUPLUG__HANDOFF_SHARED);
  /* a pinned helper works on the host's CPU: the host sleeps there, so a
   * pin asked for leaves the host no spin by default, and a spin asked for
   * leaves the helper unpinned */
  o->host_spin_ns =
      env_us("CUPLUG_HOST_SPIN_US", o->pin ? 0 : CUPLUG__HANDOFF_HOST_SPIN_US) * 1000u;
  o->helper_spin_ns = env_us("CUPLUG_HELPER_SPIN_US", CUPLUG__HANDOFF_HELPER_SPIN_US) * 1000u;
  if (o->host_spin_ns) o->pin = false;
  o->heap_bytes = env_number("CUPLUG_HELPER_HEAP_MB", CUPLUG__HANDOFF_HEAP_MB,
                             CUPLUG__HANDOFF_MAX_HEAP_MB) << 20;
}

void cuplug__keep_heap(uint64_t bytes) {
#ifdef __GLIBC__
  if (!bytes) return;
  /* Blocks up to 32 MiB (glibc's most) come from the heap rather than
   * from a mapping of their own, made and unmapped each call; the heap
   * is trimmed only above `bytes` free at its top, and grows by 1 MiB
   * more than it must, so that a job's growth takes few system calls. */
  int mmap_most = 32 << 20;
  mallopt(M_MMAP_THRESHOLD, bytes < (uint64_t)mmap_most ? (int)bytes : mmap_most);
  mallopt(M_TRIM_THRESHOLD, bytes > INT_MAX ? INT_MAX : (int)bytes);
  mallopt(M_TOP_PAD, 1 << 20);
#else
  (void)bytes;
#endif
}

void cuplug__cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}
