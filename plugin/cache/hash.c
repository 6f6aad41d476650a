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

cuplug__digest cuplug__digest_of(const void *data, size_t size) {
  llvm_blake3_hasher h;
  llvm_blake3_hasher_init(&h);
  if (size) llvm_blake3_hasher_update(&h, data, size);
  cuplug__digest d;
  llvm_blake3_hasher_finalize(&h, d.bytes, sizeof d.bytes);
  return d;
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

/* The plugin may be unloaded (dlclose): what it remembers goes with it. */
__attribute__((destructor)) static void forget_files(void) {
  for (size_t i = 0; i < seen.cap; i++) {
    seen_file *f = seen.slots[i].value;
    if (!f) continue;
    free(f->path);
    free(f);
  }
  cuplug__map_free(&seen);
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

bool cuplug__file_digest(const char *path, cuplug__digest *out) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  pthread_mutex_lock(&seen_lock);
  seen_file *f = cuplug__map_get(&seen, path, strlen(path));
  bool known = f && unchanged(f, &st);
  if (known) *out = f->digest;
  pthread_mutex_unlock(&seen_lock);
  if (known) return true;
  size_t size;
  char *data = cuplug__read_file(path, &size);
  if (!data) return false;
  *out = cuplug__digest_of(data, size);
  free(data);
  /* A file written less than two seconds ago may be written again within
   * the same tick of the file system's clock, leaving size and times as
   * they were: such a file is read again next time. */
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  if (now.tv_sec - st.st_mtim.tv_sec >= 2 && now.tv_sec - st.st_ctim.tv_sec >= 2)
    remember(path, &st, out);
  return true;
}
