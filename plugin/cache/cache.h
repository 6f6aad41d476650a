/* cache.h - compile and link results, kept in memory, on disk and (when a
 * server is named) on the remote tier a fleet shares (remote.h).
 *
 * An entry is a key (the digest of everything that can change a result)
 * and the serialised result.  The memory tier holds the most recently used
 * entries of a session; the disk tier is shared by every process that uses
 * the same folder:
 *
 *   <dir>/v1/<first 2 hex digits of the key>/<the other 62>
 *
 * Each file holds a header (magic, format version, key, payload size and
 * payload digest) and the payload.  Files are written to a temporary name
 * and renamed into place, so a reader sees a whole entry or none; a
 * truncated or corrupt one (a crash mid-write on a file system that does
 * not order rename after data, a disk error) fails its digest, is removed
 * and rebuilt.  A hit refreshes the file's time; when the folder grows past
 * its bound the least recently used entries go.
 *
 * Entries are code that runs on the GPU, so the disk tier trusts only
 * what its user wrote, as ssh does its files: the folder, v1 and each
 * subfolder must be owned by the user (or root) and writable by no one
 * else, and so must each entry read; cuplug makes its folders 0700 and
 * its entries 0600, and makes v1 and the subfolders an older cuplug made
 * 0755 the user's alone (the folder the user names is only checked).  An
 * untrusted folder turns the disk tier off, and nothing in it is read,
 * written or removed; an untrusted entry is removed and rebuilt.  The
 * folders above the cache folder are not checked: a folder put in its
 * place by another user is theirs, and fails the check.
 *
 * The cache never fails a compile: a folder that is missing, read-only,
 * full or untrusted turns the disk tier off (or its writes), and the
 * session says why once, as a warning on the artifact of the compile that
 * found it (or of the next one, when cache_info found it).  Thread-safe. */
#ifndef CUPLUG__PLUGIN_CACHE_CACHE_H
#define CUPLUG__PLUGIN_CACHE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuplug/cuplug.h"
#include "plugin/cache/hash.h"
#include "plugin/cache/remote.h"

/* The entries' file format; a file of another version is a miss. */
#define CUPLUG__CACHE_FORMAT 1u

typedef struct cuplug__cache cuplug__cache;

typedef struct cuplug__cache_options {
  bool off;          /* neither memory nor disk */
  const char *dir;   /* NULL: $CUPLUG_CACHE_DIR, else $XDG_CACHE_HOME/cuplug,
                        else $HOME/.cache/cuplug; "": no disk tier */
  uint64_t max_bytes;    /* the disk tier's bound; 0: CUPLUG__CACHE_DEFAULT_BYTES */
  uint64_t memory_bytes; /* the memory tier's bound; 0: CUPLUG__CACHE_DEFAULT_MEMORY */
  cuplug__remote_options remote; /* the remote tier (none while the cache is off) */
} cuplug__cache_options;

#define CUPLUG__CACHE_DEFAULT_BYTES (1ull << 30)
#define CUPLUG__CACHE_DEFAULT_MEMORY (64ull << 20)

cuplug_error *cuplug__cache_create(const cuplug__cache_options *o, cuplug__cache **out);
void cuplug__cache_destroy(cuplug__cache *c);

/* Whether the cache is in use at all (memory or disk). */
bool cuplug__cache_on(const cuplug__cache *c);

/* A key: every byte a result depends on (results.c writes them).  The
 * memory tier files it under its XXH3 and compares it whole; the disk
 * tier names the file by its BLAKE3 digest, made on first need. */
typedef struct cuplug__cache_key {
  const void *bytes;
  size_t size;
  uint64_t quick;
  bool digested;
  cuplug__digest digest;
} cuplug__cache_key;

void cuplug__cache_key_init(cuplug__cache_key *k, const void *bytes, size_t size);

/* Looks an entry up: memory, then disk, then the remote tier, whose hits
 * fill memory and disk.  On a hit, *data (malloc'd: free it) holds the
 * payload and the result says where it came from.  `note` receives, once
 * per session, a warning that the disk tier had to be set aside, or of the
 * remote tier's trouble (the caller attaches it to its artifact); NULL
 * when none. */
cuplug_cache_result cuplug__cache_get(cuplug__cache *c, cuplug__cache_key *key, void **data,
                                      size_t *size, cuplug_error **note);
/* Stores an entry in memory and, when they are on, on disk and remotely. */
void cuplug__cache_put(cuplug__cache *c, cuplug__cache_key *key, const void *data, size_t size,
                       cuplug_error **note);

/* Fills every out field of cache_info; the strings are the cache's (they
 * live until its status changes or it is destroyed). */
cuplug_error *cuplug__cache_info(cuplug__cache *c, cuplug_cache_info *info);
/* Empties memory and disk.  Entries other processes are writing may
 * survive it; the remote tier's are the fleet's, and stay. */
cuplug_error *cuplug__cache_clear(cuplug__cache *c);

#endif
