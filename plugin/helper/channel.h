/* channel.h - the memory a host and its helper process share, through which
 * a job and its result pass without a system call.
 *
 * On the H200 machine a send or a receive of a few kilobytes on the socket
 * costs 4 to 28 us: the four of a compile's round trip were 20 us of a
 * 0.25 ms compile (bench/RESULTS.md).  So the host writes a job, as the
 * same bytes the socket would carry (wire.h), into the job area of a
 * memfd both have mapped and bumps a counter; the helper, which polls the
 * counter after a job, reads the job where it lies, and answers the same
 * way in the result area.  The socket stays for the rest: a message too big
 * for its area, a farewell, a process that died (the socket closes), and a
 * one-header note that wakes a side which said it sleeps (each says so in
 * the shared page before it sleeps on the socket, and reads the counter
 * again after; the writer bumps the counter, then reads the flag: with both
 * sequentially consistent, one of them sees the other).
 *
 * The helper maps the memfd it finds as its fd 4 and marks the page as
 * attached; until the host sees that mark, jobs go by the socket.  A host
 * or a helper without a channel (memfd refused) works as before. */
#ifndef CUPLUG__PLUGIN_HELPER_CHANNEL_H
#define CUPLUG__PLUGIN_HELPER_CHANNEL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Each area's size: a message larger than this goes by the socket.  Pages
 * are allocated as first written, so a channel costs what its largest
 * message touched. */
#define CUPLUG__CHANNEL_AREA ((size_t)4 << 20)
/* The fd the helper finds its channel on. */
#define CUPLUG__CHANNEL_FD 4

typedef enum { CUPLUG__CHANNEL_JOB = 0, CUPLUG__CHANNEL_RESULT = 1 } cuplug__channel_area;

typedef struct cuplug__channel {
  unsigned char *base; /* the mapping; NULL: no channel */
} cuplug__channel;

/* Host: makes a channel; returns its memfd, to hand to the helper and then
 * close, or -1 (c->base NULL) when the system refuses one. */
int cuplug__channel_create(cuplug__channel *c);
/* Helper: maps the channel on fd and marks it attached; false when fd is no
 * channel of this build's size. */
bool cuplug__channel_attach(cuplug__channel *c, int fd);
void cuplug__channel_release(cuplug__channel *c);
/* Whether the helper has attached (host). */
bool cuplug__channel_attached(const cuplug__channel *c);

/* The counter of an area: how many messages were posted there. */
uint32_t cuplug__channel_count(const cuplug__channel *c, cuplug__channel_area a);
/* Posts the message of n bytes (a wire header and its payload) in area a,
 * or returns false when it does not fit.  *wake says whether the reader
 * said it sleeps, and so needs a note on the socket. */
bool cuplug__channel_post(cuplug__channel *c, cuplug__channel_area a, const void *msg, size_t n,
                          bool *wake);
/* The message posted last in area a, in place, and its length: at most
 * CUPLUG__CHANNEL_AREA, however the other side wrote the length. */
const unsigned char *cuplug__channel_message(const cuplug__channel *c, cuplug__channel_area a,
                                             size_t *n);
/* Whether the reader of area a said it sleeps. */
bool cuplug__channel_asleep(const cuplug__channel *c, cuplug__channel_area a);
/* Says that the reader of area a sleeps (true) or is awake again; before
 * it sleeps it must read the area's counter once more. */
void cuplug__channel_sleep(cuplug__channel *c, cuplug__channel_area a, bool asleep);

#endif
