/* fuzz_remote.c - what comes back from a remote cache server: any server
 * at the URL a user gave may answer anything (another program, a broken
 * proxy, an attacker who can write to it).
 *
 * The first byte chooses how the rest is used:
 *   0  the server's whole answer to GET, read by hiredis's reader as it
 *      comes in (the second byte: in how many pieces);
 *   1  a value, as a well-formed bulk reply: the value's own checks;
 *   2  a payload, sealed with the key and sent back: it must come back a
 *      hit, byte for byte;
 *   3  the answer of a real server on a loopback socket, to a real
 *      remote's GET and then SET (the socket code: pieces, deadlines, the
 *      size limit, a connection closed); the next byte's low bit: with a
 *      password and a database, so that AUTH and SELECT get the same
 *      answer.
 *   4  a URL, as a session's cache_remote or $CUPLUG_CACHE_REMOTE gives
 *      it: refused with CUPLUG_ERR_OPTION_CACHE_REMOTE, or taken, and
 *      then shown (cache_info's remote) as printable text.
 * Whatever the bytes, a look-up is a miss, a hit or skipped, never a
 * crash, a hang or a leak; and a hit's payload was sealed with the key. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "fuzz.h"
#include "plugin/cache/remote.h"

static uint8_t mac[32];
static const cuplug__digest *key;
static cuplug__digest key_digest;
static char url[64], auth_url[96], key_path[64];

/* ---- a server that answers with the fuzzer's bytes ---- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *answer; /* the server's copy: a connection may outlive the run that made it */
static size_t answer_size;
static int listener;

static void *serve(void *unused) {
  (void)unused;
  for (;;) {
    int fd = accept(listener, NULL, NULL);
    if (fd < 0) continue;
    char request[65536];
    if (read(fd, request, sizeof request) > 0) { /* the command (its start is enough) */
      pthread_mutex_lock(&lock);
      if (answer_size) (void)!write(fd, answer, answer_size);
      pthread_mutex_unlock(&lock);
    }
    close(fd);
  }
  return NULL;
}

static void setup(void) {
  cuplug__remote_mac_key("fuzz_remote's key", 17, mac);
  key_digest = cuplug__digest_of("fuzz_remote", 11);
  key = &key_digest;
  listener = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  if (bind(listener, (struct sockaddr *)&a, sizeof a) || listen(listener, 64) ||
      getsockname(listener, (struct sockaddr *)&a, &len))
    abort();
  snprintf(url, sizeof url, "redis://127.0.0.1:%d", ntohs(a.sin_port));
  snprintf(auth_url, sizeof auth_url, "redis://user:pw@127.0.0.1:%d/1", ntohs(a.sin_port));
  snprintf(key_path, sizeof key_path, "/tmp/cuplug-fuzz-remote-key-%d", (int)getpid());
  FILE *f = fopen(key_path, "wb");
  if (!f || fwrite("fuzz_remote's key", 1, 17, f) != 17 || fclose(f)) abort();
  chmod(key_path, 0600);
  pthread_t t;
  if (pthread_create(&t, NULL, serve, NULL)) abort();
  pthread_detach(t);
}

static void check(cuplug__remote_result r, void *data, size_t size, const uint8_t *sealed,
                  size_t sealed_size) {
  if (r == CUPLUG__REMOTE_HIT) {
    if (!data) abort();
    /* what came back was sealed with the key: only mode 2 seals */
    if (!sealed || size != sealed_size || memcmp(data, sealed, size)) abort();
  } else if (data) {
    abort();
  }
  free(data);
}

static void through_reader(const uint8_t *bytes, size_t size, size_t chunks,
                           const uint8_t *sealed, size_t sealed_size) {
  cuplug__remote_result r;
  void *data;
  size_t n;
  bool refused;
  char why[256];
  if (!cuplug__remote_answer(mac, key, bytes, size, chunks, &r, &data, &n, &refused, why,
                             sizeof why))
    abort(); /* hiredis is there where the harness runs */
  if (r != CUPLUG__REMOTE_SKIPPED && refused) abort();
  if (sealed && r != CUPLUG__REMOTE_HIT) abort(); /* sealed with the key: a hit */
  check(r, data, n, sealed, sealed_size);
}

static void through_socket(const uint8_t *bytes, size_t size, bool auth) {
  cuplug__remote_options o = {.url = auth ? auth_url : url, .key_path = key_path,
                              .timeout_ms = 20, .max_entry_bytes = 4096};
  cuplug__remote *remote;
  cuplug_error *e = cuplug__remote_create(&o, &remote);
  if (e) abort();
  pthread_mutex_lock(&lock);
  answer = malloc(size ? size : 1);
  if (!answer) abort();
  memcpy(answer, bytes, size);
  answer_size = size;
  pthread_mutex_unlock(&lock);
  void *data;
  size_t n;
  cuplug_error *note = NULL;
  cuplug__remote_result r = cuplug__remote_get(remote, key, &data, &n, &note);
  check(r, data, n, NULL, 0);
  cuplug__error_destroy(note);
  note = NULL;
  cuplug__remote_put(remote, key, "a result", 8, &note);
  cuplug__error_destroy(note);
  cuplug_cache_info info;
  cuplug__remote_info(remote, &info);
  if (info.remote_hits) abort(); /* nothing the fuzzer wrote is sealed */
  cuplug__remote_destroy(remote);
  pthread_mutex_lock(&lock);
  free(answer);
  answer = NULL;
  answer_size = 0;
  pthread_mutex_unlock(&lock);
}

static void through_url(const uint8_t *bytes, size_t size) {
  char *text = fuzz_string(bytes, size);
  /* no key: the remote is not used, and cache_info asks no server */
  cuplug__remote_options o = {.url = text, .key_path = "/nonexistent/key"};
  cuplug__remote *remote = NULL;
  cuplug_error *e = cuplug__remote_create(&o, &remote);
  if (e) {
    if (remote || e->code != CUPLUG_ERR_OPTION_CACHE_REMOTE) abort();
    cuplug__error_destroy(e);
  } else if (remote) { /* "" names no server */
    cuplug_cache_info info;
    cuplug__remote_info(remote, &info);
    for (const char *p = info.remote; *p; p++)
      if (*p < 0x20 || *p >= 0x7f) abort();
    cuplug__remote_destroy(remote);
  }
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool ready;
  if (!ready) setup(), ready = true;
  unsigned mode = fuzz_choose(&data, &size, 5);
  cuplug__buf wire, value;
  cuplug__buf_init(&wire);
  cuplug__buf_init(&value);
  switch (mode) {
    case 0: {
      unsigned chunks = fuzz_choose(&data, &size, 16) + 1;
      through_reader(data, size, chunks, NULL, 0);
      break;
    }
    case 1:
      cuplug__buf_printf(&wire, "$%zu\r\n", size);
      cuplug__buf_append(&wire, (const char *)data, size);
      cuplug__buf_puts(&wire, "\r\n");
      through_reader((const uint8_t *)wire.data, wire.len, 1, NULL, 0);
      break;
    case 2:
      cuplug__remote_seal(mac, key, data, size, &value);
      cuplug__buf_printf(&wire, "$%zu\r\n", value.len);
      cuplug__buf_append(&wire, value.data, value.len);
      cuplug__buf_puts(&wire, "\r\n");
      through_reader((const uint8_t *)wire.data, wire.len, 3, data, size);
      break;
    case 4:
      through_url(data, size);
      break;
    default: /* the next byte: a plain URL, or one with a password and a database (AUTH and
                SELECT answered by the fuzzer's bytes too) */
      through_socket(data + (size > 0), size - (size > 0), size && (data[0] & 1));
  }
  cuplug__buf_free(&wire);
  cuplug__buf_free(&value);
  return 0;
}
