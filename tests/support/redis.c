/* redis.c - a test's own Redis server, and a small client to look into it. */
#include "redis.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *t_redis_server(void) {
  static char found[4096];
  const char *given = getenv("CUPLUG_TEST_REDIS");
  if (given && *given) return access(given, X_OK) == 0 ? given : NULL;
  const char *path = getenv("PATH");
  for (const char *p = path ? path : "/usr/bin"; *p;) {
    size_t n = strcspn(p, ":");
    snprintf(found, sizeof found, "%.*s/redis-server", (int)n, p);
    if (n && access(found, X_OK) == 0) return found;
    p += n + (p[n] == ':');
  }
  return NULL;
}

static int free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  int port = -1;
  if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
      getsockname(fd, (struct sockaddr *)&a, &len) == 0)
    port = ntohs(a.sin_port);
  if (fd >= 0) close(fd);
  return port;
}

static int dial(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  struct timeval tv = {.tv_sec = 5};
  if (fd < 0) return -1;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool t_redis_start(t_redis *r, const char *const *extra) {
  const char *server = t_redis_server();
  if (!server) {
    fprintf(stderr, "redis-server not found\n");
    return false;
  }
  if (!r->port) r->port = free_port();
  snprintf(r->url, sizeof r->url, "redis://127.0.0.1:%d", r->port);
  char port[16];
  snprintf(port, sizeof port, "%d", r->port);
  const char *argv[32] = {server, "--port", port, "--bind", "127.0.0.1", "--save", "",
                          "--appendonly", "no", "--logfile", "", "--loglevel", "warning"};
  int argc = 13;
  for (int i = 0; extra && extra[i] && argc < 31; i++) argv[argc++] = extra[i];
  argv[argc] = NULL;
  r->pid = fork();
  if (r->pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 1);
    execv(server, (char *const *)argv);
    _exit(127);
  }
  for (int i = 0; i < 500; i++) { /* up to 5 s */
    int status;
    if (waitpid(r->pid, &status, WNOHANG) == r->pid) break; /* the port was taken */
    /* a server answers, and it is ours (not another test's on the same port) */
    char *info = t_redis_do(r, "INFO", "server", NULL);
    const char *at = info ? strstr(info, "process_id:") : NULL;
    long pid = at ? strtol(at + strlen("process_id:"), NULL, 10) : 0;
    free(info);
    if (pid == r->pid) return true;
    if (pid) break;
    nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
  }
  fprintf(stderr, "redis-server did not answer on port %d\n", r->port);
  t_redis_stop(r);
  return false;
}

void t_redis_stop(t_redis *r) {
  if (r->pid <= 0) return;
  kill(r->pid, SIGKILL);
  waitpid(r->pid, NULL, 0);
  r->pid = 0;
}

/* ---- the client ---- */

typedef struct reader {
  int fd;
  char buf[65536];
  size_t at, len;
} reader;

static int next_byte(reader *rd) {
  if (rd->at == rd->len) {
    ssize_t n = read(rd->fd, rd->buf, sizeof rd->buf);
    if (n <= 0) return -1;
    rd->at = 0, rd->len = (size_t)n;
  }
  return (unsigned char)rd->buf[rd->at++];
}

/* A line without its CRLF, appended to out. */
static bool read_line(reader *rd, char **out, size_t *len) {
  for (int c; (c = next_byte(rd)) >= 0;) {
    if (c == '\r') return next_byte(rd) == '\n';
    *out = realloc(*out, *len + 2);
    (*out)[(*len)++] = (char)c;
    (*out)[*len] = '\0';
  }
  return false;
}

static bool read_reply(reader *rd, char **out, size_t *len) {
  size_t start = *len;
  if (!read_line(rd, out, len)) return false;
  char kind = (*out)[start];
  long n = strtol(*out + start + 1, NULL, 10);
  if (kind == '$' && n >= 0) {
    *len = start + 1; /* "$" then the bytes */
    *out = realloc(*out, *len + (size_t)n + 3);
    for (long i = 0; i < n + 2; i++) {
      int c = next_byte(rd);
      if (c < 0) return false;
      if (i < n) (*out)[(*len)++] = (char)c;
    }
    (*out)[*len] = '\0';
  } else if (kind == '*') {
    for (long i = 0; i < n; i++) {
      *out = realloc(*out, *len + 2);
      (*out)[(*len)++] = '\n';
      (*out)[*len] = '\0';
      if (!read_reply(rd, out, len)) return false;
    }
  }
  return true;
}

/* Sends one command and reads its reply. */
static char *exchange(reader *rd, int argc, const char *const *argv, const size_t *lens) {
  char head[64];
  bool ok = dprintf(rd->fd, "*%d\r\n", argc) > 0;
  for (int i = 0; ok && i < argc; i++) {
    int n = snprintf(head, sizeof head, "$%zu\r\n", lens[i]);
    ok = write(rd->fd, head, (size_t)n) == n &&
         write(rd->fd, argv[i], lens[i]) == (ssize_t)lens[i] && write(rd->fd, "\r\n", 2) == 2;
  }
  char *out = calloc(1, 1);
  size_t len = 0;
  if (!ok || !read_reply(rd, &out, &len)) {
    free(out);
    out = NULL;
  }
  return out;
}

char *t_redis_command(const t_redis *r, int argc, const char *const *argv, const size_t *lens) {
  reader *rd = calloc(1, sizeof *rd);
  rd->fd = dial(r->port);
  char *out = NULL, db[16];
  snprintf(db, sizeof db, "%d", r->db);
  const char *auth[] = {"AUTH", r->password}, *select[] = {"SELECT", db};
  size_t auth_lens[] = {4, r->password ? strlen(r->password) : 0}, select_lens[] = {6, strlen(db)};
  bool ready = rd->fd >= 0;
  if (ready && r->password) {
    char *said = exchange(rd, 2, auth, auth_lens);
    ready = said && !strcmp(said, "+OK");
    free(said);
  }
  if (ready && r->db) {
    char *said = exchange(rd, 2, select, select_lens);
    ready = said && !strcmp(said, "+OK");
    free(said);
  }
  if (ready) out = exchange(rd, argc, argv, lens);
  if (rd->fd >= 0) close(rd->fd);
  free(rd);
  return out;
}

char *t_redis_do(const t_redis *r, ...) {
  const char *argv[16];
  size_t lens[16];
  int argc = 0;
  va_list ap;
  va_start(ap, r);
  for (const char *a; argc < 16 && (a = va_arg(ap, const char *));) {
    argv[argc] = a;
    lens[argc++] = strlen(a);
  }
  va_end(ap);
  return t_redis_command(r, argc, argv, lens);
}

long t_redis_dbsize(const t_redis *r) {
  char *s = t_redis_do(r, "DBSIZE", NULL);
  long n = s && s[0] == ':' ? strtol(s + 1, NULL, 10) : -1;
  free(s);
  return n;
}
