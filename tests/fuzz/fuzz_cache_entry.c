/* fuzz_cache_entry.c - what the result cache reads back: an entry file in
 * the disk folder (another process, a crash mid-write or a failing disk may
 * have left anything there), and the artifact bytes inside it.
 *
 * The input is an entry file.  The first byte chooses whether the harness
 * repairs its header's key and payload digest (so that the payload reaches
 * the artifact reader through the disk tier) or leaves it as it is (so that
 * the header's checks are fuzzed).  Whatever the bytes, the cache must miss
 * or hit; a hit must hold the payload, and a payload that reads back as an
 * artifact must write out in a form that reads back and writes out as
 * itself. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "fuzz.h"
#include "plugin/cache/cache.h"
#include "plugin/session/artifact.h"

enum { HEADER = 88, KEY_AT = 16, DIGEST_AT = 56 };

static cuplug__cache *cache;
static char path[512];
static const char key_bytes[] = "fuzz_cache_entry";
static cuplug__cache_key key;

static void setup(void) {
  char dir[] = "/tmp/cuplug-fuzz-cache-XXXXXX";
  if (!mkdtemp(dir)) abort();
  /* memory holds nothing (every entry is larger than a byte): each get reads the file */
  cuplug__cache_options o = {.dir = dir, .memory_bytes = 1};
  cuplug_error *e = cuplug__cache_create(&o, &cache);
  if (e) abort();
  cuplug__cache_key_init(&key, key_bytes, sizeof key_bytes);
  cuplug__digest d = cuplug__digest_of(key_bytes, sizeof key_bytes);
  char hex[65];
  cuplug__digest_hex(&d, hex);
  snprintf(path, sizeof path, "%s/v%u/%.2s", dir, CUPLUG__CACHE_FORMAT, hex);
  char v1[256];
  snprintf(v1, sizeof v1, "%s/v%u", dir, CUPLUG__CACHE_FORMAT);
  mkdir(v1, 0755);
  mkdir(path, 0755);
  snprintf(path + strlen(path), sizeof path - strlen(path), "/%s", hex + 2);
}

/* Bytes that read back as an artifact write out in a normal form (a type
 * by its canonical name, a flag as 0 or 1), which reads back and writes
 * out as itself. */
static void save(const uint8_t *data, size_t size, cuplug__buf *out) {
  cuplug_artifact *a = (cuplug_artifact *)1;
  cuplug_error *e = cuplug__artifact_restore(data, size, &a);
  if (e) {
    if (cuplug__error_destroy(e), a) abort();
    return;
  }
  if (cuplug__artifact_save(a, out)) abort();
  cuplug__artifact_destroy(a);
}

static void round_trip(const uint8_t *data, size_t size) {
  cuplug__buf once, twice;
  cuplug__buf_init(&once);
  cuplug__buf_init(&twice);
  save(data, size, &once);
  if (once.len) {
    save((const uint8_t *)once.data, once.len, &twice);
    if (twice.len != once.len || memcmp(twice.data, once.data, once.len)) abort();
  }
  cuplug__buf_free(&once);
  cuplug__buf_free(&twice);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!cache) setup();
  bool repair = fuzz_choose(&data, &size, 2);
  uint8_t *file = malloc(size ? size : 1);
  memcpy(file, data, size);
  if (repair && size >= HEADER) {
    cuplug__digest k = cuplug__digest_of(key_bytes, sizeof key_bytes);
    cuplug__digest p = cuplug__digest_of(file + HEADER, size - HEADER);
    memcpy(file + KEY_AT, k.bytes, 32);
    memcpy(file + DIGEST_AT, p.bytes, 32);
  }
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || (size && write(fd, file, size) != (ssize_t)size)) abort();
  close(fd);
  void *got;
  size_t got_size;
  cuplug_error *note = NULL;
  cuplug_cache_result r = cuplug__cache_get(cache, &key, &got, &got_size, &note);
  cuplug__error_destroy(note);
  if (r == CUPLUG_CACHE_DISK) {
    /* a hit is exactly the payload of a whole, checked entry */
    if (size < HEADER || got_size != size - HEADER || memcmp(got, file + HEADER, got_size))
      abort();
    round_trip(got, got_size);
    free(got);
  } else if (r != CUPLUG_CACHE_MISS || got) {
    abort();
  }
  if (size > HEADER) round_trip(file + HEADER, size - HEADER); /* the reader, unguarded */
  free(file);
  return 0;
}
