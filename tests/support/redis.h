/* redis.h - a Redis server of a test's own (Debian's redis-server, on a
 * free loopback port, keeping nothing on disk), and a few commands sent
 * to it to look at or change what it holds.  The client is the test's:
 * it checks cuplug's, so it shares nothing with it. */
#ifndef CUPLUG_TESTS_REDIS_H
#define CUPLUG_TESTS_REDIS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* redis-server: $CUPLUG_TEST_REDIS, else found on PATH. */
const char *t_redis_server(void);

typedef struct t_redis {
  pid_t pid;
  int port;
  char url[64]; /* redis://127.0.0.1:PORT */
  const char *password; /* the client's AUTH, when set */
  int db;               /* the client's SELECT, when set */
} t_redis;

/* Starts a server (extra arguments: "--requirepass", "secret", NULL; set
 * r->password to the same) on a free port, or on r->port when it is set,
 * and waits until it answers as itself.  False (and why, on stderr) when it
 * does not within 5 s. */
bool t_redis_start(t_redis *r, const char *const *extra);
/* Kills it (SIGKILL) and reaps it. */
void t_redis_stop(t_redis *r);

/* One command; the reply as text: "+OK", "-ERR ...", ":3", "$<bytes>"
 * (a bulk string's bytes; "$-1" is nil), "*N" then the elements, one a
 * line.  NULL when the server cannot be reached.  Free it. */
char *t_redis_command(const t_redis *r, int argc, const char *const *argv, const size_t *lens);
/* The same for text arguments, NULL-ended: t_redis_do(r, "DBSIZE", NULL). */
char *t_redis_do(const t_redis *r, ...);
/* DBSIZE as a number (-1 on failure or an error reply). */
long t_redis_dbsize(const t_redis *r);

#endif
