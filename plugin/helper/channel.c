/* channel.c - the memory a host and its helper process share. */
#include "plugin/helper/channel.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The first page: the counters, the lengths, who sleeps.  Each area's
 * reader keeps the count it has seen; a length is written before its
 * counter is bumped and read after the new count is seen. */
typedef struct page {
  _Atomic uint32_t attached; /* ATTACHED once the helper has mapped the channel */
  _Atomic uint32_t count[2];
  _Atomic uint32_t asleep[2]; /* the reader of the area sleeps on the socket */
  _Atomic uint64_t len[2];
} page;

#define PAGE 4096u
#define ATTACHED 0x43504c43u /* "CLPC" */
#define SIZE (PAGE + 2 * CUPLUG__CHANNEL_AREA)

_Static_assert(sizeof(page) <= PAGE, "the channel's first page");

static page *page_of(const cuplug__channel *c) { return (page *)c->base; }

static unsigned char *area(const cuplug__channel *c, cuplug__channel_area a) {
  return c->base + PAGE + (size_t)a * CUPLUG__CHANNEL_AREA;
}

static unsigned char *map(int fd) {
  void *p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return p == MAP_FAILED ? NULL : p;
}

int cuplug__channel_create(cuplug__channel *c) {
  c->base = NULL;
  int fd = memfd_create("cuplug-helper", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return -1;
  /* above the helper's fds 3 and 4, so that handing both over cannot
   * overwrite one with the other */
  if (fd <= CUPLUG__CHANNEL_FD) {
    int high = fcntl(fd, F_DUPFD_CLOEXEC, CUPLUG__CHANNEL_FD + 1);
    close(fd);
    fd = high;
  }
  /* sealed at its size: a helper gone wrong cannot shrink it under the
   * host's mapping (which would fault the host) */
  if (fd < 0 || ftruncate(fd, SIZE) != 0 ||
      fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0 ||
      !(c->base = map(fd))) {
    if (fd >= 0) close(fd);
    c->base = NULL;
    return -1;
  }
  return fd;
}

bool cuplug__channel_attach(cuplug__channel *c, int fd) {
  struct stat st;
  c->base = NULL;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != SIZE) return false;
  if (!(c->base = map(fd))) return false;
  atomic_store(&page_of(c)->attached, ATTACHED);
  return true;
}

void cuplug__channel_release(cuplug__channel *c) {
  if (c->base) munmap(c->base, SIZE);
  c->base = NULL;
}

bool cuplug__channel_attached(const cuplug__channel *c) {
  return c->base && atomic_load(&page_of(c)->attached) == ATTACHED;
}

/* Sequentially consistent, as the flags are: a reader that says it sleeps
 * and then reads the counter must not have the read moved before the say
 * (an acquire load may be, on arm64's RCpc). */
uint32_t cuplug__channel_count(const cuplug__channel *c, cuplug__channel_area a) {
  return atomic_load(&page_of(c)->count[a]);
}

bool cuplug__channel_post(cuplug__channel *c, cuplug__channel_area a, const void *msg, size_t n,
                          bool *wake) {
  *wake = false;
  if (!c->base || n > CUPLUG__CHANNEL_AREA) return false;
  page *pg = page_of(c);
  memcpy(area(c, a), msg, n);
  atomic_store_explicit(&pg->len[a], n, memory_order_relaxed);
  atomic_fetch_add(&pg->count[a], 1); /* sequentially consistent: then the flag */
  *wake = atomic_load(&pg->asleep[a]) != 0;
  return true;
}

const unsigned char *cuplug__channel_message(const cuplug__channel *c, cuplug__channel_area a,
                                             size_t *n) {
  uint64_t len = atomic_load_explicit(&page_of(c)->len[a], memory_order_relaxed);
  *n = len > CUPLUG__CHANNEL_AREA ? CUPLUG__CHANNEL_AREA : (size_t)len;
  return area(c, a);
}

bool cuplug__channel_asleep(const cuplug__channel *c, cuplug__channel_area a) {
  return atomic_load(&page_of(c)->asleep[a]) != 0;
}

void cuplug__channel_sleep(cuplug__channel *c, cuplug__channel_area a, bool asleep) {
  atomic_store(&page_of(c)->asleep[a], asleep ? 1u : 0u);
}
