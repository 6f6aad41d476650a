/* test_remote.c - the remote tier of the result cache, against a Redis
 * server each test starts: hits across processes, entries tampered with,
 * a server that hangs or dies and comes back, no key, eight processes at
 * once; and its parts without a server: values sealed and opened, what a
 * server's answer means, URLs and key files. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "plugin/cache/remote.h"
#include "redis.h"
#include "support.h"

static char dir[256], key_path[300];
static t_redis server;

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f) {
  (void)st, (void)flag, (void)f;
  return remove(path);
}

static void write_file(const char *path, const void *bytes, size_t n, mode_t mode) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, bytes, n), (ssize_t)n);
  ck_assert_int_eq(fchmod(fd, mode), 0);
  close(fd);
}

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/cuplug-remote-test-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(key_path, sizeof key_path, "%s/key", dir);
  uint8_t key[32];
  for (int i = 0; i < 32; i++) key[i] = (uint8_t)(i * 37 + 11);
  write_file(key_path, key, sizeof key, 0600);
  unsetenv("CUPLUG_CACHE_REMOTE");
  unsetenv("CUPLUG_CACHE_REMOTE_KEY");
  unsetenv("CUPLUG_CACHE_REMOTE_RETRY_MS");
  unsetenv("CUPLUG_CACHE_REMOTE_TIMEOUT_MS");
  server = (t_redis){0};
}

static void setup_server(void) {
  setup();
  ck_assert(t_redis_start(&server, NULL));
}

static void teardown(void) {
  if (server.pid) kill(server.pid, SIGCONT);
  t_redis_stop(&server);
  nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- sessions and compiles ---- */

typedef struct remote_opts {
  const char *url, *key; /* NULL: the server's and the test's key; "" : none */
  uint32_t timeout_ms, ttl_s;
  uint64_t max_entry;
} remote_opts;

static cuplug_session_options options_for(const char *folder, const remote_opts *r) {
  static char sub[400];
  snprintf(sub, sizeof sub, "%s/%s", dir, folder);
  return (cuplug_session_options){
      .struct_size = CUPLUG_SESSION_OPTIONS_STRUCT_SIZE,
      .cache_dir = sub,
      .cache_remote = r && r->url ? r->url : server.url,
      .cache_remote_key = r && r->key ? (*r->key ? r->key : NULL) : key_path,
      /* seconds, where the test is not about time: a loaded machine is slow */
      .cache_remote_timeout_ms = r && r->timeout_ms ? r->timeout_ms : 5000,
      .cache_remote_ttl_s = r ? r->ttl_s : 0,
      .cache_remote_max_entry_bytes = r ? r->max_entry : 0};
}

/* A session whose disk cache is DIR/folder and whose remote is the
 * test's server (as `r` changes it). */
static cuplug_session *session_at(const char *folder, const remote_opts *r) {
  cuplug_session_options o = options_for(folder, r);
  cuplug_session *s = NULL;
  T_ASSERT_OK(t_api()->session_create(&o, &s));
  return s;
}

static cuplug_cache_info info_of(cuplug_session *s) {
  cuplug_cache_info i = {.struct_size = CUPLUG_CACHE_INFO_STRUCT_SIZE, .session = s};
  T_ASSERT_OK(t_api()->cache_info(&i));
  return i;
}

typedef struct result {
  cuplug_cache_result cache;
  char *bytes; /* the LTO-IR */
  size_t size;
  char *warning; /* the first warning's message, or NULL */
  uint64_t look_up_ns;
} result;

static void result_free(result *r) {
  free(r->bytes);
  free(r->warning);
}

/* Kernel k at -opt `opt` to LTO-IR (no Check asserts: children call it). */
static int try_compile(cuplug_session *s, const t_kernel *k, int32_t opt, result *out) {
  *out = (result){0};
  cuplug_compile_args a = {0};
  cuplug_error *e = t_try_compile_kernel(s, k, CUPLUG_OUTPUT_LTOIR, opt, 0, &a.artifact);
  if (e) {
    fprintf(stderr, "compile: %s\n", t_api()->error_message(e));
    t_api()->error_destroy(e);
    return -1;
  }
  cuplug_artifact_info i = {.struct_size = sizeof i};
  t_api()->error_destroy(t_api()->artifact_info(a.artifact, &i));
  out->cache = i.cache;
  out->bytes = malloc(i.size);
  memcpy(out->bytes, i.data, i.size);
  out->size = i.size;
  if (i.num_warnings)
    out->warning = strdup(t_api()->error_message(t_api()->artifact_warning(a.artifact, 0)));
  for (size_t n = 0; n < i.num_stages; n++) {
    cuplug_artifact_stage_args st = {.struct_size = sizeof st, .artifact = a.artifact, .index = n};
    t_api()->error_destroy(t_api()->artifact_stage(&st));
    if (st.name && !strcmp(st.name, "look_up")) out->look_up_ns = st.nanoseconds;
  }
  t_api()->artifact_destroy(a.artifact);
  return 0;
}

static result compile(cuplug_session *s, const t_kernel *k, int32_t opt) {
  result r;
  ck_assert_int_eq(try_compile(s, k, opt, &r), 0);
  return r;
}

/* The result built afresh, with no cache at all. */
static result reference(const t_kernel *k, int32_t opt) {
  cuplug_session_options o = {.struct_size = sizeof o, .flags = CUPLUG_SESSION_NO_CACHE};
  cuplug_session *s = NULL;
  T_ASSERT_OK(t_api()->session_create(&o, &s));
  result r = compile(s, k, opt);
  t_api()->session_destroy(s);
  ck_assert_int_eq(r.cache, CUPLUG_CACHE_NONE);
  return r;
}

static void assert_same(const result *a, const result *b) {
  ck_assert_uint_eq(a->size, b->size);
  ck_assert_mem_eq(a->bytes, b->bytes, a->size);
}

/* The names the server holds, one a line after "*N". */
static char *names_held(void) { return t_redis_do(&server, "KEYS", "cuplug:*", NULL); }

/* ---- values ---- */

START_TEST(values_seal_and_open) {
  uint8_t mac[32], other_mac[32];
  cuplug__remote_mac_key("0123456789abcdef", 16, mac);
  cuplug__remote_mac_key("0123456789abcdeF", 16, other_mac);
  cuplug__digest key = cuplug__digest_of("a key", 5), other = cuplug__digest_of("b key", 5);
  cuplug__buf v;
  cuplug__buf_init(&v);
  cuplug__remote_seal(mac, &key, "the payload", 11, &v);
  ck_assert_uint_eq(v.len, CUPLUG__REMOTE_HEADER + 11);
  ck_assert_mem_eq(v.data, "CUPLUGR\1", 8);
  size_t size = 0;
  const char *why = NULL;
  const char *p = cuplug__remote_open(mac, &key, v.data, v.len, &size, &why);
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_eq(size, 11);
  ck_assert_mem_eq(p, "the payload", 11);
  ck_assert_ptr_null(cuplug__remote_open(other_mac, &key, v.data, v.len, &size, &why));
  ck_assert_str_eq(why, "its tag does not verify (changed, or sealed with another key)");
  ck_assert_ptr_null(cuplug__remote_open(mac, &other, v.data, v.len, &size, &why));
  ck_assert_str_eq(why, "filed under another key");
  ck_assert_ptr_null(cuplug__remote_open(mac, &key, v.data, v.len - 1, &size, &why));
  ck_assert_str_eq(why, "cut short or padded (its size does not match)");
  ck_assert_ptr_null(cuplug__remote_open(mac, &key, v.data, 79, &size, &why));
  ck_assert_str_eq(why, "not a cuplug entry");
  ck_assert_ptr_null(cuplug__remote_open(mac, &key, "garbage", 7, &size, &why));
  ck_assert_str_eq(why, "not a cuplug entry");
  /* every byte counts: a flip anywhere is seen */
  for (size_t i = 0; i < v.len; i++) {
    v.data[i] ^= 0x20;
    ck_assert_msg(!cuplug__remote_open(mac, &key, v.data, v.len, &size, &why),
                  "a flip of byte %zu went unseen", i);
    v.data[i] ^= 0x20;
  }
  v.data[7] = 2;
  ck_assert_ptr_null(cuplug__remote_open(mac, &key, v.data, v.len, &size, &why));
  ck_assert_str_eq(why, "written in another format");
  cuplug__buf_free(&v);
  char name[80];
  cuplug__remote_name(&key, name);
  char hex[65];
  cuplug__digest_hex(&key, hex);
  ck_assert_str_eq(name + strlen("cuplug:1:"), hex);
  ck_assert_mem_eq(name, "cuplug:1:", 9);
}
END_TEST

/* What the server's answer to GET means, as it comes in. */
static cuplug__remote_result answer(const uint8_t mac[32], const cuplug__digest *key,
                                    const char *bytes, size_t len, size_t chunks, char **data,
                                    size_t *size, bool *refused, char *why) {
  cuplug__remote_result r;
  ck_assert(cuplug__remote_answer(mac, key, bytes, len, chunks, &r, (void **)data, size,
                                  refused, why, 256));
  return r;
}

START_TEST(answers) {
  uint8_t mac[32];
  cuplug__remote_mac_key("0123456789abcdef", 16, mac);
  cuplug__digest key = cuplug__digest_of("a key", 5);
  char *data, why[256];
  size_t size;
  bool refused;
  ck_assert_int_eq(answer(mac, &key, "$-1\r\n", 5, 1, &data, &size, &refused, why),
                   CUPLUG__REMOTE_MISS);
  cuplug__buf v, wire;
  cuplug__buf_init(&v);
  cuplug__buf_init(&wire);
  cuplug__remote_seal(mac, &key, "payload!", 8, &v);
  cuplug__buf_printf(&wire, "$%zu\r\n", v.len);
  cuplug__buf_append(&wire, v.data, v.len);
  cuplug__buf_puts(&wire, "\r\n");
  for (size_t chunks = 1; chunks <= wire.len; chunks += 7) { /* however it is cut */
    ck_assert_int_eq(answer(mac, &key, wire.data, wire.len, chunks, &data, &size, &refused, why),
                     CUPLUG__REMOTE_HIT);
    ck_assert_uint_eq(size, 8);
    ck_assert_mem_eq(data, "payload!", 8);
    free(data);
  }
  ck_assert_int_eq(answer(mac, &key, wire.data, wire.len - 3, 1, &data, &size, &refused, why),
                   CUPLUG__REMOTE_SKIPPED);
  ck_assert_str_eq(why, "the answer is cut short");
  wire.data[wire.len - 5] ^= 1; /* the payload changed */
  ck_assert_int_eq(answer(mac, &key, wire.data, wire.len, 3, &data, &size, &refused, why),
                   CUPLUG__REMOTE_SKIPPED);
  ck_assert(refused);
  ck_assert_str_eq(why, "its tag does not verify (changed, or sealed with another key)");
  ck_assert_int_eq(answer(mac, &key, "-LOADING Redis is loading\r\n", 27, 1, &data, &size,
                          &refused, why),
                   CUPLUG__REMOTE_SKIPPED);
  ck_assert(!refused);
  ck_assert_str_eq(why, "the server answered LOADING Redis is loading");
  /* what GET never answers is not read (an array of 2^31 elements would
   * have hiredis allocate 16 GiB), and a server's words are printable */
  static const struct {
    const char *bytes;
    size_t len;
    const char *why;
  } odd[] = {
      {"*2147483647\r\n", 14, "the server's answer begins with '*', not with one of \"$-\""},
      {":12\r\n", 5, "the server's answer begins with ':', not with one of \"$-\""},
      {"\x1b[2J", 4, "the server's answer begins with '?', not with one of \"$-\""},
      {"$12x\r\n", 6, "the server's answer is malformed: Bad bulk string length"},
      {"-ERR \x1b]0;x\x07\r\n", 13, "the server answered ERR ?]0;x?"},
  };
  for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
    ck_assert_int_eq(answer(mac, &key, odd[i].bytes, odd[i].len, 1, &data, &size, &refused, why),
                     CUPLUG__REMOTE_SKIPPED);
    ck_assert_str_eq(why, odd[i].why);
  }
  cuplug__buf_free(&v);
  cuplug__buf_free(&wire);
}
END_TEST

/* ---- configuration ---- */

static void assert_refused(const char *url, const char *message) {
  cuplug_session_options o = {.struct_size = sizeof o, .cache_dir = "", .cache_remote = url};
  cuplug_session *s = NULL;
  T_ASSERT_ERROR(t_api()->session_create(&o, &s), CUPLUG_ERR_OPTION_CACHE_REMOTE, message);
  ck_assert_ptr_null(s);
}

START_TEST(urls) {
  assert_refused("http://cache:6379", "cache_remote 'http://cache:6379': give "
                                      "redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]");
  assert_refused("rediss://cache:6380",
                 "cache_remote 'rediss://cache:6380': rediss:// (TLS) needs hiredis with TLS "
                 "(hiredis_ssl, 1.0 and later); cuplug is built with hiredis 0.14, which has "
                 "none: reach the server through a TLS tunnel (stunnel, spiped) with redis://");
  assert_refused("redis://cache:99999",
                 "cache_remote 'redis://cache:99999': the port '99999' is not a number from 1 "
                 "to 65535");
  assert_refused("redis://cache:", "cache_remote 'redis://cache:': the port '' is not a number "
                                   "from 1 to 65535");
  assert_refused("redis://:6379", "cache_remote 'redis://:6379': the host is missing");
  assert_refused("redis://cache/x", "cache_remote 'redis://cache/x': the database 'x' is not a "
                                    "number");
  assert_refused("redis://cache/0?timeout=3",
                 "cache_remote 'redis://cache/0?timeout=3': nothing may follow the database "
                 "number (found '?')");
  assert_refused("redis://secret@cache", "cache_remote 'redis://***@cache': the part before "
                                         "'@' is the password: give it as :PASSWORD@ or "
                                         "USER:PASSWORD@");
  /* the password is never said, even of a URL that does not parse */
  assert_refused("rediss://:hunter2@cache:6380",
                 "cache_remote 'rediss://***@cache:6380': rediss:// (TLS) needs hiredis with TLS "
                 "(hiredis_ssl, 1.0 and later); cuplug is built with hiredis 0.14, which has "
                 "none: reach the server through a TLS tunnel (stunnel, spiped) with redis://");
  assert_refused("redis://ops:p%00w@cache", "cache_remote 'redis://***@cache': the user or "
                                            "password has a malformed %XX escape (or %00)");
  assert_refused("redis://:pa/ss@cache:6379", "cache_remote 'redis://***@cache:6379': a user or "
                                              "password that holds '/', '?' or '#' writes them "
                                              "%2F, %3F and %23");
  assert_refused("redis://admin:abc?def@cache/0",
                 "cache_remote 'redis://***@cache/0': a user or password that holds '/', '?' "
                 "or '#' writes them %2F, %3F and %23");
  assert_refused("redis://[::1", "cache_remote 'redis://[::1': an IPv6 address needs its "
                                 "closing ']'");
  /* the URL as cache_info shows it: the password hidden, the defaults said */
  static const char *const shown[][2] = {
      {"redis://cache", "redis://cache:6379/0"},
      {"redis://:s%40cret@cache:7000/3", "redis://:***@cache:7000/3"},
      {"redis://ops:pw@10.0.0.7/", "redis://ops:***@10.0.0.7:6379/0"},
      {"redis://[::1]:6390/2", "redis://[::1]:6390/2"},
  };
  for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
    cuplug_session_options o = {.struct_size = sizeof o, .cache_dir = "",
                                .cache_remote = shown[i][0]};
    cuplug_session *s = NULL;
    T_ASSERT_OK(t_api()->session_create(&o, &s));
    cuplug_cache_info info = info_of(s);
    ck_assert_str_eq(info.remote, shown[i][1]);
    t_api()->session_destroy(s);
  }
  /* from the environment, and a session's "" over it */
  setenv("CUPLUG_CACHE_REMOTE", "redis://from-env:7001", 1);
  cuplug_session_options o = {.struct_size = sizeof o, .cache_dir = ""};
  cuplug_session *s = NULL;
  T_ASSERT_OK(t_api()->session_create(&o, &s));
  ck_assert_str_eq(info_of(s).remote, "redis://from-env:7001/0");
  t_api()->session_destroy(s);
  o.cache_remote = "";
  T_ASSERT_OK(t_api()->session_create(&o, &s));
  ck_assert_str_eq(info_of(s).remote, "");
  ck_assert_str_eq(info_of(s).remote_status, "off");
  t_api()->session_destroy(s);
  setenv("CUPLUG_CACHE_REMOTE", "redis//oops", 1);
  o.cache_remote = NULL;
  T_ASSERT_ERROR(t_api()->session_create(&o, &s), CUPLUG_ERR_OPTION_CACHE_REMOTE,
                 "CUPLUG_CACHE_REMOTE 'redis//oops': give "
                 "redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]");
  setenv("CUPLUG_CACHE_REMOTE", "redis://cache", 1);
  setenv("CUPLUG_CACHE_REMOTE_TIMEOUT_MS", "fast", 1);
  T_ASSERT_ERROR(t_api()->session_create(&o, &s), CUPLUG_ERR_OPTION_CACHE_REMOTE,
                 "CUPLUG_CACHE_REMOTE 'redis://cache:6379/0': CUPLUG_CACHE_REMOTE_TIMEOUT_MS "
                 "'fast' is not a number of milliseconds from 0 to 600000");
  unsetenv("CUPLUG_CACHE_REMOTE_TIMEOUT_MS");
  /* the cache off: no remote either, and nothing checked */
  o.flags = CUPLUG_SESSION_NO_CACHE;
  T_ASSERT_OK(t_api()->session_create(&o, &s));
  ck_assert_str_eq(info_of(s).remote, "");
  t_api()->session_destroy(s);
  unsetenv("CUPLUG_CACHE_REMOTE");
}
END_TEST

/* A session's remote status with the key file at `path`. */
static const char *status_with_key(const char *path, cuplug_session **s) {
  cuplug_session_options o = {.struct_size = sizeof o, .cache_dir = "",
                              .cache_remote = "redis://127.0.0.1:1", .cache_remote_key = path};
  T_ASSERT_OK(t_api()->session_create(&o, s));
  return info_of(*s).remote_status;
}

START_TEST(key_files) {
  char path[400], want[1024];
  cuplug_session *s;
  snprintf(path, sizeof path, "%s/short", dir);
  write_file(path, "0123456789", 10, 0600);
  snprintf(want, sizeof want,
           "the key file %s holds 10 bytes; a key is 16 to 4096 random bytes "
           "(head -c 32 /dev/urandom > %s)", path, path);
  ck_assert_str_eq(status_with_key(path, &s), want);
  t_api()->session_destroy(s);
  snprintf(path, sizeof path, "%s/shared", dir);
  write_file(path, "0123456789abcdef", 16, 0644);
  snprintf(want, sizeof want,
           "the key file %s is readable by others (mode 0644), who could then sign entries: "
           "chmod 600 (or 640) it", path);
  ck_assert_str_eq(status_with_key(path, &s), want);
  t_api()->session_destroy(s);
  chmod(path, 0660);
  snprintf(want, sizeof want,
           "the key file %s is writable by others (mode 0660), who could then sign entries: "
           "chmod 600 (or 640) it", path);
  ck_assert_str_eq(status_with_key(path, &s), want);
  t_api()->session_destroy(s);
  snprintf(path, sizeof path, "%s/none", dir);
  snprintf(want, sizeof want, "the key file %s cannot be read: No such file or directory", path);
  ck_assert_str_eq(status_with_key(path, &s), want);
  t_api()->session_destroy(s);
  snprintf(want, sizeof want, "the key file %s is not a file", dir);
  ck_assert_str_eq(status_with_key(dir, &s), want);
  t_api()->session_destroy(s);
  ck_assert_str_eq(status_with_key(NULL, &s),
                   "no key: entries are signed with a key the fleet shares "
                   "(CUPLUG_CACHE_REMOTE_KEY, a file of at least 16 random bytes), and without "
                   "one nothing is read or written");
  t_api()->session_destroy(s);
  /* a good key (0640 is fine): the server is asked; port 1 refuses */
  chmod(key_path, 0640);
  ck_assert_str_eq(status_with_key(key_path, &s),
                   "set aside after a failure: cannot connect to 127.0.0.1:1: Connection "
                   "refused");
  ck_assert_uint_eq(info_of(s).remote_errors, 1);
  t_api()->session_destroy(s);
}
END_TEST

/* hiredis is loaded at run time: without it cuplug works, and says why the
 * remote is not used. */
START_TEST(without_hiredis) {
  if (!getenv("CUPLUG_TEST_WITHOUT_HIREDIS")) {
    /* this program again, for this case alone: no earlier test of this
     * process has loaded hiredis (tests run in one process with a GPU) */
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    ck_assert_int_gt(n, 0);
    self[n] = '\0';
    pid_t child = fork();
    if (child == 0) {
      setenv("CUPLUG_TEST_WITHOUT_HIREDIS", "1", 1);
      setenv("CUPLUG_HIREDIS", "/nonexistent/libhiredis.so", 1);
      execl(self, self, "remote.without_hiredis", (char *)NULL);
      _exit(127);
    }
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the case's own process: %d",
                  status);
    return;
  }
  cuplug_session_options o = {.struct_size = sizeof o, .cache_dir = "",
                              .cache_remote = "redis://127.0.0.1:1", .cache_remote_key = key_path};
  cuplug_session *s = NULL;
  T_ASSERT_OK(t_api()->session_create(&o, &s));
  const char *want = "hiredis cannot be loaded (/nonexistent/libhiredis.so: cannot open shared "
                     "object file: No such file or directory); install hiredis 0.14 (Debian: "
                     "libhiredis0.14) or name its library in CUPLUG_HIREDIS";
  ck_assert_str_eq(info_of(s).remote_status, want);
  result r = compile(s, &t_k_sum, 0);
  ck_assert_int_eq(r.cache, CUPLUG_CACHE_MISS);
  char warning[600];
  snprintf(warning, sizeof warning,
           "cuplug's remote cache redis://127.0.0.1:1/0 is not used: %s", want);
  ck_assert_str_eq(r.warning, warning);
  ck_assert_uint_eq(info_of(s).remote_errors, 0);
  result_free(&r);
  t_api()->session_destroy(s);
}
END_TEST

/* ---- against a server of the test's own, that answers oddly ---- */

static struct {
  int listener, port;
  const char *answer; /* to every command */
  size_t size;
  bool hold;          /* keep the connection open after answering */
  int accepted;
} odd;

static void *odd_serve(void *unused) {
  (void)unused;
  int held[16], num_held = 0;
  for (;;) {
    int fd = accept(odd.listener, NULL, NULL);
    if (fd < 0) return NULL;
    __atomic_add_fetch(&odd.accepted, 1, __ATOMIC_SEQ_CST);
    char request[4096];
    while (read(fd, request, sizeof request) > 0) {
      if (write(fd, odd.answer, odd.size) < 0) break;
      if (odd.hold) break;
    }
    if (odd.hold && num_held < 16) held[num_held++] = fd; /* answered, and silent */
    else close(fd);
  }
  (void)held;
}

static void odd_start(void) {
  setup();
  odd.listener = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  ck_assert_int_eq(bind(odd.listener, (struct sockaddr *)&a, sizeof a), 0);
  ck_assert_int_eq(listen(odd.listener, 16), 0);
  ck_assert_int_eq(getsockname(odd.listener, (struct sockaddr *)&a, &len), 0);
  odd.port = ntohs(a.sin_port);
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, odd_serve, NULL), 0);
  pthread_detach(t);
}

/* A remote on the odd server, and a GET of a key: its result, the time it
 * took, and what cache_info says. */
static cuplug__remote_result odd_get(const char *answer, size_t size, bool hold,
                                     uint32_t timeout_ms, uint64_t max_entry,
                                     uint64_t *ns, cuplug_cache_info *info) {
  odd.answer = answer, odd.size = size, odd.hold = hold;
  char url[64];
  snprintf(url, sizeof url, "redis://127.0.0.1:%d", odd.port);
  cuplug__remote_options o = {.url = url, .key_path = key_path, .timeout_ms = timeout_ms,
                              .max_entry_bytes = max_entry};
  cuplug__remote *r;
  T_ASSERT_OK(cuplug__remote_create(&o, &r));
  cuplug__digest key = cuplug__digest_of("odd", 3);
  void *data = NULL;
  size_t n;
  cuplug_error *note = NULL;
  uint64_t t0 = cuplug__now_ns();
  cuplug__remote_result got = cuplug__remote_get(r, &key, &data, &n, &note);
  *ns = cuplug__now_ns() - t0;
  ck_assert_ptr_null(data);
  t_api()->error_destroy(note);
  cuplug__remote_info(r, info);
  static char status[512]; /* outlives the remote */
  snprintf(status, sizeof status, "%s", info->remote_status);
  info->remote_status = status;
  info->remote = "";
  cuplug__remote_destroy(r);
  return got;
}

START_TEST(odd_servers) {
  uint64_t ns;
  cuplug_cache_info i;
  /* an array of 2^31 elements (hiredis would allocate 16 GiB): not read */
  static const char huge[] = "*2147483647\r\n";
  ck_assert_int_eq(odd_get(huge, sizeof huge - 1, false, 2000, 0, &ns, &i),
                   CUPLUG__REMOTE_SKIPPED);
  ck_assert_str_eq(i.remote_status, "set aside after a failure: the server's answer begins with "
                                    "'*', not with one of \"$-\"");
  ck_assert_uint_eq(i.remote_errors, 1);
  ck_assert_uint_lt(ns, 1000000000u); /* at once, not at the time limit */
  /* a value above this machine's limit (a peer's, with a larger one): a
   * miss, read no further, not a fault */
  static const char big[] = "$99999999\r\nxxxx";
  ck_assert_int_eq(odd_get(big, sizeof big - 1, true, 2000, 4096, &ns, &i), CUPLUG__REMOTE_MISS);
  ck_assert_str_eq(i.remote_status, "ok");
  ck_assert_uint_eq(i.remote_errors, 0);
  ck_assert_uint_eq(i.remote_misses, 1);
  ck_assert_uint_lt(ns, 1000000000u);
  /* half a value, then silence: the time limit, and no longer */
  static const char half[] = "$10\r\nabc";
  ck_assert_int_eq(odd_get(half, sizeof half - 1, true, 100, 0, &ns, &i),
                   CUPLUG__REMOTE_SKIPPED);
  char want[128];
  snprintf(want, sizeof want, "set aside after a failure: no answer from 127.0.0.1:%d within "
                              "100 ms", odd.port);
  ck_assert_str_eq(i.remote_status, want);
  ck_assert_uint_ge(ns, 100000000u);
  ck_assert_uint_lt(ns, 100000000u + 900000000u);
  /* more than was asked: the answer is used, the connection is not pooled
   * (its extra bytes would be the next command's answer) */
  static const char extra[] = "$-1\r\n+EXTRA\r\n";
  int accepted = odd.accepted;
  odd.answer = extra, odd.size = sizeof extra - 1, odd.hold = false;
  char url[64];
  snprintf(url, sizeof url, "redis://127.0.0.1:%d", odd.port);
  cuplug__remote_options o = {.url = url, .key_path = key_path, .timeout_ms = 2000};
  cuplug__remote *r;
  T_ASSERT_OK(cuplug__remote_create(&o, &r));
  cuplug__digest key = cuplug__digest_of("odd", 3);
  void *data;
  size_t n;
  ck_assert_int_eq(cuplug__remote_get(r, &key, &data, &n, NULL), CUPLUG__REMOTE_MISS);
  ck_assert_int_eq(cuplug__remote_get(r, &key, &data, &n, NULL), CUPLUG__REMOTE_MISS);
  cuplug__remote_info(r, &i);
  ck_assert_str_eq(i.remote_status, "ok");
  ck_assert_uint_eq(i.remote_misses, 2);
  ck_assert_int_eq(odd.accepted, accepted + 2); /* a connection each */
  cuplug__remote_destroy(r);
  /* bytes after AUTH's answer (an array that hiredis would allocate 2 GiB
   * for, once a GET read it): the connection is not used */
  static const char after_auth[] = "+OK\r\n*268435456\r\n";
  odd.answer = after_auth, odd.size = sizeof after_auth - 1, odd.hold = false;
  snprintf(url, sizeof url, "redis://:pw@127.0.0.1:%d/2", odd.port);
  o = (cuplug__remote_options){.url = url, .key_path = key_path, .timeout_ms = 2000};
  T_ASSERT_OK(cuplug__remote_create(&o, &r));
  uint64_t t0 = cuplug__now_ns();
  ck_assert_int_eq(cuplug__remote_get(r, &key, &data, &n, NULL), CUPLUG__REMOTE_SKIPPED);
  ck_assert_uint_lt(cuplug__now_ns() - t0, 1000000000u);
  cuplug__remote_info(r, &i);
  snprintf(want, sizeof want, "set aside after a failure: 127.0.0.1:%d answered more than it was "
                              "asked", odd.port);
  ck_assert_str_eq(i.remote_status, want);
  cuplug__remote_destroy(r);
}
END_TEST

/* This process's thread count, from /proc. */
static int threads_now(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  int n = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "Threads: %d", &n) == 1) break;
  if (f) fclose(f);
  return n;
}

/* A name is looked up (by the deadline, on the resolver's thread); one
 * that does not resolve is a failure within the time limit. */
START_TEST(names_looked_up) {
  int threads = threads_now();
  odd.answer = "$-1\r\n", odd.size = 5, odd.hold = false;
  const char *hosts[] = {"localhost", "nonexistent.invalid."}; /* no search domain */
  for (int h = 0; h < 2; h++) {
    char url[128];
    snprintf(url, sizeof url, "redis://%s:%d", hosts[h], odd.port);
    cuplug__remote_options o = {.url = url, .key_path = key_path,
                                .timeout_ms = h == 0 ? 5000 : 300};
    cuplug__remote *r;
    T_ASSERT_OK(cuplug__remote_create(&o, &r));
    cuplug__digest key = cuplug__digest_of("odd", 3);
    void *data;
    size_t n;
    uint64_t t0 = cuplug__now_ns();
    cuplug__remote_result got = cuplug__remote_get(r, &key, &data, &n, NULL);
    uint64_t ns = cuplug__now_ns() - t0;
    cuplug_cache_info i;
    cuplug__remote_info(r, &i);
    if (h == 0) {
      ck_assert_msg(got == CUPLUG__REMOTE_MISS, "%s", i.remote_status);
      ck_assert_str_eq(i.remote_status, "ok");
      /* a child forked right after a look-up looks names up too (glibc's
       * getaddrinfo_a, idle threads and all, left its children none); the
       * odd server serves one connection at a time: this one's first */
      cuplug__remote_destroy(r);
      r = NULL;
      /* the look-up's thread, done, may still be exiting; GCC 12's
       * AddressSanitizer does not hold its allocator's locks across a fork,
       * so a child forked then may inherit one held for good (its look-up
       * then never ends: 2 runs in 80 under load).  glibc's malloc is
       * fork-safe: 0 in 150 without the sanitizer.  Fork once it is gone. */
      for (int waited = 0; threads_now() > threads && waited < 5000; waited++) usleep(1000);
      ck_assert_int_eq(threads_now(), threads);
      pid_t child = fork();
      if (child == 0) {
        cuplug__remote *c;
        cuplug_error *e = cuplug__remote_create(&o, &c);
        _exit(e || cuplug__remote_get(c, &key, &data, &n, NULL) != CUPLUG__REMOTE_MISS);
      }
      int status;
      ck_assert_int_eq(waitpid(child, &status, 0), child);
      ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child: %d", status);
    } else {
      ck_assert_int_eq(got, CUPLUG__REMOTE_SKIPPED);
      T_ASSERT_STARTS(i.remote_status, "set aside after a failure: nonexistent.invalid. ");
      ck_assert_uint_lt(ns, 300000000u + 900000000u);
    }
    cuplug__remote_destroy(r); /* NULL: destroyed above */
  }
}
END_TEST

/* ---- against a server ---- */

/* Two processes with their own disk folders and one server: the second
 * gets the first one's result from the server, byte for byte; the hit
 * fills its memory and disk. */
START_TEST(hits_across_processes) {
  result want = reference(&t_k_sum, 1);
  pid_t child = fork();
  if (child == 0) {
    cuplug_session_options o = options_for("first", NULL);
    cuplug_session *s = NULL;
    cuplug_error *e = t_api()->session_create(&o, &s);
    result r;
    int rc = e || try_compile(s, &t_k_sum, 1, &r) ? 30 : (int)r.cache;
    if (!rc || rc == 30) _exit(rc);
    cuplug_cache_info i = {.struct_size = sizeof i, .session = s};
    t_api()->error_destroy(t_api()->cache_info(&i));
    _exit(r.size == want.size && !memcmp(r.bytes, want.bytes, r.size) && i.remote_stores == 1
              ? rc : 31);
  }
  int status;
  ck_assert_int_eq(waitpid(child, &status, 0), child);
  ck_assert(WIFEXITED(status));
  ck_assert_int_eq(WEXITSTATUS(status), CUPLUG_CACHE_MISS);
  ck_assert_int_eq(t_redis_dbsize(&server), 1);
  cuplug_session *s = session_at("second", NULL);
  result got = compile(s, &t_k_sum, 1);
  ck_assert_int_eq(got.cache, CUPLUG_CACHE_REMOTE);
  ck_assert_ptr_null(got.warning);
  assert_same(&got, &want);
  result again = compile(s, &t_k_sum, 1);
  ck_assert_int_eq(again.cache, CUPLUG_CACHE_MEMORY);
  cuplug_cache_info i = info_of(s);
  ck_assert_str_eq(i.remote_status, "ok");
  ck_assert_uint_eq(i.remote_hits, 1);
  ck_assert_uint_eq(i.remote_misses, 0);
  ck_assert_uint_eq(i.remote_stores, 0);
  ck_assert_uint_eq(i.remote_errors, 0);
  ck_assert_uint_eq(i.stores, 0);       /* the hit is not a store */
  ck_assert_uint_eq(i.disk_entries, 1); /* but it is on disk now */
  cuplug_session *s3 = session_at("second", NULL);
  result disk = compile(s3, &t_k_sum, 1);
  ck_assert_int_eq(disk.cache, CUPLUG_CACHE_DISK);
  assert_same(&disk, &want);
  char shown[80];
  snprintf(shown, sizeof shown, "%s/0", server.url);
  ck_assert_str_eq(info_of(s3).remote, shown);
  t_api()->session_destroy(s);
  t_api()->session_destroy(s3);
  result_free(&want), result_free(&got), result_free(&again), result_free(&disk);
}
END_TEST

/* Every value overwritten with garbage, then one changed by a byte: the
 * result is still right, each is warned about once, counted and rebuilt,
 * and the rebuild is stored over it. */
START_TEST(tampered_entries) {
  result want = reference(&t_k_const, 2);
  cuplug_session *s = session_at("a", NULL);
  result first = compile(s, &t_k_const, 2);
  ck_assert_int_eq(first.cache, CUPLUG_CACHE_MISS);
  char *names = names_held();
  ck_assert_ptr_nonnull(names);
  ck_assert_msg(!strncmp(names, "*1\n$cuplug:1:", 13), "the server holds %s", names);
  char name[80];
  ck_assert_int_eq(sscanf(names, "*1\n$%79s", name), 1);
  free(names);
  char *ok = t_redis_do(&server, "SET", name, "garbage", NULL);
  ck_assert_str_eq(ok, "+OK");
  free(ok);
  cuplug_session *s2 = session_at("b", NULL);
  result got = compile(s2, &t_k_const, 2);
  ck_assert_int_eq(got.cache, CUPLUG_CACHE_MISS); /* built again */
  assert_same(&got, &want);
  char want_warning[512];
  snprintf(want_warning, sizeof want_warning,
           "cuplug's remote cache %s/0 holds an entry %s that is not used: not a cuplug entry; "
           "it is rebuilt", server.url, name);
  ck_assert_str_eq(got.warning, want_warning);
  cuplug_cache_info i = info_of(s2);
  ck_assert_uint_eq(i.remote_refused, 1);
  ck_assert_uint_eq(i.remote_hits, 0);
  ck_assert_uint_eq(i.remote_stores, 1); /* the rebuild, over the garbage */
  /* a byte of the stored value changed: its tag does not verify */
  char *value = t_redis_do(&server, "GET", name, NULL);
  ck_assert_int_eq(value[0], '$');
  size_t payload = 0; /* the artifact as the cache keeps it: the LTO-IR within */
  for (int b = 0; b < 8; b++) payload |= (size_t)(uint8_t)value[1 + 40 + b] << (8 * b);
  size_t len = CUPLUG__REMOTE_HEADER + payload;
  ck_assert_ptr_nonnull(memmem(value + 1 + CUPLUG__REMOTE_HEADER, payload, want.bytes,
                               want.size));
  value[1 + len - 1] ^= 1;
  const char *argv[] = {"SET", name, value + 1};
  size_t lens[] = {3, strlen(name), len};
  char *set = t_redis_command(&server, 3, argv, lens);
  ck_assert_str_eq(set, "+OK");
  free(set), free(value);
  cuplug_session *s3 = session_at("c", NULL);
  result again = compile(s3, &t_k_const, 2);
  ck_assert_int_eq(again.cache, CUPLUG_CACHE_MISS);
  assert_same(&again, &want);
  ck_assert_ptr_nonnull(strstr(again.warning, "that is not used: its tag does not verify"));
  result third = compile(s3, &t_k_const, 3); /* the session warned once */
  ck_assert_ptr_null(third.warning);
  ck_assert_uint_eq(info_of(s3).remote_refused, 1);
  /* the rebuild was stored, and verifies */
  cuplug_session *s4 = session_at("d", NULL);
  result fixed = compile(s4, &t_k_const, 2);
  ck_assert_int_eq(fixed.cache, CUPLUG_CACHE_REMOTE);
  assert_same(&fixed, &want);
  /* sealed with another key: not used either */
  char other[400];
  snprintf(other, sizeof other, "%s/other-key", dir);
  write_file(other, "another fleet's key", 19, 0600);
  cuplug_session *s5 = session_at("e", &(remote_opts){.key = other});
  result foreign = compile(s5, &t_k_const, 2);
  ck_assert_int_eq(foreign.cache, CUPLUG_CACHE_MISS);
  ck_assert_ptr_nonnull(strstr(foreign.warning, "its tag does not verify"));
  assert_same(&foreign, &want);
  cuplug_session *ss[] = {s, s2, s3, s4, s5};
  for (int k = 0; k < 5; k++) t_api()->session_destroy(ss[k]);
  result *rs[] = {&want, &first, &got, &again, &third, &fixed, &foreign};
  for (int k = 0; k < 7; k++) result_free(rs[k]);
}
END_TEST

/* A server that stops answering (SIGSTOP): the compile ends within the
 * bound, with the same result, and the server is skipped afterwards. */
START_TEST(server_that_hangs) {
  result want = reference(&t_k_neg, 0);
  setenv("CUPLUG_CACHE_REMOTE_RETRY_MS", "600000", 1); /* nothing tried again mid-test */
  ck_assert_int_eq(kill(server.pid, SIGSTOP), 0);
  cuplug_session *s = session_at("a", &(remote_opts){.timeout_ms = 100});
  result got = compile(s, &t_k_neg, 0);
  ck_assert_int_eq(got.cache, CUPLUG_CACHE_MISS);
  assert_same(&got, &want);
  /* the look-up waited for the server, and no longer than the bound
   * (with room for a loaded machine) */
  ck_assert_uint_ge(got.look_up_ns, 100000000u);
  ck_assert_uint_lt(got.look_up_ns, 100000000u + 900000000u);
  char want_status[256], want_warning[512];
  snprintf(want_status, sizeof want_status,
           "set aside after a failure: no answer from 127.0.0.1:%d within 100 ms", server.port);
  snprintf(want_warning, sizeof want_warning,
           "cuplug's remote cache %s/0 failed: no answer from 127.0.0.1:%d within 100 ms; "
           "compiles go on without it, and it is tried again in 600000 ms",
           server.url, server.port);
  ck_assert_str_eq(got.warning, want_warning);
  cuplug_cache_info i = info_of(s);
  ck_assert_str_eq(i.remote_status, want_status);
  ck_assert_uint_eq(i.remote_errors, 1); /* the store was skipped: set aside */
  /* set aside: the next compile does not wait */
  result next = compile(s, &t_k_neg, 1);
  ck_assert_int_eq(next.cache, CUPLUG_CACHE_MISS);
  ck_assert_uint_lt(next.look_up_ns, 50000000u);
  ck_assert_uint_eq(info_of(s).remote_errors, 1);
  kill(server.pid, SIGCONT);
  t_api()->session_destroy(s);
  unsetenv("CUPLUG_CACHE_REMOTE_RETRY_MS");
  result_free(&want), result_free(&got), result_free(&next);
}
END_TEST

/* A server killed mid-run, then started again on its port: after the
 * pause the remote comes back, on a new connection. */
START_TEST(server_killed_and_restarted) {
  setenv("CUPLUG_CACHE_REMOTE_RETRY_MS", "200", 1);
  cuplug_session *s = session_at("a", NULL);
  result a = compile(s, &t_k_sum, 0); /* stored: the pool keeps its connection */
  ck_assert_uint_eq(info_of(s).remote_stores, 1);
  t_redis_stop(&server);
  result b = compile(s, &t_k_sum, 1);
  ck_assert_int_eq(b.cache, CUPLUG_CACHE_MISS);
  cuplug_cache_info i = info_of(s);
  uint64_t errors = i.remote_errors; /* the look-up's; and the store's, when the build
                                        outlasted the pause */
  ck_assert_msg(errors == 1 || errors == 2, "%llu errors", (unsigned long long)errors);
  ck_assert_ptr_nonnull(strstr(i.remote_status, "set aside after a failure: cannot connect to "
                                                "127.0.0.1:"));
  ck_assert(t_redis_start(&server, NULL)); /* the same port */
  nanosleep(&(struct timespec){.tv_nsec = 250000000}, NULL);
  result c = compile(s, &t_k_sum, 2);
  ck_assert_int_eq(c.cache, CUPLUG_CACHE_MISS);
  i = info_of(s);
  ck_assert_str_eq(i.remote_status, "ok");
  ck_assert_uint_eq(i.remote_misses, 2); /* a's and c's look-ups */
  ck_assert_uint_eq(i.remote_stores, 2);
  ck_assert_uint_eq(i.remote_errors, errors);
  ck_assert_int_eq(t_redis_dbsize(&server), 1); /* c's: the new server started empty */
  t_api()->session_destroy(s);
  unsetenv("CUPLUG_CACHE_REMOTE_RETRY_MS");
  result_free(&a), result_free(&b), result_free(&c);
}
END_TEST

/* Without a key nothing is read or written, and one warning says why. */
/* The connections the server has taken, the asking one among them. */
static long connections(void) {
  char *info = t_redis_do(&server, "INFO", "stats", NULL);
  const char *at = info ? strstr(info, "total_connections_received:") : NULL;
  long n = at ? strtol(at + strlen("total_connections_received:"), NULL, 10) : -1;
  free(info);
  return n;
}

START_TEST(no_key_no_traffic) {
  long before = connections();
  cuplug_session *s = session_at("a", &(remote_opts){.key = ""});
  result a = compile(s, &t_k_sum, 0), b = compile(s, &t_k_neg, 0);
  info_of(s); /* no PING either */
  ck_assert_int_eq(connections(), before + 1); /* this ask's own: cuplug never connected */
  char want[512];
  snprintf(want, sizeof want,
           "cuplug's remote cache %s/0 is not used: no key: entries are signed with a key the "
           "fleet shares (CUPLUG_CACHE_REMOTE_KEY, a file of at least 16 random bytes), and "
           "without one nothing is read or written", server.url);
  ck_assert_str_eq(a.warning, want);
  ck_assert_ptr_null(b.warning);
  ck_assert_int_eq(t_redis_dbsize(&server), 0);
  cuplug_cache_info i = info_of(s);
  ck_assert_uint_eq(i.remote_stores + i.remote_misses + i.remote_hits + i.remote_errors, 0);
  t_api()->session_destroy(s);
  result_free(&a), result_free(&b);
}
END_TEST

/* Results above the size limit are not sent; a time to live is set; a
 * password and a database number are used. */
START_TEST(limits_ttl_auth_db) {
  cuplug_session *s = session_at("a", &(remote_opts){.max_entry = 16});
  result a = compile(s, &t_k_sum, 0);
  ck_assert_int_eq(t_redis_dbsize(&server), 0);
  ck_assert_uint_eq(info_of(s).remote_stores, 0);
  ck_assert_uint_eq(info_of(s).remote_errors, 0);
  t_api()->session_destroy(s);
  s = session_at("b", &(remote_opts){.ttl_s = 1000});
  result b = compile(s, &t_k_sum, 0);
  char *names = names_held(), name[80];
  ck_assert_int_eq(sscanf(names, "*1\n$%79s", name), 1);
  char *ttl = t_redis_do(&server, "TTL", name, NULL);
  long left = strtol(ttl + 1, NULL, 10);
  ck_assert_msg(ttl[0] == ':' && left > 990 && left <= 1000, "TTL %s", ttl);
  free(names), free(ttl);
  t_api()->session_destroy(s);
  /* a server with a password, and database 3 */
  t_redis_stop(&server);
  server.port = 0;
  const char *const pass[] = {"--requirepass", "s@cret", NULL};
  server.password = "s@cret";
  ck_assert(t_redis_start(&server, pass));
  server.password = NULL;
  char url[128];
  snprintf(url, sizeof url, "redis://:s%%40cret@127.0.0.1:%d/3", server.port);
  s = session_at("c", &(remote_opts){.url = url});
  result c = compile(s, &t_k_sum, 0);
  ck_assert_uint_eq(info_of(s).remote_stores, 1);
  t_api()->session_destroy(s);
  ck_assert_int_eq(t_redis_dbsize(&server), -1); /* the test's client, without the password */
  server.password = "s@cret";
  ck_assert_int_eq(t_redis_dbsize(&server), 0);
  server.db = 3;
  ck_assert_int_eq(t_redis_dbsize(&server), 1);
  snprintf(url, sizeof url, "redis://:wrong@127.0.0.1:%d", server.port);
  s = session_at("d", &(remote_opts){.url = url});
  result d = compile(s, &t_k_sum, 1);
  ck_assert_int_eq(d.cache, CUPLUG_CACHE_MISS);
  cuplug_cache_info i = info_of(s);
  ck_assert_uint_eq(i.remote_errors, 1);
  ck_assert_ptr_nonnull(strstr(i.remote_status, "refused the password (AUTH): WRONGPASS"));
  ck_assert_ptr_null(strstr(d.warning, "wrong")); /* the password is never said */
  ck_assert_ptr_nonnull(strstr(d.warning, "redis://:***@127.0.0.1:"));
  t_api()->session_destroy(s);
  result_free(&a), result_free(&b), result_free(&c), result_free(&d);
}
END_TEST

/* Eight processes at once on one server, each with its own disk folder,
 * compiling the same twelve results in different orders: every result is
 * right, and the server ends with twelve entries that verify. */
START_TEST(eight_processes_racing) {
  const t_kernel *kernels[] = {&t_k_const, &t_k_sum, &t_k_neg};
  result want[12];
  for (int k = 0; k < 12; k++) want[k] = reference(kernels[k % 3], k / 3);
  pid_t kids[8];
  for (int p = 0; p < 8; p++) {
    if ((kids[p] = fork()) == 0) {
      char folder[32];
      snprintf(folder, sizeof folder, "p%d", p);
      cuplug_session_options o = options_for(folder, NULL);
      cuplug_session *s = NULL;
      cuplug_error *e = t_api()->session_create(&o, &s);
      if (e) _exit(30);
      int bad = 0;
      for (int n = 0; n < 12; n++) {
        int k = (n * (p % 2 ? 5 : 7) + p) % 12; /* each its own order */
        result r;
        if (try_compile(s, kernels[k % 3], k / 3, &r) || r.size != want[k].size ||
            memcmp(r.bytes, want[k].bytes, r.size) || r.warning)
          bad++;
        result_free(&r);
      }
      cuplug_cache_info i = {.struct_size = sizeof i, .session = s};
      t_api()->error_destroy(t_api()->cache_info(&i));
      t_api()->session_destroy(s);
      _exit(bad ? 31 : i.remote_errors || i.remote_refused ? 32 : 0);
    }
  }
  for (int p = 0; p < 8; p++) {
    int status;
    ck_assert_int_eq(waitpid(kids[p], &status, 0), kids[p]);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "process %d: status %d", p,
                  status);
  }
  ck_assert_int_eq(t_redis_dbsize(&server), 12);
  cuplug_session *s = session_at("last", NULL);
  for (int k = 0; k < 12; k++) {
    result r = compile(s, kernels[k % 3], k / 3);
    ck_assert_int_eq(r.cache, CUPLUG_CACHE_REMOTE);
    assert_same(&r, &want[k]);
    result_free(&r);
    result_free(&want[k]);
  }
  ck_assert_uint_eq(info_of(s).remote_hits, 12);
  t_api()->session_destroy(s);
}
END_TEST

Suite *suite_remote(void) {
  Suite *s = suite_create("remote");
  TCase *tc = t_tcase(s, "values", 0, NULL, NULL, 0);
  tcase_add_test(tc, values_seal_and_open);
  tc = t_tcase(s, "configuration", 0, setup, teardown, 0);
  tcase_add_test(tc, urls);
  tc = t_tcase(s, "without_hiredis", T_NVVM, setup, teardown, 60);
  tcase_add_test(tc, without_hiredis);
  tc = t_tcase(s, "odd_servers", T_REDIS, odd_start, teardown, 60);
  tcase_add_test(tc, odd_servers);
  tcase_add_test(tc, names_looked_up);
  tc = t_tcase(s, "answers", T_REDIS, NULL, NULL, 0);
  tcase_add_test(tc, answers);
  tc = t_tcase(s, "key_files", T_REDIS, setup, teardown, 0);
  tcase_add_test(tc, key_files);
  tc = t_tcase(s, "fleet", T_REDIS | T_NVVM, setup_server, teardown, 120);
  tcase_add_test(tc, hits_across_processes);
  tcase_add_test(tc, tampered_entries);
  tcase_add_test(tc, no_key_no_traffic);
  tcase_add_test(tc, limits_ttl_auth_db);
  tc = t_tcase(s, "faults", T_REDIS | T_NVVM, setup_server, teardown, 120);
  tcase_add_test(tc, server_that_hangs);
  tcase_add_test(tc, server_killed_and_restarted);
  tc = t_tcase(s, "racing", T_REDIS | T_NVVM, setup_server, teardown, 300);
  tcase_add_test(tc, eight_processes_racing);
  return s;
}
