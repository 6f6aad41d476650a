/* main.c - cuplug-helper: runs toolkit jobs for a cuplug host.
 *
 * The host starts it with a socket as fd 3 and sends it jobs (wire.h), one
 * at a time; it answers each with the result.  It loads each library from
 * the file the host names in the job, so both run the same toolkit.  Should
 * libNVVM crash on a job, this process dies instead of the host; should it
 * never return, the host kills it; should LLVM's NVPTX backend meet a
 * fatal error, which ends the process, the host hears why first.  It
 * leaves when the host closes the socket, or goes: a watchdog thread sees
 * that even while a library call is stuck.  How it waits for jobs, and
 * where it runs them: handoff.h; the memory it shares with the host for
 * jobs and results: channel.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "plugin/helper/channel.h"
#include "plugin/helper/handoff.h"
#include "plugin/helper/helpers.h"
#include "plugin/toolkit/tool.h"
#include "plugin/helper/wire.h"

enum { HOST_FD = 3 };

static void *watchdog(void *arg) {
  (void)arg;
  for (;;) {
    struct pollfd pfd = {HOST_FD, POLLRDHUP, 0};
    if (poll(&pfd, 1, -1) < 0 && errno == EINTR) continue;
    if (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) _exit(0);
  }
  return NULL;
}

/* The memory shared with the host, when it handed one over (channel.h),
 * and how many jobs came through it. */
static cuplug__channel chan;
static uint32_t shared_jobs;

/* Whether a job waits in the shared memory. */
static bool shared_job(void) {
  return chan.base && cuplug__channel_count(&chan, CUPLUG__CHANNEL_JOB) != shared_jobs;
}

/* Whether the socket has something to read, or has closed. */
static bool socket_ready(void) {
  char c;
  return recv(HOST_FD, &c, 1, MSG_PEEK | MSG_DONTWAIT) != -1 || errno != EAGAIN;
}

/* Waits for the host's next message: for up to `ns` without sleeping,
 * yielding the core to any thread that wants it (after a wake-up,
 * CUPLUG__SPIN_NS; after a job, CUPLUG_HELPER_SPIN_US), then asleep on
 * the socket, having said so in the shared page.  Returns when a job waits
 * in the shared memory or the socket has something: a message, or its
 * end. */
static void wait_message(uint64_t ns) {
  uint64_t until = cuplug__now_ns() + ns;
  for (unsigned i = 0;; i++) {
    if (shared_job()) return;
    /* the socket carries only what the shared memory does not: a look
     * now and then will do */
    if ((!chan.base || i % 16 == 0) && socket_ready()) return;
    if (cuplug__now_ns() >= until) break;
    sched_yield();
  }
  if (!chan.base) return; /* the read that follows sleeps */
  cuplug__channel_sleep(&chan, CUPLUG__CHANNEL_JOB, true);
  if (!shared_job()) {
    struct pollfd pfd = {HOST_FD, POLLIN, 0};
    while (poll(&pfd, 1, -1) < 0 && errno == EINTR) {
    }
  }
  cuplug__channel_sleep(&chan, CUPLUG__CHANNEL_JOB, false);
}

/* The CPUs this process may run on, as it started. */
static cpu_set_t allowed;
static bool have_allowed;

/* Moves this thread onto the host's CPU for a job (CUPLUG_HELPER_PIN);
 * true when it did. */
static bool pin(int cpu) {
  if (cpu < 0 || !have_allowed || !CPU_ISSET(cpu, &allowed)) return false;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  return sched_setaffinity(0, sizeof one, &one) == 0;
}

static bool read_all(char *p, size_t n) {
  while (n) {
    ssize_t k = recv(HOST_FD, p, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= (size_t)k;
  }
  return true;
}

static cuplug__lib *library_of(cuplug__toolkit *tk, cuplug__tool tool) {
  switch (tool) {
    case CUPLUG__TOOL_NVVM: return &tk->nvvm_lib;
    case CUPLUG__TOOL_NVRTC: return &tk->nvrtc_lib;
    case CUPLUG__TOOL_NVJITLINK: return &tk->nvjitlink_lib;
    case CUPLUG__TOOL_NVPTX: return &tk->nvptx_lib;
  }
  return NULL;
}

/* Writes a job's result (the error e, or out), in the shared memory where
 * it fits; false when the host is gone. */
static bool answer(uint32_t type, const cuplug_error *e, const cuplug__tool_output *out) {
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__buf_append(&b, "0123456789abcdef", CUPLUG__WIRE_HEADER);
  cuplug__wire_put_result(&b, e, out);
  bool ok = !b.oom, wake = false;
  if (ok) {
    cuplug__wire_header((unsigned char *)b.data, type, b.len - CUPLUG__WIRE_HEADER);
    if (cuplug__channel_post(&chan, CUPLUG__CHANNEL_RESULT, b.data, b.len, &wake))
      ok = !wake || cuplug__wire_send_wake(HOST_FD); /* the host said it sleeps */
    else
      ok = cuplug__wire_send(HOST_FD, b.data, b.len);
  }
  cuplug__buf_free(&b);
  return ok;
}

/* LLVM's fatal errors end this process (after the handler, LLVM exits or
 * aborts), in the middle of a job: the job's answer is the error, as a
 * farewell, so that the host stops this helper rather than keep it. */
static void fatal(void *ctx, const char *reason) {
  (void)ctx;
  cuplug__tool_output none = {0};
  cuplug_error *e = cuplug__error(CUPLUG_ERR_NVPTX,
                                  "LLVM's NVPTX backend stopped on a fatal error: %s (its helper "
                                  "process went with it; the next call starts a fresh one)",
                                  reason);
  answer(CUPLUG__WIRE_FAREWELL, e, &none);
  _exit(0);
}

/* Gives LLVM's fatal errors to `fatal`, once the backend is loaded. */
static cuplug_error *watch_nvptx(cuplug__toolkit *tk) {
  static bool watching;
  const cuplug__nvptx_api *api;
  CUPLUG__TRY(cuplug__toolkit_nvptx(tk, &api));
  if (!watching) api->set_fatal_handler(fatal, NULL);
  watching = true;
  return NULL;
}

/* Runs one job and writes its result; false when the host is gone. */
static bool serve(cuplug__toolkit *tk, char *payload, uint64_t size) {
  cuplug__wire_job job;
  cuplug__tool_output out = {0};
  cuplug_error *e = NULL;
  if (!cuplug__wire_get_job(payload, size, &job)) {
    e = cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "the helper got a garbled job");
  } else {
    cuplug__lib *lib = library_of(tk, job.job.tool);
    e = lib ? cuplug__toolkit_use_file(tk, lib, job.library)
            : cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "no toolkit tool %d", (int)job.job.tool);
    if (!e && job.job.tool == CUPLUG__TOOL_NVPTX) e = watch_nvptx(tk);
    bool pinned = !e && pin(job.cpu);
    if (!e) e = cuplug__tool_run_here(tk, &job.job, &out);
    /* free again before the result wakes the host, which may come here */
    if (pinned) sched_setaffinity(0, sizeof allowed, &allowed);
    cuplug__wire_job_free(&job);
  }
  bool ok = answer(CUPLUG__WIRE_RESULT, e, &out);
  cuplug__error_destroy(e);
  cuplug__tool_output_free(&out);
  return ok;
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  if (fcntl(HOST_FD, F_GETFD) < 0) {
    fprintf(stderr, "cuplug-helper: cuplug starts this program itself (it talks on fd 3)\n");
    return 2;
  }
  /* first: until it is attached, the host's jobs take the socket */
  if (fcntl(CUPLUG__CHANNEL_FD, F_GETFD) >= 0) {
    cuplug__channel_attach(&chan, CUPLUG__CHANNEL_FD);
    close(CUPLUG__CHANNEL_FD);
  }
  pthread_t dog;
  pthread_create(&dog, NULL, watchdog, NULL);
  cuplug__toolkit tk;
  cuplug_error *e = cuplug__toolkit_init(&tk, NULL);
  if (e) return 1;
  cuplug__handoff handoff;
  cuplug__handoff_from_env(&handoff);
  cuplug__keep_heap(handoff.heap_bytes);
  have_allowed = sched_getaffinity(0, sizeof allowed, &allowed) == 0;
  uint64_t spin = 0;
  for (;;) {
    wait_message(spin);
    if (shared_job()) {
      shared_jobs = cuplug__channel_count(&chan, CUPLUG__CHANNEL_JOB);
      size_t n;
      const unsigned char *msg = cuplug__channel_message(&chan, CUPLUG__CHANNEL_JOB, &n);
      uint32_t type;
      uint64_t size;
      if (n < CUPLUG__WIRE_HEADER || !cuplug__wire_read_header(msg, &type, &size) ||
          type != CUPLUG__WIRE_JOB || size != n - CUPLUG__WIRE_HEADER)
        break;
      /* read where it lies: the host writes there again only after this
       * job's answer */
      if (!serve(&tk, (char *)msg + CUPLUG__WIRE_HEADER, size)) break;
      spin = handoff.helper_spin_ns;
      continue;
    }
    unsigned char header[CUPLUG__WIRE_HEADER];
    uint32_t type;
    uint64_t size;
    if (!read_all((char *)header, sizeof header)) break;
    if (!cuplug__wire_read_header(header, &type, &size)) break;
    if (type == CUPLUG__WIRE_WAKE && size == 0) {
      spin = CUPLUG__SPIN_NS;
      continue;
    }
    if (type != CUPLUG__WIRE_JOB) break;
    char *payload = malloc(size + 1);
    if (!payload || !read_all(payload, size)) break;
    bool ok = serve(&tk, payload, size);
    free(payload);
    if (!ok) break;
    spin = handoff.helper_spin_ns;
  }
  return 0;
}
