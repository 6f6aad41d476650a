/* helpers.c - the helper processes that run toolkit jobs for a session. */
#include "plugin/helper/helpers.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "plugin/helper/channel.h"
#include "plugin/helper/wire.h"

extern char **environ;

struct cuplug__helper {
  pid_t pid;
  int fd; /* our end of the socket */
  cuplug__channel chan; /* the memory it shares with us (channel.h) */
  uint32_t shared_results; /* the results it answered there, as we counted them */
  unsigned long jobs; /* answered so far */
  uint64_t answered_ns; /* when the last answer came (base/clock.h) */
  cuplug__helper *next;
};

/* ---- how many host threads work at once ---- */

/* Host threads of this process between taking a helper for a compile and
 * giving it back, in every session: a compile keeps a host thread and a
 * helper at work, so the hosts poll for results only while each of them
 * and its helper can have a CPU (CUPLUG_HOST_SPIN_US).  Counted from the
 * reservation, which comes as a compile begins, so that hosts still
 * preparing their IR count too. */
static int hosts_at_work;
/* A forked child starts with none at work (its parent's threads did not
 * come along): each fork begins a generation, and a count made in an
 * earlier one is not taken back. */
static unsigned generation;
static pthread_once_t at_fork = PTHREAD_ONCE_INIT;

static void forked_child(void) {
  __atomic_store_n(&hosts_at_work, 0, __ATOMIC_RELAXED);
  __atomic_add_fetch(&generation, 1, __ATOMIC_RELAXED);
}

static void watch_forks(void) { pthread_atfork(NULL, NULL, forked_child); }

static void count_host(cuplug__pending *p, bool in) {
  if (p->counted == in) return;
  p->counted = in;
  unsigned now = __atomic_load_n(&generation, __ATOMIC_RELAXED);
  if (in) p->generation = now;
  else if (p->generation != now) return;
  __atomic_add_fetch(&hosts_at_work, in ? 1 : -1, __ATOMIC_RELAXED);
}

int cuplug__helpers_hosts_at_work(void) { return __atomic_load_n(&hosts_at_work, __ATOMIC_RELAXED); }

/* ---- a session's helpers ---- */

void cuplug__helpers_init(cuplug__helpers *h) {
  memset(h, 0, sizeof *h);
  pthread_mutex_init(&h->lock, NULL);
  h->owner = getpid();
  cuplug__handoff_from_env(&h->handoff);
  cpu_set_t cpus;
  h->cpus = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
  pthread_once(&at_fork, watch_forks);
}

/* Lets go of a helper's socket and memory, not of the process. */
static void forget(cuplug__helper *w) {
  close(w->fd);
  cuplug__channel_release(&w->chan);
  free(w);
}

/* Stops a helper of ours: it is killed (it may be stuck in a library) and
 * reaped.  A host that ignores SIGCHLD has it reaped for it. */
static void stop(cuplug__helper *w) {
  if (!w) return;
  kill(w->pid, SIGKILL);
  while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR) {
  }
  forget(w);
}

/* Helpers a forked child inherited are its parent's: it lets go of the
 * sockets and leaves the processes alone.  The caller holds the lock. */
static void drop_inherited(cuplug__helpers *h) {
  if (h->owner == getpid()) return;
  while (h->idle) {
    cuplug__helper *w = h->idle;
    h->idle = w->next;
    forget(w);
  }
  h->owner = getpid();
}

void cuplug__helpers_release(cuplug__helpers *h) {
  pthread_mutex_lock(&h->lock);
  drop_inherited(h);
  while (h->idle) {
    cuplug__helper *w = h->idle;
    h->idle = w->next;
    stop(w);
  }
  pthread_mutex_unlock(&h->lock);
  free(h->program);
  pthread_mutex_destroy(&h->lock);
}

bool cuplug__helpers_attached(const cuplug__pending *p) {
  return p->helper && cuplug__channel_attached(&p->helper->chan);
}

pid_t cuplug__helpers_pid(const cuplug__pending *p) { return p->helper ? p->helper->pid : 0; }

size_t cuplug__helpers_idle(cuplug__helpers *h) {
  pthread_mutex_lock(&h->lock);
  size_t n = 0;
  for (cuplug__helper *w = h->idle; w; w = w->next) n++;
  pthread_mutex_unlock(&h->lock);
  return n;
}

/* ---- finding and starting a helper ---- */

/* $CUPLUG_HELPER, else cuplug-helper beside the plugin (the build's lib/,
 * a Python package), else in cuplug/ beside it (an installed lib/). */
static cuplug_error *find_program(cuplug__helpers *h, const char **out) {
  if (h->program) {
    *out = h->program;
    return NULL;
  }
  const char *env = getenv("CUPLUG_HELPER");
  cuplug__buf tried;
  cuplug__buf_init(&tried);
  char path[PATH_MAX + 64];
  Dl_info info;
  if (env && *env) {
    snprintf(path, sizeof path, "%s", env);
    if (access(path, X_OK) == 0) h->program = cuplug__strdup(path);
    cuplug__buf_printf(&tried, "%s ($CUPLUG_HELPER)", path);
  } else if (dladdr((void *)cuplug__helpers_init, &info) && info.dli_fname) {
    const char *slash = strrchr(info.dli_fname, '/');
    int dir = slash ? (int)(slash - info.dli_fname) : 1;
    const char *base = slash ? info.dli_fname : ".";
    const char *const rel[] = {"cuplug-helper", "cuplug/cuplug-helper", NULL};
    for (int i = 0; rel[i] && !h->program; i++) {
      snprintf(path, sizeof path, "%.*s/%s", dir, base, rel[i]);
      if (access(path, X_OK) == 0) h->program = cuplug__strdup(path);
      cuplug__buf_printf(&tried, "%s%s", tried.len ? ", " : "", path);
    }
  }
  cuplug_error *e = NULL;
  if (!h->program)
    e = cuplug__error(CUPLUG_ERR_HELPER,
                      "the helper program cuplug-helper, which runs libNVVM, NVRTC and "
                      "nvJitLink apart from this process, is not there (tried %s): install "
                      "it beside libcuplug.so, set CUPLUG_HELPER, or trust the inputs "
                      "(CUPLUG_SESSION_TRUSTED)",
                      tried.data ? tried.data : "nothing");
  cuplug__buf_free(&tried);
  *out = h->program;
  return e;
}

/* Starts a helper on a socket pair: its end is its fd 3, the channel's
 * memory its fd 4 (when the system gave one); stdin and stdout are
 * /dev/null.  It runs in a process group of its own, so that a Ctrl-C
 * meant for the host (which may catch it and go on) leaves it be. */
static cuplug_error *spawn(const char *program, bool shared, cuplug__helper **out) {
  cuplug__helper *w = calloc(1, sizeof *w);
  if (!w) return cuplug__error_oom();
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
    free(w);
    return cuplug__error(CUPLUG_ERR_HELPER, "cannot make a socket for the helper: %s",
                         strerror(errno));
  }
  int memory = shared ? cuplug__channel_create(&w->chan) : -1;
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, sv[1], 3);
  /* without a channel, fd 4 is /dev/null, not whatever this process has
   * there: the helper maps only a channel */
  if (memory >= 0)
    posix_spawn_file_actions_adddup2(&fa, memory, CUPLUG__CHANNEL_FD);
  else
    posix_spawn_file_actions_addopen(&fa, CUPLUG__CHANNEL_FD, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                      POSIX_SPAWN_SETPGROUP);
  char *const argv[] = {(char *)program, NULL};
  int rc = posix_spawn(&w->pid, program, &fa, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(sv[1]);
  if (memory >= 0) close(memory);
  if (rc) {
    close(sv[0]);
    cuplug__channel_release(&w->chan);
    free(w);
    return cuplug__error(CUPLUG_ERR_HELPER, "cannot start the helper %s: %s", program,
                         strerror(rc));
  }
  w->fd = sv[0];
  *out = w;
  return NULL;
}

/* An idle helper, or a new one; *fresh says which. */
static cuplug_error *take(cuplug__helpers *h, cuplug__helper **out, bool *fresh) {
  pthread_mutex_lock(&h->lock);
  drop_inherited(h);
  cuplug__helper *w = h->idle;
  if (w) h->idle = w->next;
  const char *program = NULL;
  cuplug_error *e = w ? NULL : find_program(h, &program);
  pthread_mutex_unlock(&h->lock);
  *fresh = !w;
  if (!w && !e) e = spawn(program, h->handoff.shared, &w);
  *out = w;
  return e;
}

static void give_back(cuplug__helpers *h, cuplug__helper *w) {
  w->jobs++;
  pthread_mutex_lock(&h->lock);
  if (h->owner == getpid()) {
    w->next = h->idle;
    h->idle = w;
    w = NULL;
  }
  pthread_mutex_unlock(&h->lock);
  if (w) forget(w); /* forked meanwhile: the helper went with the parent */
}

/* ---- talking to a helper ---- */

typedef enum { READ_OK, READ_CLOSED, READ_TIMEOUT, READ_GARBLED, READ_NO_MEMORY } read_status;

/* How many pauses a spinning host makes between two looks at the socket:
 * about a microsecond, so that it makes few system calls and leaves most
 * of the core to a hyperthread sibling (which may be its helper's).  With
 * a channel, it looks at the shared counter after each pause, and at the
 * socket (which then carries only a farewell, a message too big for the
 * channel, or the helper's end) after SHARED_LOOKS of them. */
#define SPIN_PAUSES 16
#define SHARED_LOOKS 256

/* Whether a host may poll now: while the hosts at work (itself among
 * them) and their helpers fill at most half the CPUs.  A compile keeps
 * more at work than those two (a helper polls for its next job too, while
 * its host takes the result in and starts the next compile), and a
 * polling host takes a CPU that one of them needs: on the H200, 8
 * compiling threads that polled on 16 CPUs kept all 16 busy and made 0.7
 * times the compiles of sleeping ones, 16 threads 0.55 times. */
static bool may_spin(const cuplug__helpers *h) {
  return cuplug__helpers_hosts_at_work() * 4 <= h->cpus;
}

/* Reads n bytes of a message that has begun, by the deadline. */
static read_status recv_all(int fd, char *p, size_t n, uint64_t deadline) {
  while (n) {
    ssize_t k = recv(fd, p, n, MSG_DONTWAIT);
    if (k > 0) {
      p += k;
      n -= (size_t)k;
      continue;
    }
    if (k == 0 || (errno != EAGAIN && errno != EINTR)) return READ_CLOSED;
    uint64_t now = cuplug__now_ns();
    if (now >= deadline) return READ_TIMEOUT;
    uint64_t wait_ms = (deadline - now + 999999) / 1000000;
    struct pollfd pfd = {fd, POLLIN, 0};
    int r = poll(&pfd, 1, wait_ms > INT_MAX ? INT_MAX : (int)wait_ms);
    if (r < 0 && errno != EINTR) return READ_CLOSED;
  }
  return READ_OK;
}

/* Whether the helper's end of the socket is still open (a helper the
 * system killed while idle closed it).  Asked of the socket's state, not
 * of what it holds: a stale wake-up note may still lie there. */
static bool alive(const cuplug__helper *w) {
  struct pollfd pfd = {w->fd, POLLRDHUP, 0};
  int r;
  while ((r = poll(&pfd, 1, 0)) < 0 && errno == EINTR) {
  }
  return r == 0 || (r > 0 && !(pfd.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)));
}

/* Hands the job over: in the shared memory where the helper has attached
 * it and the job fits, else on the socket.  *delivered false: the helper
 * is gone. */
static cuplug_error *send_job(cuplug__helpers *h, cuplug__helper *w, const char *library,
                              const cuplug__tool_job *job, bool *delivered) {
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__buf_append(&b, "0123456789abcdef", CUPLUG__WIRE_HEADER); /* room for the header */
  cuplug__wire_put_job(&b, library, h->handoff.pin ? sched_getcpu() : -1, job);
  if (b.oom) {
    cuplug__buf_free(&b);
    return cuplug__error_oom();
  }
  cuplug__wire_header((unsigned char *)b.data, CUPLUG__WIRE_JOB, b.len - CUPLUG__WIRE_HEADER);
  bool note = false;
  if (cuplug__channel_attached(&w->chan) && alive(w) &&
      cuplug__channel_post(&w->chan, CUPLUG__CHANNEL_JOB, b.data, b.len, &note))
    *delivered = !note || cuplug__wire_send_wake(w->fd);
  else
    *delivered = cuplug__wire_send(w->fd, b.data, b.len);
  cuplug__buf_free(&b);
  return NULL;
}

/* Why the helper went away: a signal (a crash) or an exit; one that exits
 * before its first job could not start (a missing library, say). */
static cuplug_error *crashed(cuplug__helpers *h, cuplug__helper *w, cuplug__tool tool) {
  /* It closed its end because it is going: a signal on top of a crash
   * leaves the crash's status; one that lingers is stopped. */
  kill(w->pid, SIGKILL);
  int status = 0;
  pid_t r;
  while ((r = waitpid(w->pid, &status, 0)) < 0 && errno == EINTR) {
  }
  char why[128];
  if (r == w->pid && WIFSIGNALED(status))
    snprintf(why, sizeof why, "was killed by signal %d (%s)", WTERMSIG(status),
             strsignal(WTERMSIG(status)));
  else if (r == w->pid && WIFEXITED(status))
    snprintf(why, sizeof why, "exited with status %d", WEXITSTATUS(status));
  else
    snprintf(why, sizeof why, "went away");
  bool never_started = r == w->pid && WIFEXITED(status) && !w->jobs;
  forget(w);
  if (never_started)
    return cuplug__error(CUPLUG_ERR_HELPER,
                         "the helper process exited as it started (status %d): run %s by hand "
                         "to see why",
                         WEXITSTATUS(status), h->program ? h->program : "cuplug-helper");
  return cuplug__error(CUPLUG_ERR_TOOLKIT_CRASH,
                       "%s crashed: the helper process that ran it %s; this process goes on, "
                       "and the next call starts a fresh helper",
                       cuplug__tool_name(tool), why);
}

void cuplug__helpers_reserve(cuplug__helpers *h, cuplug__pending *p) {
  memset(p, 0, sizeof *p);
  cuplug__helper *w;
  bool fresh;
  cuplug_error *e = take(h, &w, &fresh);
  if (e) { /* the job will say why, when it comes */
    cuplug__error_destroy(e);
    return;
  }
  /* A helper that answered lately still polls for its next job
   * (CUPLUG_HELPER_SPIN_US): it needs no wake-up, which costs a system
   * call.  Half its spin leaves the job time to come; one that said it
   * sleeps (channel.h) sleeps whatever the time. */
  uint64_t since = cuplug__now_ns() - w->answered_ns;
  bool polls = !fresh && w->answered_ns && since < h->handoff.helper_spin_ns / 2 &&
               !(w->chan.base && cuplug__channel_asleep(&w->chan, CUPLUG__CHANNEL_JOB));
  if (polls) {
    p->helper = w;
    count_host(p, true);
    return;
  }
  if (!cuplug__wire_send_wake(w->fd)) {
    stop(w); /* it died while idle: the job takes a fresh one */
    return;
  }
  p->helper = w;
  count_host(p, true);
}

void cuplug__helpers_unreserve(cuplug__helpers *h, cuplug__pending *p) {
  if (p->helper) give_back(h, p->helper);
  p->helper = NULL;
  count_host(p, false);
}

static cuplug_error *start(cuplug__helpers *h, const char *library, const cuplug__tool_job *job,
                           uint32_t time_limit_ms, cuplug__pending *p);

cuplug_error *cuplug__helpers_start(cuplug__helpers *h, const char *library,
                                    const cuplug__tool_job *job, uint32_t time_limit_ms,
                                    cuplug__pending *p) {
  bool counted = p->counted; /* when reserved */
  unsigned generation_counted = p->generation;
  cuplug_error *e = start(h, library, job, time_limit_ms, p);
  p->counted = counted;
  p->generation = generation_counted;
  count_host(p, !e); /* a job that was not reserved counts from now */
  return e;
}

/* Hands the job over (cuplug__helpers_start), p zeroed first. */
static cuplug_error *start(cuplug__helpers *h, const char *library, const cuplug__tool_job *job,
                           uint32_t time_limit_ms, cuplug__pending *p) {
  cuplug__helper *reserved = p->helper;
  memset(p, 0, sizeof *p);
  /* An idle helper may have died meanwhile (the system killed it): the
   * job then goes to a fresh one, which must take it. */
  for (int attempt = 0; attempt < 2; attempt++) {
    cuplug__helper *w = reserved;
    bool fresh = false, delivered = false;
    reserved = NULL;
    if (!w) CUPLUG__TRY(take(h, &w, &fresh));
    p->sent_ns = cuplug__now_ns();
    cuplug_error *e = send_job(h, w, library, job, &delivered);
    if (!e && !delivered && (fresh || w->jobs == 0)) return crashed(h, w, job->tool);
    if (e || !delivered) {
      stop(w);
      if (e) return e;
      continue;
    }
    p->helper = w;
    p->tool = job->tool;
    p->time_limit_ms = time_limit_ms;
    p->deadline_ns = cuplug__now_ns() + (uint64_t)time_limit_ms * 1000000u;
    return NULL;
  }
  return cuplug__error(CUPLUG_ERR_HELPER, "no helper process would take the job");
}

/* An answer: its type, and its payload where it lies in the shared memory,
 * or as read from the socket (owned). */
typedef struct answer {
  uint32_t type;
  uint64_t size;
  const char *payload;
  char *owned;
} answer;

/* Reads a message that has begun on the socket: its header by the
 * deadline, its payload in time of its own (the host may have come to read
 * it late, after validating the IR). */
static read_status read_message(const cuplug__helper *w, const cuplug__pending *p, answer *a) {
  unsigned char header[CUPLUG__WIRE_HEADER];
  read_status st = recv_all(w->fd, (char *)header, sizeof header, p->deadline_ns);
  if (st != READ_OK) return st;
  if (!cuplug__wire_read_header(header, &a->type, &a->size)) return READ_GARBLED;
  if (!(a->owned = malloc(a->size + 1))) return READ_NO_MEMORY;
  a->payload = a->owned;
  return recv_all(w->fd, a->owned, a->size,
                  cuplug__now_ns() + (uint64_t)p->time_limit_ms * 1000000u);
}

/* The answer the helper posted in the shared memory, copied out before it
 * is read: a helper gone wrong could still write there, and the decoder
 * checks a string's end where it then reads it. */
static read_status take_shared(const cuplug__helper *w, answer *a) {
  size_t n;
  const unsigned char *m = cuplug__channel_message(&w->chan, CUPLUG__CHANNEL_RESULT, &n);
  unsigned char header[CUPLUG__WIRE_HEADER];
  if (n < CUPLUG__WIRE_HEADER) return READ_GARBLED;
  memcpy(header, m, sizeof header);
  if (!cuplug__wire_read_header(header, &a->type, &a->size) ||
      a->size != n - CUPLUG__WIRE_HEADER)
    return READ_GARBLED;
  if (!(a->owned = malloc(a->size + 1))) return READ_NO_MEMORY;
  memcpy(a->owned, m + CUPLUG__WIRE_HEADER, a->size);
  a->payload = a->owned;
  return READ_OK;
}

/* Waits for the helper's answer by the deadline: in the shared memory, or
 * on the socket (a wake-up note there only says to look at the memory).
 * While nothing has come, the host looks for CUPLUG_HOST_SPIN_US while it
 * may (may_spin, asked again as it polls: another compile may begin
 * meanwhile), then says that it sleeps and sleeps on the socket: waking
 * costs tens of microseconds, spinning a core. */
static read_status await_answer(const cuplug__helpers *h, cuplug__helper *w,
                                const cuplug__pending *p, answer *a) {
  memset(a, 0, sizeof *a);
  uint64_t spin_ns = h->handoff.host_spin_ns;
  uint64_t spin_until = spin_ns && may_spin(h) ? cuplug__now_ns() + spin_ns : 0;
  bool shared = w->chan.base != NULL;
  for (unsigned look = 0;; look++) {
    if (shared) {
      uint32_t n = cuplug__channel_count(&w->chan, CUPLUG__CHANNEL_RESULT);
      if (n != w->shared_results) {
        w->shared_results = n;
        return take_shared(w, a);
      }
    }
    if (!shared || look % SHARED_LOOKS == 0) {
      char c;
      ssize_t k = recv(w->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
      if (k > 0) {
        read_status st = read_message(w, p, a);
        if (st != READ_OK || a->type != CUPLUG__WIRE_WAKE || a->size) return st;
        free(a->owned);
        memset(a, 0, sizeof *a);
        continue;
      }
      if (k == 0 || (errno != EAGAIN && errno != EINTR)) {
        /* a helper that answered (a farewell, say) and then went */
        if (shared && cuplug__channel_count(&w->chan, CUPLUG__CHANNEL_RESULT) != w->shared_results)
          continue;
        return READ_CLOSED;
      }
    }
    uint64_t now = cuplug__now_ns();
    if (now >= p->deadline_ns) return READ_TIMEOUT;
    if (now < spin_until && may_spin(h)) {
      for (int i = 0; i < (shared ? 1 : SPIN_PAUSES); i++) cuplug__cpu_relax();
      continue;
    }
    if (shared) {
      cuplug__channel_sleep(&w->chan, CUPLUG__CHANNEL_RESULT, true);
      if (cuplug__channel_count(&w->chan, CUPLUG__CHANNEL_RESULT) != w->shared_results) {
        cuplug__channel_sleep(&w->chan, CUPLUG__CHANNEL_RESULT, false);
        continue;
      }
    }
    uint64_t wait_ms = (p->deadline_ns - now + 999999) / 1000000;
    struct pollfd pfd = {w->fd, POLLIN, 0};
    int r = poll(&pfd, 1, wait_ms > INT_MAX ? INT_MAX : (int)wait_ms);
    if (shared) cuplug__channel_sleep(&w->chan, CUPLUG__CHANNEL_RESULT, false);
    if (r < 0 && errno != EINTR) return READ_CLOSED;
    look = (unsigned)-1; /* the socket first, next time round */
  }
}

cuplug_error *cuplug__helpers_finish(cuplug__helpers *h, cuplug__pending *p,
                                     cuplug__tool_output *out) {
  memset(out, 0, sizeof *out);
  cuplug__helper *w = p->helper;
  p->helper = NULL;
  answer a;
  read_status st = await_answer(h, w, p, &a);
  count_host(p, false); /* the answer is here, or never comes */
  if (st == READ_OK && a.type != CUPLUG__WIRE_RESULT && a.type != CUPLUG__WIRE_FAREWELL)
    st = READ_GARBLED;
  if (st != READ_OK) free(a.owned);
  switch (st) {
    case READ_OK: break;
    case READ_NO_MEMORY: stop(w); return cuplug__error_oom();
    case READ_TIMEOUT:
      stop(w);
      return cuplug__error(CUPLUG_ERR_TIMEOUT,
                           "%s did not finish within the time limit of %u ms: its helper "
                           "process was stopped (raise time_limit_ms if the work is that large)",
                           cuplug__tool_name(p->tool), p->time_limit_ms);
    case READ_CLOSED: return crashed(h, w, p->tool);
    case READ_GARBLED:
      stop(w);
      return cuplug__error(CUPLUG_ERR_TOOLKIT_CRASH,
                           "the helper process that ran %s answered garbled bytes: it was "
                           "stopped (is $CUPLUG_HELPER the cuplug-helper of this build?)",
                           cuplug__tool_name(p->tool));
  }
  cuplug_error *e = cuplug__wire_get_result(a.payload, a.size, out);
  free(a.owned);
  /* a helper that said farewell is going: the next job takes another */
  w->answered_ns = cuplug__now_ns();
  if (a.type == CUPLUG__WIRE_FAREWELL)
    stop(w);
  else
    give_back(h, w);
  out->times.sent = p->sent_ns;
  out->times.seen = cuplug__now_ns();
  return e;
}

void cuplug__helpers_cancel(cuplug__helpers *h, cuplug__pending *p) {
  (void)h;
  count_host(p, false);
  stop(p->helper);
  p->helper = NULL;
}
