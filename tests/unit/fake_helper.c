/* fake_helper.c - a stand-in for cuplug-helper that misbehaves on purpose
 * (test_safety.c), as $FAKE_HELPER says: "crash" dies of SIGSEGV on its
 * first job, "hang" never answers, "garble" answers nonsense, "exit"
 * leaves as it starts.  It speaks just enough of wire.h to get a job. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int read_all(void *p, size_t n) {
  while (n) {
    ssize_t k = recv(3, p, n, 0);
    if (k <= 0) return 0;
    p = (char *)p + k;
    n -= (size_t)k;
  }
  return 1;
}

int main(void) {
  const char *mode = getenv("FAKE_HELPER");
  if (!mode || !strcmp(mode, "exit")) return 3;
  for (;;) {
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
    if (!strcmp(mode, "crash")) { /* as libNVVM dies: no sanitizer's handler in the way */
      signal(SIGSEGV, SIG_DFL);
      raise(SIGSEGV);
    }
    if (!strcmp(mode, "hang"))
      for (;;) pause();
    static const char nonsense[32] = "this is not a result at all....";
    send(3, nonsense, sizeof nonsense, MSG_NOSIGNAL);
  }
}
