/* fake_helper.c - a stand-in for cuplug-helper that misbehaves on purpose
 * (test_safety.c), as $FAKE_HELPER says: "crash" dies of SIGSEGV on its
 * first job, "hang" never answers, "garble" answers nonsense, "exit"
 * leaves as it starts.  It speaks just enough of wire.h to get a job.
 * "shared-crash", "shared-hang" and "shared-garble" attach to the memory
 * the host shares (channel.h) too, and misbehave the same way on a job
 * that comes there ("shared-garble" answers there) or on the socket. */
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "plugin/helper/channel.h"
#include "plugin/helper/wire.h"

static int read_all(void *p, size_t n) {
  while (n) {
    ssize_t k = recv(3, p, n, 0);
    if (k <= 0) return 0;
    p = (char *)p + k;
    n -= (size_t)k;
  }
  return 1;
}

static const char nonsense[32] = "this is not a result at all....";

static void misbehave(const char *mode) {
  if (!strcmp(mode, "crash")) { /* as libNVVM dies: no sanitizer's handler in the way */
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
  }
  if (!strcmp(mode, "hang"))
    for (;;) pause();
}

int main(void) {
  const char *mode = getenv("FAKE_HELPER");
  if (!mode || !strcmp(mode, "exit")) return 3;
  /* "shared-": attached, and looking at the shared memory between looks at
   * the socket */
  cuplug__channel chan = {0};
  if (!strncmp(mode, "shared-", 7)) {
    if (!cuplug__channel_attach(&chan, CUPLUG__CHANNEL_FD)) return 4;
    mode += 7;
  }
  for (;;) {
    if (chan.base) {
      char c;
      while (cuplug__channel_count(&chan, CUPLUG__CHANNEL_JOB) == 0 &&
             recv(3, &c, 1, MSG_PEEK | MSG_DONTWAIT) < 0)
        sched_yield();
      if (cuplug__channel_count(&chan, CUPLUG__CHANNEL_JOB)) {
        misbehave(mode);
        bool wake;
        cuplug__channel_post(&chan, CUPLUG__CHANNEL_RESULT, nonsense, sizeof nonsense, &wake);
        if (wake) { /* the host said it sleeps: a wake-up note (wire.h) */
          unsigned char note[CUPLUG__WIRE_HEADER] = {0};
          uint32_t magic = CUPLUG__WIRE_MAGIC, type = CUPLUG__WIRE_WAKE;
          memcpy(note, &magic, 4);
          memcpy(note + 4, &type, 4);
          send(3, note, sizeof note, MSG_NOSIGNAL);
        }
        char c; /* one answer is enough: then wait for the host to go */
        while (recv(3, &c, 1, 0) > 0) {
        }
        return 0;
      }
    }
    unsigned char header[16];
    if (!read_all(header, sizeof header)) return 0;
    uint32_t type;
    uint64_t size;
    memcpy(&type, header + 4, 4);
    memcpy(&size, header + 8, 8);
    char *payload = malloc(size + 1);
    if (!payload || !read_all(payload, size)) return 0;
    free(payload);
    if (type != 1) continue; /* a wake-up */
    misbehave(mode);
    send(3, nonsense, sizeof nonsense, MSG_NOSIGNAL);
  }
}
