/* handoff.c - the switches of the host-helper handoff. */
#include "plugin/helper/handoff.h"

#include <errno.h>
#include <stdlib.h>

/* A number of microseconds from the environment, at most
 * CUPLUG__HANDOFF_MAX_SPIN_US; `fallback` when unset or not a number. */
static uint64_t env_us(const char *name, uint64_t fallback) {
  const char *s = getenv(name);
  if (!s || *s < '0' || *s > '9') return fallback; /* strtoull would take " 7", "-7" */
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end || errno) return fallback;
  return v > CUPLUG__HANDOFF_MAX_SPIN_US ? CUPLUG__HANDOFF_MAX_SPIN_US : v;
}

void cuplug__handoff_from_env(cuplug__handoff *o) {
  const char *pin = getenv("CUPLUG_HELPER_PIN");
  o->pin = pin && (pin[0] == '0' || pin[0] == '1') && !pin[1] ? pin[0] == '1'
                                                               : CUPLUG__HANDOFF_PIN;
  /* a pinned helper works on the host's CPU: the host sleeps there, so a
   * pin asked for leaves the host no spin by default, and a spin asked for
   * leaves the helper unpinned */
  o->host_spin_ns =
      env_us("CUPLUG_HOST_SPIN_US", o->pin ? 0 : CUPLUG__HANDOFF_HOST_SPIN_US) * 1000u;
  o->helper_spin_ns = env_us("CUPLUG_HELPER_SPIN_US", CUPLUG__HANDOFF_HELPER_SPIN_US) * 1000u;
  if (o->host_spin_ns) o->pin = false;
}

void cuplug__cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}
