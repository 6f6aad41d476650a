/* remote.h - the fleet's tier of the result cache: a Redis server (or one
 * that speaks its protocol: Valkey, KeyDB) that many machines share.
 *
 * Behind memory and disk: a local miss asks the server, a hit there fills
 * the local tiers, and a build is stored locally and on the server.
 *
 * Entries are code that runs on the GPU, and the server is not trusted to
 * keep them: each value is sealed with a key the fleet shares (a file of at
 * least 16 random bytes): a BLAKE3 keyed hash over the key it is filed
 * under, its size and its payload.  A value whose tag does not verify is
 * never used: it is counted, warned about once, and rebuilt (the rebuild
 * overwrites it).  Without a key nothing is read from or written to the
 * server, and the session says why once.
 *
 *   name:  cuplug:<CUPLUG__REMOTE_FORMAT>:<64 hex digits of the key's BLAKE3>
 *   value: "CUPLUGR" <format byte>, the key's digest (32), the payload's
 *          size (8, little-endian), the tag (32), the payload
 *
 * The protocol is hiredis's (its command writer and reply reader, loaded at
 * run time), over a socket of cuplug's own, so that every call keeps one
 * deadline: looking the name up, connecting, sending and reading together
 * take at most the time limit (50 ms unless set), whatever the server
 * does; and an answer is checked before hiredis reads it (its first byte,
 * the length a value announces).  A call that
 * fails (refused, dropped, timed out, an error reply) sets the server aside
 * for a while (5 s unless set), then it is tried again.  Compiles always go
 * on, with the same result as without a remote.  Thread-safe: calls share
 * a pool of connections. */
#ifndef CUPLUG__PLUGIN_CACHE_REMOTE_H
#define CUPLUG__PLUGIN_CACHE_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "cuplug/cuplug.h"
#include "plugin/cache/hash.h"

/* The format of names and values; a value of another format is not read. */
#define CUPLUG__REMOTE_FORMAT 1u
/* The bytes before the payload in a value. */
#define CUPLUG__REMOTE_HEADER 80u

#define CUPLUG__REMOTE_DEFAULT_TIMEOUT_MS 50u
#define CUPLUG__REMOTE_DEFAULT_RETRY_MS 5000u
#define CUPLUG__REMOTE_DEFAULT_MAX_ENTRY (4ull << 20) /* about 35 ms on 1 Gb/s */

typedef struct cuplug__remote cuplug__remote;

/* Zero fields take the environment's value, then the default. */
typedef struct cuplug__remote_options {
  const char *url;          /* $CUPLUG_CACHE_REMOTE; "": none */
  const char *key_path;     /* $CUPLUG_CACHE_REMOTE_KEY */
  uint32_t timeout_ms;      /* $CUPLUG_CACHE_REMOTE_TIMEOUT_MS */
  uint32_t ttl_s;           /* $CUPLUG_CACHE_REMOTE_TTL; 0: entries do not expire */
  uint64_t max_entry_bytes; /* $CUPLUG_CACHE_REMOTE_MAX_ENTRY; larger results are not sent */
} cuplug__remote_options;

/* *out is NULL when no server is named.  A URL cuplug cannot use is
 * CUPLUG_ERR_OPTION_CACHE_REMOTE; a missing or unusable key, or no
 * hiredis, leaves the remote unused, which remote_info and the first
 * call's note say. */
cuplug_error *cuplug__remote_create(const cuplug__remote_options *o, cuplug__remote **out);
void cuplug__remote_destroy(cuplug__remote *r);

typedef enum cuplug__remote_result {
  CUPLUG__REMOTE_SKIPPED, /* not in use, or set aside after a failure */
  CUPLUG__REMOTE_MISS,
  CUPLUG__REMOTE_HIT
} cuplug__remote_result;

/* Looks `key` up.  On a hit *data (malloc'd) holds the payload.  `note`
 * receives a warning once a session for each kind of trouble (no key,
 * a failure, an entry that did not verify) when it is still NULL. */
cuplug__remote_result cuplug__remote_get(cuplug__remote *r, const cuplug__digest *key,
                                         void **data, size_t *size, cuplug_error **note);
/* Stores a result (not when it is larger than the limit). */
void cuplug__remote_put(cuplug__remote *r, const cuplug__digest *key, const void *data,
                        size_t size, cuplug_error **note);
/* Fills cache_info's remote fields; the strings are the remote's. */
void cuplug__remote_info(cuplug__remote *r, cuplug_cache_info *info);

/* ---- the parts, for tests and the fuzz harness ---- */

/* The name of `key`'s entry: "cuplug:1:" and 64 hex digits. */
void cuplug__remote_name(const cuplug__digest *key, char out[80]);
/* A value: the header, the tag and the payload. */
void cuplug__remote_seal(const uint8_t mac_key[32], const cuplug__digest *key, const void *data,
                         size_t size, cuplug__buf *out);
/* The payload of a value filed under `key`, or NULL and *why (a static
 * string: "not a cuplug entry", "filed under another key", "its tag does
 * not verify", ...). */
const void *cuplug__remote_open(const uint8_t mac_key[32], const cuplug__digest *key,
                                const void *value, size_t len, size_t *size, const char **why);
/* The mac key of a key file's bytes (at least 16). */
void cuplug__remote_mac_key(const void *file, size_t len, uint8_t out[32]);

/* What a server's answer to GET means: the bytes it sent, as they came in
 * (`chunks` pieces), read by hiredis's reader.  HIT with the payload in
 * *data (malloc'd), MISS for nil, SKIPPED with *why for anything else (an
 * error reply, a malformed answer, a value that does not open; *refused
 * says it was a value that did not open).  False when hiredis is missing. */
bool cuplug__remote_answer(const uint8_t mac_key[32], const cuplug__digest *key,
                           const void *bytes, size_t len, size_t chunks,
                           cuplug__remote_result *result, void **data, size_t *size,
                           bool *refused, char *why, size_t cap);

#endif
