/* hash.c - BLAKE3 digests of keys, files and entries. */
#include "plugin/cache/hash.h"

#include <fcntl.h>
#include <llvm-c/blake3.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/map.h"

_Static_assert(sizeof(llvm_blake3_hasher) <= sizeof(cuplug__hasher),
               "cuplug__hasher holds LLVM's BLAKE3 state");
_Static_assert(_Alignof(llvm_blake3_hasher) <= 16, "and is aligned for it");

static llvm_blake3_hasher *state(cuplug__hasher *h) { return (llvm_blake3_hasher *)h->state; }

void cuplug__hasher_init(cuplug__hasher *h, const char *domain) {
  llvm_blake3_hasher_init(state(h));
  cuplug__hash_str(h, domain);
}

void cuplug__hash_u64(cuplug__hasher *h, uint64_t v) {
  uint8_t b[8];
  for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
  llvm_blake3_hasher_update(state(h), b, sizeof b);
}

void cuplug__hash_bytes(cuplug__hasher *h, const void *data, size_t size) {
  cuplug__hash_u64(h, size);
  if (size) llvm_blake3_hasher_update(state(h), data, size);
}

void cuplug__hash_str(cuplug__hasher *h, const char *s) {
  if (!s) {
    cuplug__hash_u64(h, UINT64_MAX);
    return;
  }
  cuplug__hash_bytes(h, s, strlen(s));
}

void cuplug__hash_digest(cuplug__hasher *h, const cuplug__digest *d) {
  llvm_blake3_hasher_update(state(h), d->bytes, sizeof d->bytes);
}

cuplug__digest cuplug__hasher_final(cuplug__hasher *h) {
  cuplug__digest d;
  llvm_blake3_hasher_finalize(state(h), d.bytes, sizeof d.bytes);
  return d;
}

cuplug__digest cuplug__digest_of(const void *data, size_t size) {
  cuplug__hasher h;
  llvm_blake3_hasher_init(state(&h));
  if (size) llvm_blake3_hasher_update(state(&h), data, size);
  return cuplug__hasher_final(&h);
}

void cuplug__digest_hex(const cuplug__digest *d, char out[65]) {
  static const char hex[] = "0123456789abcdef";
  for (int i = 0; i < 32; i++) {
    out[2 * i] = hex[d->bytes[i] >> 4];
    out[2 * i + 1] = hex[d->bytes[i] & 15];
  }
  out[64] = '\0';
}

/* ---- files, remembered while they do not change ---- */

typedef struct seen_file {
  char *path; /* the map's key */
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec mtime, ctime;
  cuplug__digest digest;
} seen_file;

static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static cuplug__map seen; /* path -> seen_file, for the process */

static bool same_time(struct timespec a, struct timespec b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

static bool unchanged(const seen_file *f, const struct stat *st) {
  return f->dev == st->st_dev && f->ino == st->st_ino && f->size == st->st_size &&
         same_time(f->mtime, st->st_mtim) && same_time(f->ctime, st->st_ctim);
}

/* Notes a file's digest; a file it cannot note is simply read again. */
static void remember(const char *path, const struct stat *st, const cuplug__digest *d) {
  pthread_mutex_lock(&seen_lock);
  seen_file *f = cuplug__map_get(&seen, path, strlen(path));
  if (!f) {
    f = calloc(1, sizeof *f);
    if (f && !(f->path = cuplug__strdup(path))) {
      free(f);
      f = NULL;
    }
    if (f && !cuplug__map_put(&seen, f->path, f)) {
      free(f->path);
      free(f);
      f = NULL;
    }
  }
  if (f) {
    f->dev = st->st_dev;
    f->ino = st->st_ino;
    f->size = st->st_size;
    f->mtime = st->st_mtim;
    f->ctime = st->st_ctim;
    f->digest = *d;
  }
  pthread_mutex_unlock(&seen_lock);
}

void cuplug__hash_file(cuplug__hasher *h, const char *path) {
  cuplug__hash_str(h, path);
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
    cuplug__hash_str(h, "missing");
    return;
  }
  pthread_mutex_lock(&seen_lock);
  seen_file *f = cuplug__map_get(&seen, path, strlen(path));
  bool known = f && unchanged(f, &st);
  cuplug__digest d = known ? f->digest : (cuplug__digest){{0}};
  pthread_mutex_unlock(&seen_lock);
  if (!known) {
    size_t size;
    char *data = cuplug__read_file(path, &size);
    if (!data) {
      cuplug__hash_str(h, "unreadable");
      return;
    }
    d = cuplug__digest_of(data, size);
    free(data);
    /* A file written less than two seconds ago may be written again
     * within the same tick of the file system's clock, leaving size and
     * times as they were: such a file is read again next time. */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    bool settled = now.tv_sec - st.st_mtim.tv_sec >= 2 && now.tv_sec - st.st_ctim.tv_sec >= 2;
    if (settled) remember(path, &st, &d);
  }
  cuplug__hash_digest(h, &d);
}
