/* hash.h - the digests that name cache entries and check their contents.
 *
 * BLAKE3 (LLVM's, already linked into the plugin): cryptographic, so two
 * inputs that differ never share an entry, and fast enough (several GB/s on
 * AVX2) that hashing a compile's inputs costs microseconds.  Every field is
 * fed with its length, so "ab"+"c" and "a"+"bc" differ. */
#ifndef CUPLUG__PLUGIN_CACHE_HASH_H
#define CUPLUG__PLUGIN_CACHE_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "cuplug/cuplug.h"

typedef struct cuplug__digest {
  uint8_t bytes[32];
} cuplug__digest;

/* LLVM's llvm_blake3_hasher, whose header stays in hash.c (hash.c checks
 * that it fits). */
typedef struct cuplug__hasher {
  _Alignas(16) unsigned char state[1920];
} cuplug__hasher;

/* `domain` says what is hashed ("compile", "link"): keys of different
 * kinds never meet. */
void cuplug__hasher_init(cuplug__hasher *h, const char *domain);
void cuplug__hash_u64(cuplug__hasher *h, uint64_t v);
void cuplug__hash_bytes(cuplug__hasher *h, const void *data, size_t size);
/* NULL and "" hash differently. */
void cuplug__hash_str(cuplug__hasher *h, const char *s);
void cuplug__hash_digest(cuplug__hasher *h, const cuplug__digest *d);
cuplug__digest cuplug__hasher_final(cuplug__hasher *h);

/* One call: the digest of a buffer. */
cuplug__digest cuplug__digest_of(const void *data, size_t size);

/* The contents of a file, hashed into h: a file seen before and unchanged
 * since (same device, inode, size, modification and change times, and
 * older than two seconds when it was read, so that a write within one
 * tick of the clock is not missed) is not read again.  A missing file
 * hashes as missing: adding it later changes the key. */
void cuplug__hash_file(cuplug__hasher *h, const char *path);

/* The running build of cuplug: its linker build ID (build.c). */
cuplug__digest cuplug__build_digest(void);

/* 64 lowercase hex digits and a NUL. */
void cuplug__digest_hex(const cuplug__digest *d, char out[65]);

#endif
