/* remote.c - the fleet's tier of the result cache: a Redis server, spoken
 * to with hiredis's command writer and reply reader over a socket of
 * cuplug's own, so that each call keeps one deadline. */
#include "plugin/cache/remote.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <limits.h>
#include <llvm-c/blake3.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/error.h"

/* ---- hiredis, loaded at run time ----
 * The library of the headers cuplug was built with: its structs (the
 * reader's error, a reply) are read, so another version is not taken. */

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)
#define HIREDIS_FILE "libhiredis.so." STRINGIFY(HIREDIS_SONAME)

static struct {
  redisReader *(*reader_create)(void);
  void (*reader_free)(redisReader *);
  int (*reader_feed)(redisReader *, const char *, size_t);
  int (*reader_get_reply)(redisReader *, void **);
  void (*free_reply)(void *);
  int (*format_argv)(char **, int, const char **, const size_t *);
  void (*free_command)(char *);
} hiredis;
static pthread_once_t hiredis_once = PTHREAD_ONCE_INIT;
static char hiredis_problem[512]; /* "" once loaded */

static void load_hiredis(void) {
  const char *path = getenv("CUPLUG_HIREDIS");
  if (!path || !*path) path = HIREDIS_FILE;
  void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!so) {
    snprintf(hiredis_problem, sizeof hiredis_problem,
             "hiredis cannot be loaded (%s); install hiredis %d.%d (Debian: libhiredis%s) or "
             "name its library in CUPLUG_HIREDIS",
             dlerror(), HIREDIS_MAJOR, HIREDIS_MINOR, STRINGIFY(HIREDIS_SONAME));
    return;
  }
  static const struct {
    const char *name;
    size_t offset;
  } symbols[] = {
      {"redisReaderCreate", offsetof(__typeof__(hiredis), reader_create)},
      {"redisReaderFree", offsetof(__typeof__(hiredis), reader_free)},
      {"redisReaderFeed", offsetof(__typeof__(hiredis), reader_feed)},
      {"redisReaderGetReply", offsetof(__typeof__(hiredis), reader_get_reply)},
      {"freeReplyObject", offsetof(__typeof__(hiredis), free_reply)},
      {"redisFormatCommandArgv", offsetof(__typeof__(hiredis), format_argv)},
      {"redisFreeCommand", offsetof(__typeof__(hiredis), free_command)},
  };
  if (dlsym(so, "redisConnectWithOptions")) { /* 1.0 and later: other structs */
    snprintf(hiredis_problem, sizeof hiredis_problem,
             "%s is hiredis 1.0 or later, whose replies are laid out otherwise: cuplug is built "
             "against hiredis %d.%d (%s)",
             path, HIREDIS_MAJOR, HIREDIS_MINOR, HIREDIS_FILE);
    return;
  }
  for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
    void *f = dlsym(so, symbols[i].name);
    if (!f) {
      snprintf(hiredis_problem, sizeof hiredis_problem,
               "%s has no %s: cuplug was built against hiredis %d.%d", path, symbols[i].name,
               HIREDIS_MAJOR, HIREDIS_MINOR);
      return;
    }
    memcpy((char *)&hiredis + symbols[i].offset, &f, sizeof f);
  }
}

/* NULL when hiredis is there, else why not. */
static const char *hiredis_missing(void) {
  pthread_once(&hiredis_once, load_hiredis);
  return hiredis_problem[0] ? hiredis_problem : NULL;
}

/* ---- values: sealed with the fleet's key ---- */

static const char value_magic[8] = {'C', 'U', 'P', 'L', 'U', 'G', 'R', (char)CUPLUG__REMOTE_FORMAT};

void cuplug__remote_mac_key(const void *file, size_t len, uint8_t out[32]) {
  llvm_blake3_hasher h;
  llvm_blake3_hasher_init_derive_key(&h, "cuplug 1.3 remote cache: the tags of its entries");
  llvm_blake3_hasher_update(&h, file, len);
  llvm_blake3_hasher_finalize(&h, out, 32);
  explicit_bzero(&h, sizeof h); /* the key file's bytes passed through it */
}

/* The first 48 bytes of a value: magic, key, size. */
static void value_head(const cuplug__digest *key, uint64_t size, uint8_t out[48]) {
  memcpy(out, value_magic, 8);
  memcpy(out + 8, key->bytes, 32);
  for (int i = 0; i < 8; i++) out[40 + i] = (uint8_t)(size >> (8 * i));
}

static void tag_of(const uint8_t mac_key[32], const uint8_t head[48], const void *data,
                   size_t size, uint8_t out[32]) {
  llvm_blake3_hasher h;
  llvm_blake3_hasher_init_keyed(&h, mac_key);
  llvm_blake3_hasher_update(&h, head, 48);
  if (size) llvm_blake3_hasher_update(&h, data, size);
  llvm_blake3_hasher_finalize(&h, out, 32);
}

void cuplug__remote_seal(const uint8_t mac_key[32], const cuplug__digest *key, const void *data,
                         size_t size, cuplug__buf *out) {
  uint8_t head[48], tag[32];
  value_head(key, size, head);
  tag_of(mac_key, head, data, size, tag);
  cuplug__buf_append(out, (const char *)head, sizeof head);
  cuplug__buf_append(out, (const char *)tag, sizeof tag);
  cuplug__buf_append(out, data, size);
}

const void *cuplug__remote_open(const uint8_t mac_key[32], const cuplug__digest *key,
                                const void *value, size_t len, size_t *size, const char **why) {
  const uint8_t *v = value;
  if (len < CUPLUG__REMOTE_HEADER || memcmp(v, value_magic, 7) != 0) {
    *why = "not a cuplug entry";
    return NULL;
  }
  if (v[7] != value_magic[7]) {
    *why = "written in another format";
    return NULL;
  }
  if (memcmp(v + 8, key->bytes, 32) != 0) {
    *why = "filed under another key";
    return NULL;
  }
  uint64_t n = 0;
  for (int i = 0; i < 8; i++) n |= (uint64_t)v[40 + i] << (8 * i);
  if (n != len - CUPLUG__REMOTE_HEADER) {
    *why = "cut short or padded (its size does not match)";
    return NULL;
  }
  uint8_t tag[32], differ = 0;
  tag_of(mac_key, v, v + CUPLUG__REMOTE_HEADER, (size_t)n, tag);
  for (int i = 0; i < 32; i++) differ |= (uint8_t)(tag[i] ^ v[48 + i]); /* in constant time */
  if (differ) {
    *why = "its tag does not verify (changed, or sealed with another key)";
    return NULL;
  }
  *size = (size_t)n;
  return v + CUPLUG__REMOTE_HEADER;
}

void cuplug__remote_name(const cuplug__digest *key, char out[80]) {
  char hex[65];
  cuplug__digest_hex(key, hex);
  snprintf(out, 80, "cuplug:%u:%s", CUPLUG__REMOTE_FORMAT, hex);
}

/* At most `n` bytes of text from the server, or of a URL, as printable
 * ASCII (others as '?'): it goes to terminals, logs and Python strings. */
static void printable(char *out, size_t cap, const char *s, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n && k + 1 < cap; i++)
    out[k++] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
  out[k] = '\0';
}

/* "the server answered <its error>" */
static void server_said(char *why, size_t cap, const char *what, const redisReply *reply) {
  char text[201];
  printable(text, sizeof text, reply->str, reply->len);
  snprintf(why, cap, "%s%s", what, text);
}

/* Whether an answer begins as the command's answers do ("$-" for GET,
 * "+-" for the others): anything else (an array, which hiredis would
 * allocate as the server says, up to 16 GiB for 15 bytes) is not read. */
static bool answer_begins(const char *bytes, const char *kinds, char *why, size_t cap) {
  if (*bytes && strchr(kinds, *bytes)) return true;
  char first[2];
  printable(first, sizeof first, bytes, 1);
  snprintf(why, cap, "the server's answer begins with '%s', not with one of \"%s\"", first,
           kinds);
  return false;
}

/* "<whose> answer is malformed: <hiredis's words>" */
static void malformed(char *why, size_t cap, const char *whose, const redisReader *reader) {
  char text[129];
  printable(text, sizeof text, reader->errstr, strnlen(reader->errstr, 128));
  snprintf(why, cap, "%s answer is malformed: %s", whose, text);
}

/* What a GET's reply means (see cuplug__remote_answer). */
static cuplug__remote_result read_get(const uint8_t mac_key[32], const cuplug__digest *key,
                                      const redisReply *reply, void **data, size_t *size,
                                      bool *refused, char *why, size_t cap) {
  *refused = false;
  switch (reply->type) {
    case REDIS_REPLY_NIL: return CUPLUG__REMOTE_MISS;
    case REDIS_REPLY_STRING: {
      const char *bad = NULL;
      size_t n = 0;
      const void *payload = cuplug__remote_open(mac_key, key, reply->str, reply->len, &n, &bad);
      if (!payload) {
        *refused = true;
        snprintf(why, cap, "%s", bad);
        return CUPLUG__REMOTE_SKIPPED;
      }
      if (!(*data = malloc(n ? n : 1))) {
        snprintf(why, cap, "out of memory");
        return CUPLUG__REMOTE_SKIPPED;
      }
      memcpy(*data, payload, n);
      *size = n;
      return CUPLUG__REMOTE_HIT;
    }
    case REDIS_REPLY_ERROR:
      server_said(why, cap, "the server answered ", reply);
      return CUPLUG__REMOTE_SKIPPED;
    default:
      snprintf(why, cap, "the server answered GET with %s",
               reply->type == REDIS_REPLY_ARRAY     ? "an array"
               : reply->type == REDIS_REPLY_INTEGER ? "an integer"
                                                    : "a status");
      return CUPLUG__REMOTE_SKIPPED;
  }
}

bool cuplug__remote_answer(const uint8_t mac_key[32], const cuplug__digest *key,
                           const void *bytes, size_t len, size_t chunks,
                           cuplug__remote_result *result, void **data, size_t *size,
                           bool *refused, char *why, size_t cap) {
  *result = CUPLUG__REMOTE_SKIPPED;
  *data = NULL;
  *size = 0;
  *refused = false;
  if (hiredis_missing()) return false;
  redisReader *reader = hiredis.reader_create();
  if (!reader) return false;
  size_t step = chunks ? len / chunks + 1 : len + 1, at = 0;
  void *reply = NULL;
  snprintf(why, cap, "the answer is cut short");
  bool readable = !len || answer_begins(bytes, "$-", why, cap);
  while (readable) {
    if (hiredis.reader_get_reply(reader, &reply) != REDIS_OK) {
      malformed(why, cap, "the server's", reader);
      break;
    }
    if (reply || at == len) break;
    size_t n = len - at < step ? len - at : step;
    if (hiredis.reader_feed(reader, (const char *)bytes + at, n) != REDIS_OK) break;
    at += n;
  }
  if (reply) *result = read_get(mac_key, key, reply, data, size, refused, why, cap);
  if (reply) hiredis.free_reply(reply);
  hiredis.reader_free(reader);
  return true;
}

/* ---- the server's address ---- */

typedef struct address {
  char *host;   /* a name or an address; IPv6 without its brackets */
  char port[6];
  unsigned db;
  char *user, *password; /* NULL: no AUTH */
  char *shown;  /* the URL without the password */
} address;

static void address_free(address *a) {
  free(a->host);
  free(a->user);
  if (a->password) explicit_bzero(a->password, strlen(a->password));
  free(a->password);
  free(a->shown);
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* s[0..n) with %XX decoded, or NULL when an escape is malformed. */
static char *percent_decoded(const char *s, size_t n) {
  char *out = malloc(n + 1), *o = out;
  if (!out) return NULL;
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '%') {
      *o++ = s[i];
      continue;
    }
    int hi = i + 2 < n ? hex_value(s[i + 1]) : -1;
    int lo = i + 2 < n ? hex_value(s[i + 2]) : -1;
    if (hi < 0 || lo < 0 || hi + lo == 0) { /* %00 would cut the text short */
      free(out);
      return NULL;
    }
    *o++ = (char)(hi * 16 + lo);
    i += 2;
  }
  *o = '\0';
  return out;
}

static bool all_digits(const char *s, size_t n) {
  if (!n) return false;
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

/* A URL as messages show it: printable, and what comes before its last
 * '@' (a user and password, whatever they hold) as "***". */
static void redacted(const char *url, char out[512]) {
  const char *rest = strstr(url, "://");
  rest = rest ? rest + 3 : url;
  const char *at = strrchr(rest, '@'); /* a password may hold '/', '?' or '#' */
  char head[64], tail[400];
  printable(head, sizeof head, url, (size_t)(rest - url));
  printable(tail, sizeof tail, at ? at : rest, strlen(at ? at : rest));
  snprintf(out, 512, "%s%s%s", head, at ? "***" : "", tail);
}

/* redis://[[USER]:PASSWORD@]HOST[:PORT][/DB].  NULL, or why the URL is
 * not one cuplug can use (malloc'd). */
static char *parse_url(const char *url, address *a) {
  cuplug__buf why;
  cuplug__buf_init(&why);
  const char *rest = NULL;
  if (!strncmp(url, "redis://", 8)) {
    rest = url + 8;
  } else if (!strncmp(url, "rediss://", 9)) {
    cuplug__buf_printf(&why,
                       "rediss:// (TLS) needs hiredis with TLS (hiredis_ssl, 1.0 and later); "
                       "cuplug is built with hiredis %d.%d, which has none: reach the server "
                       "through a TLS tunnel (stunnel, spiped) with redis://",
                       HIREDIS_MAJOR, HIREDIS_MINOR);
  } else {
    cuplug__buf_printf(&why, "give redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]");
  }
  if (rest) {
    const char *end = rest + strcspn(rest, "/?#");
    const char *at = NULL;
    for (const char *p = rest; p < end; p++)
      if (*p == '@') at = p;
    const char *host = at ? at + 1 : rest;
    if (strchr(end, '@')) {
      cuplug__buf_printf(&why, "a user or password that holds '/', '?' or '#' writes them "
                               "%%2F, %%3F and %%23");
    } else if (at) {
      const char *colon = memchr(rest, ':', (size_t)(at - rest));
      if (!colon) {
        cuplug__buf_printf(&why, "the part before '@' is the password: give it as "
                                 ":PASSWORD@ or USER:PASSWORD@");
      } else {
        if (colon > rest) a->user = percent_decoded(rest, (size_t)(colon - rest));
        a->password = percent_decoded(colon + 1, (size_t)(at - colon - 1));
        if ((colon > rest && !a->user) || !a->password)
          cuplug__buf_printf(&why, "the user or password has a malformed %%XX escape (or %%00)");
      }
    }
    const char *host_end = end, *port = NULL;
    if (!why.len && *host == '[') {
      const char *close = memchr(host, ']', (size_t)(end - host));
      if (!close) cuplug__buf_printf(&why, "an IPv6 address needs its closing ']'");
      else {
        a->host = cuplug__strndup(host + 1, (size_t)(close - host - 1));
        if (close + 1 < end && close[1] == ':') port = close + 2;
        else if (close + 1 < end) cuplug__buf_printf(&why, "':PORT' or '/DB' must follow ']'");
      }
    } else if (!why.len) {
      const char *colon = memchr(host, ':', (size_t)(end - host));
      if (colon) host_end = colon, port = colon + 1;
      a->host = cuplug__strndup(host, (size_t)(host_end - host));
    }
    if (!why.len && (!a->host || !*a->host)) cuplug__buf_printf(&why, "the host is missing");
    snprintf(a->port, sizeof a->port, "6379");
    if (!why.len && port) {
      size_t n = (size_t)(end - port);
      unsigned long v = all_digits(port, n) && n <= 5 ? strtoul(port, NULL, 10) : 0;
      if (v < 1 || v > 65535)
        cuplug__buf_printf(&why, "the port '%.*s' is not a number from 1 to 65535", (int)n, port);
      else
        snprintf(a->port, sizeof a->port, "%lu", v);
    }
    if (!why.len && (*end == '?' || *end == '#')) {
      cuplug__buf_printf(&why, "nothing may follow the database number (found '%c')", *end);
    } else if (!why.len && *end == '/' && end[1]) {
      size_t n = strcspn(end + 1, "?#");
      unsigned long v = all_digits(end + 1, n) && n <= 6 ? strtoul(end + 1, NULL, 10) : ULONG_MAX;
      if (v > 999999)
        cuplug__buf_printf(&why, "the database '%.*s' is not a number", (int)n, end + 1);
      else if (end[1 + n])
        cuplug__buf_printf(&why, "nothing may follow the database number (found '%c')",
                           end[1 + n]);
      else
        a->db = (unsigned)v;
    }
  }
  if (why.len) {
    char *w = cuplug__buf_take(&why, NULL);
    return w ? w : cuplug__strdup("out of memory");
  }
  cuplug__buf shown;
  cuplug__buf_init(&shown);
  bool v6 = strchr(a->host, ':') != NULL;
  char user[256], host[256];
  printable(user, sizeof user, a->user ? a->user : "", a->user ? strlen(a->user) : 0);
  printable(host, sizeof host, a->host, strlen(a->host));
  cuplug__buf_printf(&shown, "redis://%s%s%s%s%s:%s/%u", user, a->password ? ":***@" : "",
                     v6 ? "[" : "", host, v6 ? "]" : "", a->port, a->db);
  a->shown = cuplug__buf_take(&shown, NULL);
  return a->shown ? NULL : cuplug__strdup("out of memory");
}

/* ---- the remote ---- */

typedef struct conn {
  int fd;
  redisReader *reader;
  size_t received; /* bytes read since it was pooled */
  uint64_t idle_since; /* when it was pooled */
} conn;

/* A pooled connection idle longer than this is closed rather than used: a
 * NAT or a load balancer may have dropped it without a word, and a call
 * on it would wait out its whole time limit. */
#define IDLE_NS (30ull * 1000000000u)

typedef struct lookup lookup;

#define POOL 8     /* idle connections kept */
#define STATUSES 32 /* distinct failure statuses kept (cache_info's strings live on) */

struct cuplug__remote {
  address at;
  uint8_t mac_key[32];
  char *unused;          /* why the remote is not used at all, or NULL */
  uint32_t timeout_ms, retry_ms, ttl_s;
  uint64_t max_entry;
  pthread_mutex_t lock;
  pid_t pid;             /* the process the pooled connections belong to */
  conn *idle[POOL];
  int num_idle;
  uint64_t down_until;   /* CLOCK_MONOTONIC ns: set aside until then */
  const char *status;    /* "ok", `unused`, or one of `statuses` */
  char *statuses[STATUSES];
  int num_statuses;
  bool asked;            /* a call has gone to the server */
  bool told_unused, told_failed, told_refused;
  uint64_t hits, misses, stores, refused, errors;
};

/* A whole number from the environment, when the option is 0. */
static char *number_option(uint32_t given, const char *env, uint32_t fallback, uint32_t max,
                           const char *unit, uint32_t *out) {
  const char *v = getenv(env);
  *out = given ? given : fallback;
  if (given || !v || !*v) return NULL;
  char *end;
  errno = 0;
  unsigned long n = strtoul(v, &end, 10);
  if (*end || errno || n > max || v[0] == '-') {
    cuplug__buf b;
    cuplug__buf_init(&b);
    cuplug__buf_printf(&b, "%s '%s' is not a number of %s from 0 to %u", env, v, unit, max);
    return cuplug__buf_take(&b, NULL);
  }
  *out = n ? (uint32_t)n : fallback;
  return NULL;
}

/* The key file: the user's or root's, at least 16 bytes, and no one else's
 * to change or (outside its group) to read.  NULL, or why it is not used. */
static char *load_key(const char *path, uint8_t mac_key[32]) {
  cuplug__buf why;
  cuplug__buf_init(&why);
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO does not wait */
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    cuplug__buf_printf(&why, "the key file %s cannot be read: %s", path, strerror(errno));
  } else if (!S_ISREG(st.st_mode)) {
    cuplug__buf_printf(&why, "the key file %s is not a file", path);
  } else if (st.st_uid != geteuid() && st.st_uid != 0) {
    cuplug__buf_printf(&why, "the key file %s is owned by uid %lu, not you", path,
                       (unsigned long)st.st_uid);
  } else if (st.st_mode & (S_IWGRP | S_IWOTH | S_IROTH)) {
    cuplug__buf_printf(&why,
                       "the key file %s is %s by others (mode %04o), who could then sign "
                       "entries: chmod 600 (or 640) it",
                       path, st.st_mode & (S_IWGRP | S_IWOTH) ? "writable" : "readable",
                       (unsigned)(st.st_mode & 07777));
  } else if (st.st_size < 16 || st.st_size > 4096) {
    cuplug__buf_printf(&why,
                       "the key file %s holds %lld bytes; a key is 16 to 4096 random bytes "
                       "(head -c 32 /dev/urandom > %s)",
                       path, (long long)st.st_size, path);
  } else {
    uint8_t bytes[4096];
    ssize_t n = read(fd, bytes, (size_t)st.st_size);
    if (n != st.st_size)
      cuplug__buf_printf(&why, "the key file %s cannot be read: %s", path,
                         n < 0 ? strerror(errno) : "it changed while it was read");
    else
      cuplug__remote_mac_key(bytes, (size_t)n, mac_key);
    explicit_bzero(bytes, sizeof bytes);
  }
  if (fd >= 0) close(fd);
  return why.len ? cuplug__buf_take(&why, NULL) : NULL;
}

cuplug_error *cuplug__remote_create(const cuplug__remote_options *o, cuplug__remote **out) {
  *out = NULL;
  const char *url = o->url ? o->url : getenv("CUPLUG_CACHE_REMOTE");
  const char *from = o->url ? "cache_remote" : "CUPLUG_CACHE_REMOTE";
  if (!url || !*url) return NULL;
  cuplug__remote *r = calloc(1, sizeof *r);
  if (!r) return cuplug__error_oom();
  pthread_mutex_init(&r->lock, NULL);
  r->pid = getpid();
  r->status = "ok";
  char *why = parse_url(url, &r->at);
  uint32_t retry_ms = 0, max_mb = 0;
  if (!why)
    why = number_option(o->timeout_ms, "CUPLUG_CACHE_REMOTE_TIMEOUT_MS",
                        CUPLUG__REMOTE_DEFAULT_TIMEOUT_MS, 600000, "milliseconds",
                        &r->timeout_ms);
  if (!why)
    why = number_option(0, "CUPLUG_CACHE_REMOTE_RETRY_MS", CUPLUG__REMOTE_DEFAULT_RETRY_MS,
                        3600000, "milliseconds", &retry_ms);
  if (!why) why = number_option(o->ttl_s, "CUPLUG_CACHE_REMOTE_TTL", 0, UINT32_MAX / 2,
                                "seconds", &r->ttl_s);
  if (!why)
    why = number_option(0, "CUPLUG_CACHE_REMOTE_MAX_ENTRY_MB", 0, 512, "MiB", &max_mb);
  if (!why && o->timeout_ms > 600000)
    why = cuplug__strdup("cache_remote_timeout_ms is above 600000 (ten minutes)");
  if (!why && o->max_entry_bytes > (512ull << 20))
    why = cuplug__strdup("cache_remote_max_entry_bytes is above 512 MiB (the most Redis keeps)");
  if (why) {
    char shown[512];
    redacted(url, shown);
    cuplug_error *e = cuplug__error(CUPLUG_ERR_OPTION_CACHE_REMOTE, "%s '%s': %s", from,
                                    r->at.shown ? r->at.shown : shown, why);
    free(why);
    cuplug__remote_destroy(r);
    return e;
  }
  r->retry_ms = retry_ms;
  r->max_entry = o->max_entry_bytes ? o->max_entry_bytes
                 : max_mb           ? (uint64_t)max_mb << 20
                                    : CUPLUG__REMOTE_DEFAULT_MAX_ENTRY;
  const char *key = o->key_path ? o->key_path : getenv("CUPLUG_CACHE_REMOTE_KEY");
  const char *missing = hiredis_missing();
  if (missing) r->unused = cuplug__strdup(missing);
  else if (!key || !*key)
    r->unused = cuplug__strdup(
        "no key: entries are signed with a key the fleet shares (CUPLUG_CACHE_REMOTE_KEY, "
        "a file of at least 16 random bytes), and without one nothing is read or written");
  else
    r->unused = load_key(key, r->mac_key);
  if (r->unused) r->status = r->unused;
  *out = r;
  return NULL;
}

static void conn_close(conn *c) {
  if (!c) return;
  if (c->fd >= 0) close(c->fd);
  if (c->reader) hiredis.reader_free(c->reader);
  free(c);
}

void cuplug__remote_destroy(cuplug__remote *r) {
  if (!r) return;
  for (int i = 0; i < r->num_idle; i++) conn_close(r->idle[i]);
  for (int i = 0; i < r->num_statuses; i++) free(r->statuses[i]);
  address_free(&r->at);
  free(r->unused);
  explicit_bzero(r->mac_key, sizeof r->mac_key);
  pthread_mutex_destroy(&r->lock);
  free(r);
}

/* ---- one call's socket, by a deadline ---- */

static int ms_until(uint64_t deadline, uint64_t now) {
  uint64_t ms = (deadline - now + 999999) / 1000000;
  return ms > INT_MAX ? INT_MAX : (int)ms;
}

/* Waits for `events` until the deadline; false (errno ETIMEDOUT) past it. */
static bool wait_for(int fd, short events, uint64_t deadline) {
  for (;;) {
    uint64_t now = cuplug__now_ns();
    if (now >= deadline) {
      errno = ETIMEDOUT;
      return false;
    }
    struct pollfd p = {.fd = fd, .events = events};
    int n = poll(&p, 1, ms_until(deadline, now));
    if (n > 0) return true; /* readiness, or an error the next call reports */
    if (n < 0 && errno != EINTR) return false;
  }
}

/* The server's addresses, by the deadline: an address as it is; a name
 * looked up on a thread of its own, which the call waits for until the
 * deadline (the resolver's own time limits are seconds).  A look-up that
 * outlives its call finishes alone and frees itself: nothing of it is
 * shared with the remote, and a forked child, which has no such thread,
 * starts its own (glibc's getaddrinfo_a keeps idle threads that a child
 * inherits the count of, not the threads). */
struct lookup {
  pthread_mutex_t lock;
  pthread_cond_t done_cond; /* on CLOCK_MONOTONIC, the deadline's clock */
  int refs;                 /* the thread's and the caller's */
  bool done;
  int rc, err; /* getaddrinfo's, and its errno (the thread's own) */
  struct addrinfo *result;
  char *name, service[8];
};

static void lookup_release(lookup *l) {
  pthread_mutex_lock(&l->lock);
  bool last = --l->refs == 0;
  pthread_mutex_unlock(&l->lock);
  if (!last) return;
  if (l->result) freeaddrinfo(l->result);
  pthread_cond_destroy(&l->done_cond);
  pthread_mutex_destroy(&l->lock);
  free(l->name);
  free(l);
}

static void *look_up(void *arg) {
  lookup *l = arg;
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                           .ai_flags = AI_NUMERICSERV};
  struct addrinfo *found = NULL;
  int rc = getaddrinfo(l->name, l->service, &hints, &found);
  int err = errno;
  pthread_mutex_lock(&l->lock);
  l->rc = rc;
  l->err = err;
  l->result = rc ? NULL : found;
  l->done = true;
  pthread_cond_signal(&l->done_cond);
  pthread_mutex_unlock(&l->lock);
  lookup_release(l);
  return NULL;
}

static struct addrinfo *resolve(const cuplug__remote *r, uint64_t deadline, char *why,
                                size_t cap) {
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                           .ai_flags = AI_NUMERICSERV | AI_NUMERICHOST};
  struct addrinfo *found = NULL;
  if (getaddrinfo(r->at.host, r->at.port, &hints, &found) == 0) return found;
  lookup *l = calloc(1, sizeof *l);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  if (l && (l->name = cuplug__strdup(r->at.host))) {
    pthread_mutex_init(&l->lock, NULL);
    pthread_cond_init(&l->done_cond, &ca);
    snprintf(l->service, sizeof l->service, "%s", r->at.port);
    l->refs = 2;
  }
  pthread_condattr_destroy(&ca);
  pthread_attr_t ta;
  pthread_attr_init(&ta);
  pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&ta, 256 << 10);
  pthread_t t;
  int err = l && l->name ? pthread_create(&t, &ta, look_up, l) : ENOMEM;
  pthread_attr_destroy(&ta);
  if (err) {
    snprintf(why, cap, "%s cannot be looked up: %s", r->at.host, strerror(err));
    if (l && l->name) l->refs = 1, lookup_release(l);
    else if (l) free(l);
    return NULL;
  }
  struct timespec until = {.tv_sec = (time_t)(deadline / 1000000000u),
                           .tv_nsec = (long)(deadline % 1000000000u)};
  pthread_mutex_lock(&l->lock);
  while (!l->done && pthread_cond_timedwait(&l->done_cond, &l->lock, &until) != ETIMEDOUT) {
  }
  if (l->done) {
    found = l->result;
    l->result = NULL; /* the caller's now */
    if (!found)
      snprintf(why, cap, "%s cannot be found: %s", r->at.host,
               l->rc == EAI_SYSTEM ? strerror(l->err) : gai_strerror(l->rc));
  } else {
    snprintf(why, cap, "%s was not found within %u ms", r->at.host, r->timeout_ms);
  }
  pthread_mutex_unlock(&l->lock);
  lookup_release(l);
  return found;
}

static int dial(const cuplug__remote *r, uint64_t deadline, char *why, size_t cap) {
  struct addrinfo *found = resolve(r, deadline, why, cap);
  if (!found) return -1;
  int fd = -1, err = 0;
  for (struct addrinfo *ai = found; ai && fd < 0; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
      err = errno;
      if (err == EINPROGRESS) {
        socklen_t len = sizeof err;
        if (!wait_for(fd, POLLOUT, deadline)) err = errno;
        else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
      }
      if (err) {
        close(fd);
        fd = -1;
      }
    }
  }
  freeaddrinfo(found);
  if (fd < 0) {
    snprintf(why, cap, "cannot connect to %s:%s: %s", r->at.host, r->at.port,
             err == ETIMEDOUT ? "no answer in time" : strerror(err));
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

static bool send_all(int fd, const char *p, size_t n, uint64_t deadline) {
  while (n) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL); /* a dropped connection is an error, not SIGPIPE */
    if (w > 0) {
      p += w;
      n -= (size_t)w;
    } else if (w < 0 && errno == EINTR) {
      continue;
    } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_for(fd, POLLOUT, deadline)) return false;
    } else {
      return false;
    }
  }
  return true;
}

typedef enum {
  SENT_OK,
  SENT_STALE,   /* the connection was found closed before any of the reply came (a pooled
                   one the server dropped) */
  SENT_TOO_BIG, /* GET's value is larger than the limit: not read */
  SENT_FAILED
} sent;

/* The length a bulk reply announces ("$N\r\n"), once its first line is in
 * `buf`; -1 before that or for another reply. */
static long long announced(const char *buf, size_t n) {
  const char *line_end = n ? memchr(buf, '\n', n) : NULL;
  if (!line_end || buf[0] != '$') return -1;
  long long size = 0;
  for (const char *p = buf + 1; p < line_end && *p >= '0' && *p <= '9'; p++) {
    if (size > (LLONG_MAX - 9) / 10) return LLONG_MAX;
    size = size * 10 + (*p - '0');
  }
  return size; /* "$-1": nil, 0 here; hiredis reads what is not a number */
}

/* Sends one command and reads its reply by the deadline: an answer must
 * begin with one of `kinds`, and be at most `limit` bytes. */
static sent run(const cuplug__remote *r, conn *c, int argc, const char **argv,
                const size_t *lens, const char *kinds, uint64_t deadline, size_t limit,
                redisReply **reply, char *why, size_t cap) {
  *reply = NULL;
  if (c->reader->pos != c->reader->len) { /* bytes after the last reply (AUTH's, SELECT's) */
    snprintf(why, cap, "%s:%s answered more than it was asked", r->at.host, r->at.port);
    return SENT_FAILED;
  }
  char *command = NULL;
  int n = hiredis.format_argv(&command, argc, argv, lens);
  if (n < 0) {
    snprintf(why, cap, "out of memory");
    return SENT_FAILED;
  }
  bool sent_ok = send_all(c->fd, command, (size_t)n, deadline);
  int err = errno;
  hiredis.free_command(command);
  if (!sent_ok) {
    snprintf(why, cap, "%s:%s: %s", r->at.host, r->at.port,
             err == ETIMEDOUT ? "the command could not be sent in time" : strerror(err));
    return err == EPIPE || err == ECONNRESET ? SENT_STALE : SENT_FAILED;
  }
  char buf[16384], head[32];
  size_t got = 0;
  for (;;) {
    void *answer = NULL;
    if (got && hiredis.reader_get_reply(c->reader, &answer) != REDIS_OK) {
      malformed(why, cap, "the server's", c->reader);
      return SENT_FAILED;
    }
    if (answer) {
      *reply = answer;
      c->received += got;
      return SENT_OK;
    }
    uint64_t now = cuplug__now_ns();
    err = 0;
    ssize_t k = now >= deadline ? (errno = ETIMEDOUT, -1) : recv(c->fd, buf, sizeof buf, 0);
    if (k > 0) {
      if (!got && !answer_begins(buf, kinds, why, cap)) return SENT_FAILED;
      if (got < sizeof head) /* the first line, to see how long a value is before taking it */
        memcpy(head + got, buf, (size_t)k < sizeof head - got ? (size_t)k : sizeof head - got);
      got += (size_t)k;
      long long size = announced(head, got < sizeof head ? got : sizeof head);
      if (size > (long long)limit) {
        snprintf(why, cap, "a value of %lld bytes, above the limit of %zu", size, limit);
        return SENT_TOO_BIG;
      }
      /* a value's length fits the head, and a status or an error is a line
       * (hiredis rescans a line for its end with every piece) */
      if ((head[0] == '$' && got >= sizeof head && size < 0) ||
          (head[0] != '$' && got > 4096)) {
        snprintf(why, cap, "%s:%s's answer is malformed: its first line runs on", r->at.host,
                 r->at.port);
        return SENT_FAILED;
      }
      if (got > limit + 64) {
        snprintf(why, cap, "%s:%s's answer runs past %zu bytes", r->at.host, r->at.port, limit);
        return SENT_FAILED;
      }
      if (hiredis.reader_feed(c->reader, buf, (size_t)k) != REDIS_OK) {
        snprintf(why, cap, "out of memory");
        return SENT_FAILED;
      }
      continue;
    }
    err = k == 0 ? 0 : errno;
    if (k < 0 && err == EINTR) continue;
    if (k < 0 && (err == EAGAIN || err == EWOULDBLOCK)) {
      if (wait_for(c->fd, POLLIN, deadline)) continue;
      err = errno;
    }
    if (err == ETIMEDOUT)
      snprintf(why, cap, "no answer from %s:%s within %u ms", r->at.host, r->at.port,
               r->timeout_ms);
    else if (!err)
      snprintf(why, cap, "%s:%s closed the connection", r->at.host, r->at.port);
    else
      snprintf(why, cap, "%s:%s: %s", r->at.host, r->at.port, strerror(err));
    return !got && (!err || err == ECONNRESET) ? SENT_STALE : SENT_FAILED;
  }
}

/* A command whose reply must be +OK (AUTH, SELECT) on a new connection. */
static bool say(const cuplug__remote *r, conn *c, int argc, const char **argv,
                uint64_t deadline, const char *what, char *why, size_t cap) {
  size_t lens[3];
  for (int i = 0; i < argc; i++) lens[i] = strlen(argv[i]);
  redisReply *reply;
  if (run(r, c, argc, argv, lens, "+-", deadline, 4096, &reply, why, cap) != SENT_OK)
    return false;
  bool ok = reply->type == REDIS_REPLY_STATUS;
  if (!ok) {
    char said[256];
    snprintf(said, sizeof said, "%s:%s refused %s: ", r->at.host, r->at.port, what);
    server_said(why, cap, said, reply);
  }
  hiredis.free_reply(reply);
  return ok;
}

static conn *connect_new(const cuplug__remote *r, uint64_t deadline, char *why, size_t cap) {
  conn *c = calloc(1, sizeof *c);
  if (!c || !(c->reader = hiredis.reader_create())) {
    free(c);
    snprintf(why, cap, "out of memory");
    return NULL;
  }
  c->fd = dial(r, deadline, why, cap);
  bool ok = c->fd >= 0;
  if (ok && r->at.password) {
    const char *auth[3] = {"AUTH", r->at.user ? r->at.user : r->at.password, r->at.password};
    ok = say(r, c, r->at.user ? 3 : 2, auth, deadline, "the password (AUTH)", why, cap);
  }
  if (ok && r->at.db) {
    char db[16];
    snprintf(db, sizeof db, "%u", r->at.db);
    const char *select[2] = {"SELECT", db};
    ok = say(r, c, 2, select, deadline, "the database (SELECT)", why, cap);
  }
  if (!ok) {
    conn_close(c);
    return NULL;
  }
  return c;
}

/* A pooled connection, or NULL (then the caller makes one). */
static conn *take_idle(cuplug__remote *r) {
  pthread_mutex_lock(&r->lock);
  if (r->pid != getpid()) { /* a forked child: its parent's connections are not its own */
    for (int i = 0; i < r->num_idle; i++) conn_close(r->idle[i]);
    r->num_idle = 0;
    r->pid = getpid();
  }
  conn *c = r->num_idle ? r->idle[--r->num_idle] : NULL;
  conn *old[POOL];
  int num_old = 0;
  if (c && cuplug__now_ns() - c->idle_since > IDLE_NS) { /* the newest is stale: all are */
    old[num_old++] = c;
    while (r->num_idle) old[num_old++] = r->idle[--r->num_idle];
    c = NULL;
  }
  pthread_mutex_unlock(&r->lock);
  for (int i = 0; i < num_old; i++) conn_close(old[i]);
  return c;
}

/* Pools a connection whose reply was whole: not one with bytes after its
 * reply (a server that answered more than it was asked), and with a fresh
 * reader after a large value (the reader keeps its buffer). */
static void put_idle(cuplug__remote *r, conn *c) {
  char extra;
  bool clean = c->reader->pos == c->reader->len &&
               recv(c->fd, &extra, 1, MSG_PEEK | MSG_DONTWAIT) < 0 &&
               (errno == EAGAIN || errno == EWOULDBLOCK);
  if (clean && c->received > 65536) {
    hiredis.reader_free(c->reader);
    c->reader = hiredis.reader_create();
    clean = c->reader != NULL;
  }
  c->received = 0;
  c->idle_since = cuplug__now_ns();
  pthread_mutex_lock(&r->lock);
  if (clean && r->num_idle < POOL && r->pid == getpid()) r->idle[r->num_idle++] = c, c = NULL;
  pthread_mutex_unlock(&r->lock);
  conn_close(c);
}

/* One command, by one deadline: on a pooled connection, or a new one when
 * there is none or the pooled one turns out to be closed.  A reply (the
 * caller frees it; error replies too), or NULL and *why (*too_big: a value
 * above the limit, not read). */
static redisReply *call(cuplug__remote *r, int argc, const char **argv, const size_t *lens,
                        const char *kinds, size_t limit, bool *too_big, char *why, size_t cap) {
  uint64_t deadline = cuplug__now_ns() + (uint64_t)r->timeout_ms * 1000000u;
  *too_big = false;
  for (;;) {
    conn *c = take_idle(r);
    bool pooled = c != NULL;
    if (!c && !(c = connect_new(r, deadline, why, cap))) return NULL;
    redisReply *reply;
    sent s = run(r, c, argc, argv, lens, kinds, deadline, limit, &reply, why, cap);
    if (s == SENT_OK) {
      put_idle(r, c);
      return reply;
    }
    conn_close(c);
    *too_big = s == SENT_TOO_BIG;
    if (s != SENT_STALE || !pooled) return NULL;
  }
}

/* ---- state ---- */

/* Whether a call may go to the server now; says once why the remote is not
 * used at all. */
static bool usable(cuplug__remote *r, cuplug_error **note) {
  pthread_mutex_lock(&r->lock);
  bool ok = !r->unused && cuplug__now_ns() >= r->down_until;
  r->asked |= ok;
  if (r->unused && !r->told_unused && note && !*note) {
    r->told_unused = true;
    *note = cuplug__error(CUPLUG_WARN_CACHE, "cuplug's remote cache %s is not used: %s",
                          r->at.shown, r->unused);
  }
  pthread_mutex_unlock(&r->lock);
  return ok;
}

/* A status kept for the session's life (cache_info hands it out). */
static const char *kept_status(cuplug__remote *r, const char *text) {
  for (int i = 0; i < r->num_statuses; i++)
    if (!strcmp(r->statuses[i], text)) return r->statuses[i];
  if (r->num_statuses == STATUSES) return "failing (see remote_errors)";
  char *s = cuplug__strdup(text);
  if (!s) return "failing (out of memory)";
  r->statuses[r->num_statuses++] = s;
  return s;
}

/* A call failed: the server is set aside for retry_ms. */
static void failed(cuplug__remote *r, const char *why, cuplug_error **note) {
  char status[512];
  snprintf(status, sizeof status, "set aside after a failure: %s", why);
  pthread_mutex_lock(&r->lock);
  r->errors++;
  r->down_until = cuplug__now_ns() + (uint64_t)r->retry_ms * 1000000u;
  r->status = kept_status(r, status);
  if (!r->told_failed && note && !*note) {
    r->told_failed = true;
    *note = cuplug__error(CUPLUG_WARN_CACHE,
                          "cuplug's remote cache %s failed: %s; compiles go on without it, "
                          "and it is tried again in %u ms",
                          r->at.shown, why, r->retry_ms);
  }
  pthread_mutex_unlock(&r->lock);
}

static void answered(cuplug__remote *r, uint64_t *counter) {
  pthread_mutex_lock(&r->lock);
  if (counter) (*counter)++;
  if (cuplug__now_ns() >= r->down_until) r->status = "ok"; /* not while another call's
                                                               failure sets it aside */
  pthread_mutex_unlock(&r->lock);
}

/* ---- the calls ---- */

cuplug__remote_result cuplug__remote_get(cuplug__remote *r, const cuplug__digest *key,
                                         void **data, size_t *size, cuplug_error **note) {
  *data = NULL;
  *size = 0;
  if (!r || !usable(r, note)) return CUPLUG__REMOTE_SKIPPED;
  char name[80], why[512];
  cuplug__remote_name(key, name);
  const char *argv[2] = {"GET", name};
  size_t lens[2] = {3, strlen(name)};
  bool too_big;
  redisReply *reply = call(r, 2, argv, lens, "$-", (size_t)r->max_entry + CUPLUG__REMOTE_HEADER,
                           &too_big, why, sizeof why);
  if (too_big) { /* a peer with a larger limit stored it: a miss here, not a fault */
    answered(r, &r->misses);
    return CUPLUG__REMOTE_MISS;
  }
  if (!reply) {
    failed(r, why, note);
    return CUPLUG__REMOTE_SKIPPED;
  }
  bool refused;
  cuplug__remote_result got =
      read_get(r->mac_key, key, reply, data, size, &refused, why, sizeof why);
  hiredis.free_reply(reply);
  if (got == CUPLUG__REMOTE_HIT) answered(r, &r->hits);
  else if (got == CUPLUG__REMOTE_MISS) answered(r, &r->misses);
  else if (!refused) failed(r, why, note);
  else {
    answered(r, &r->refused); /* the server answers: its status is ok */
    pthread_mutex_lock(&r->lock);
    if (!r->told_refused && note && !*note) {
      r->told_refused = true;
      *note = cuplug__error(CUPLUG_WARN_CACHE,
                            "cuplug's remote cache %s holds an entry %s that is not used: %s; "
                            "it is rebuilt",
                            r->at.shown, name, why);
    }
    pthread_mutex_unlock(&r->lock);
    return CUPLUG__REMOTE_MISS;
  }
  return got;
}

void cuplug__remote_put(cuplug__remote *r, const cuplug__digest *key, const void *data,
                        size_t size, cuplug_error **note) {
  if (!r || size > r->max_entry || !usable(r, note)) return;
  cuplug__buf value;
  cuplug__buf_init(&value);
  cuplug__remote_seal(r->mac_key, key, data, size, &value);
  if (value.oom) {
    cuplug__buf_free(&value);
    return;
  }
  char name[80], ttl[16], why[512];
  cuplug__remote_name(key, name);
  snprintf(ttl, sizeof ttl, "%u", r->ttl_s);
  const char *argv[5] = {"SET", name, value.data, "EX", ttl};
  size_t lens[5] = {3, strlen(name), value.len, 2, strlen(ttl)};
  bool too_big;
  redisReply *reply =
      call(r, r->ttl_s ? 5 : 3, argv, lens, "+-", 4096, &too_big, why, sizeof why);
  cuplug__buf_free(&value);
  if (reply && reply->type != REDIS_REPLY_STATUS) {
    server_said(why, sizeof why, "the server answered SET with ", reply);
    hiredis.free_reply(reply);
    reply = NULL;
  }
  if (!reply) {
    failed(r, why, note);
    return;
  }
  hiredis.free_reply(reply);
  answered(r, &r->stores);
}

void cuplug__remote_info(cuplug__remote *r, cuplug_cache_info *info) {
  if (!r) {
    info->remote = "";
    info->remote_status = "off";
    info->remote_hits = info->remote_misses = info->remote_stores = 0;
    info->remote_refused = info->remote_errors = 0;
    return;
  }
  pthread_mutex_lock(&r->lock);
  bool ask = !r->asked;
  pthread_mutex_unlock(&r->lock);
  if (ask && usable(r, NULL)) { /* no call yet: whether the server answers */
    char why[512];
    const char *argv[1] = {"PING"};
    size_t lens[1] = {4};
    bool too_big;
    redisReply *reply = call(r, 1, argv, lens, "+-", 4096, &too_big, why, sizeof why);
    if (reply && reply->type == REDIS_REPLY_ERROR)
      server_said(why, sizeof why, "the server answered ", reply);
    if (reply && reply->type != REDIS_REPLY_ERROR) answered(r, NULL);
    else failed(r, why, NULL);
    if (reply) hiredis.free_reply(reply);
  }
  pthread_mutex_lock(&r->lock);
  info->remote = r->at.shown;
  info->remote_status = r->status;
  info->remote_hits = r->hits;
  info->remote_misses = r->misses;
  info->remote_stores = r->stores;
  info->remote_refused = r->refused;
  info->remote_errors = r->errors;
  pthread_mutex_unlock(&r->lock);
}
