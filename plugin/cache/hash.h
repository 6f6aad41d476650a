/* hash.h - the digests that name cache entries and check their contents.
 *
 * Two hashes, both LLVM's (already linked into the plugin):
 *   BLAKE3, cryptographic: a disk entry is named by the digest of its key,
 *     so two keys that differ never share an entry, and its contents carry
 *     their digest, so damage is seen;
 *   XXH3, several times faster: the memory tier's buckets, where a hit is
 *     then confirmed by comparing the whole key. */
#ifndef CUPLUG__PLUGIN_CACHE_HASH_H
#define CUPLUG__PLUGIN_CACHE_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cuplug__digest {
  uint8_t bytes[32];
} cuplug__digest;

/* BLAKE3 of a buffer. */
cuplug__digest cuplug__digest_of(const void *data, size_t size);
/* XXH3 (64 bits) of a buffer (quick.cpp). */
uint64_t cuplug__quick_hash(const void *data, size_t size);

/* The digest of a file's contents.  A file seen before and unchanged since
 * (same device, inode, size, modification and change times, and older
 * than two seconds when it was read, so that a write within one tick of
 * the clock is not missed) is not read again.  False when the file is
 * missing or cannot be read. */
bool cuplug__file_digest(const char *path, cuplug__digest *out);

/* The running build of cuplug: its linker build ID (build.c). */
cuplug__digest cuplug__build_digest(void);

/* 64 lowercase hex digits and a NUL. */
void cuplug__digest_hex(const cuplug__digest *d, char out[65]);

#endif
