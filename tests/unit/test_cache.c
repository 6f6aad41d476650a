/* test_cache.c - the result cache: hits from memory and disk, what changes
 * a key, entries that are corrupt, truncated or of another format, folders
 * that cannot be used, several processes on one folder, eviction, and the
 * artifact's bytes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "ext_mul.h"
#include "plugin/session/artifact.h"
#include "support.h"

static char dir[256]; /* a fresh folder for each test */

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f) {
  (void)st, (void)flag, (void)f;
  return remove(path);
}

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/cuplug-cache-test-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void) { nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS); }

/* nobody's uid and gid, as the tests that need another user use them */
enum { NOBODY = 65534 };

static int own_by_nobody(const char *path, const struct stat *st, int flag, struct FTW *f) {
  (void)st, (void)flag, (void)f;
  return lchown(path, NOBODY, NOBODY);
}

/* A session whose cache lives in `folder` (bounded by max_bytes, 0: the default). */
static cuplug_session *session_in(const char *folder, uint32_t flags, uint64_t max_bytes,
                                  uint64_t memory_bytes) {
  cuplug_session_options o = {.struct_size = sizeof o, .flags = flags, .cache_dir = folder,
                              .cache_max_bytes = max_bytes, .cache_memory_bytes = memory_bytes};
  cuplug_session *s = NULL;
  T_ASSERT_OK(t_api()->session_create(&o, &s));
  return s;
}

static cuplug_session *session(void) { return session_in(dir, 0, 0, 0); }

static cuplug_cache_info info_of(cuplug_session *s) {
  cuplug_cache_info i = {.struct_size = sizeof i, .session = s};
  T_ASSERT_OK(t_api()->cache_info(&i));
  return i;
}

static cuplug_error *clear(cuplug_session *s) {
  cuplug_cache_clear_args a = {.struct_size = sizeof a, .session = s};
  return t_api()->cache_clear(&a);
}

static cuplug_artifact_info art_info(const cuplug_artifact *a) {
  cuplug_artifact_info i = {.struct_size = sizeof i};
  T_ASSERT_OK(t_api()->artifact_info(a, &i));
  return i;
}

/* A kernel compiled to LTO-IR at -opt `opt`, with compile flags. */
static cuplug_artifact *compile(cuplug_session *s, const t_kernel *k, int32_t opt,
                                uint32_t flags) {
  cuplug_artifact *a = NULL;
  T_ASSERT_OK(t_try_compile_kernel(s, k, CUPLUG_OUTPUT_LTOIR, opt, flags, &a));
  return a;
}

/* Compiles and says where the result came from; the bytes go to *out (free). */
static cuplug_cache_result compiled(cuplug_session *s, const t_kernel *k, int32_t opt,
                                    uint32_t flags, void **out, size_t *size) {
  cuplug_artifact *a = compile(s, k, opt, flags);
  cuplug_artifact_info i = art_info(a);
  ck_assert_uint_eq(i.num_warnings, 0);
  if (out) {
    *out = malloc(i.size);
    memcpy(*out, i.data, i.size);
    *size = i.size;
  }
  t_api()->artifact_destroy(a);
  return i.cache;
}

static cuplug_cache_result where(cuplug_session *s, const t_kernel *k, int32_t opt) {
  return compiled(s, k, opt, 0, NULL, NULL);
}

/* For child processes, which must not use Check's asserts (each writes to
 * the parent's pipe, and several processes at once garble it): -1 on any
 * error, else where the result came from; the bytes to *out when asked. */
static cuplug_session *child_session(const char *folder, uint32_t flags) {
  cuplug_session_options o = {.struct_size = sizeof o, .flags = flags, .cache_dir = folder};
  cuplug_session *s = NULL;
  cuplug_error *e = t_api()->session_create(&o, &s);
  if (e) _exit(30);
  return s;
}

static int child_compile(cuplug_session *s, const t_kernel *k, int32_t opt, void **out,
                         size_t *size, cuplug_artifact **keep) {
  cuplug_compile_args a = {0}; /* compiled as compile() compiles it */
  cuplug_error *e = t_try_compile_kernel(s, k, CUPLUG_OUTPUT_LTOIR, opt, 0, &a.artifact);
  if (e) {
    t_api()->error_destroy(e);
    return -1;
  }
  cuplug_artifact_info i = {.struct_size = sizeof i};
  t_api()->error_destroy(t_api()->artifact_info(a.artifact, &i));
  if (out) {
    *out = malloc(i.size);
    memcpy(*out, i.data, i.size);
    *size = i.size;
  }
  if (keep)
    *keep = a.artifact;
  else
    t_api()->artifact_destroy(a.artifact);
  return (int)i.cache;
}

/* ---- hits ---- */

START_TEST(memory_then_disk) {
  cuplug_session *s = session();
  cuplug_artifact *built = compile(s, &t_k_sum, 0, 0);
  cuplug_artifact *again = compile(s, &t_k_sum, 0, 0);
  cuplug_session *s2 = session();
  cuplug_artifact *fresh = compile(s2, &t_k_sum, 0, 0);
  cuplug_artifact_info b = art_info(built), m = art_info(again), d = art_info(fresh);
  ck_assert_int_eq(b.cache, CUPLUG_CACHE_MISS);
  ck_assert_int_eq(m.cache, CUPLUG_CACHE_MEMORY);
  ck_assert_int_eq(d.cache, CUPLUG_CACHE_DISK);
  const cuplug_artifact_info *hits[] = {&m, &d};
  for (int i = 0; i < 2; i++) { /* everything but where it came from */
    const cuplug_artifact_info *h = hits[i];
    ck_assert_int_eq(h->output, CUPLUG_OUTPUT_LTOIR);
    ck_assert_uint_eq(h->size, b.size);
    ck_assert_mem_eq(h->data, b.data, b.size);
    ck_assert_str_eq(h->symbol, "k_sum");
    ck_assert_str_eq(h->log, b.log);
    ck_assert_uint_eq(h->cc_major, 9);
    ck_assert_uint_eq(h->cc_minor, 0);
    ck_assert_int_eq(h->kind, CUPLUG_KERNEL);
    ck_assert_ptr_eq(h->signature, b.signature); /* types are interned */
    ck_assert_uint_eq(h->num_parts, 1);
  }
  cuplug_cache_info i1 = info_of(s), i2 = info_of(s2);
  ck_assert_str_eq(i1.dir, dir);
  ck_assert_str_eq(i1.status, "ok");
  ck_assert_uint_eq(i1.misses, 1);
  ck_assert_uint_eq(i1.memory_hits, 1);
  ck_assert_uint_eq(i1.disk_hits, 0);
  ck_assert_uint_eq(i1.stores, 1);
  ck_assert_uint_eq(i1.disk_entries, 1);
  ck_assert_uint_eq(i1.memory_entries, 1);
  /* memory holds the key beside the payload; disk the payload and its header */
  ck_assert_uint_gt(i1.memory_bytes + 88, i1.disk_bytes);
  ck_assert_uint_eq(i2.disk_hits, 1);
  ck_assert_uint_eq(i2.misses, 0);
  ck_assert_uint_eq(i2.memory_entries, 1); /* a disk hit is kept in memory too */
  t_api()->artifact_destroy(built);
  t_api()->artifact_destroy(again);
  t_api()->artifact_destroy(fresh);
  t_api()->session_destroy(s);
  t_api()->session_destroy(s2);
}
END_TEST

/* artifact_stage: the stages of the compile, in the order they ran, each
 * timed; a result found in the cache has them up to the look-up. */
static void assert_stages(const cuplug_artifact *a, const char *const *names, size_t n,
                          uint64_t wall_ns) {
  ck_assert_uint_eq(art_info(a).num_stages, n);
  uint64_t sum = 0;
  for (size_t i = 0; i < n; i++) {
    cuplug_artifact_stage_args st = {.struct_size = sizeof st, .artifact = a, .index = i};
    T_ASSERT_OK(t_api()->artifact_stage(&st));
    ck_assert_str_eq(st.name, names[i]);
    sum += st.nanoseconds;
  }
  ck_assert_uint_le(sum, wall_ns);
  cuplug_artifact_stage_args past = {.struct_size = sizeof past, .artifact = a, .index = n};
  char msg[128];
  snprintf(msg, sizeof msg, "artifact_stage: index %zu, but the compile ran %zu stages", n, n);
  T_ASSERT_ERROR(t_api()->artifact_stage(&past), CUPLUG_ERR_INVALID_ARGUMENT, msg);
}

static uint64_t clock_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

START_TEST(stages_are_timed) {
  static const char *const built[] = {
      "check_options", "read_signature",   "read_modules", "look_up",         "copy_modules",
      "wake_helper",   "parse_modules",    "start_validation", "choose_cc",   "read_ir_version",
      "find_entry",    "lower",            "hand_over",    "run_nvvm",        "hand_back",
      "link_code",     "keep_ir",          "keep",         "finish_validation"};
  cuplug_session *s = session();
  uint64_t t0 = clock_ns();
  cuplug_artifact *a = compile(s, &t_k_sum, 0, 0);
  uint64_t t1 = clock_ns();
  cuplug_artifact *hit = compile(s, &t_k_sum, 0, 0);
  uint64_t t2 = clock_ns();
  assert_stages(a, built, sizeof built / sizeof *built, t1 - t0);
  assert_stages(hit, built, 4, t2 - t1); /* up to look_up, which found it: nothing validated */
  ck_assert_int_eq(art_info(hit).cache, CUPLUG_CACHE_MEMORY);
  t_api()->artifact_destroy(a);
  t_api()->artifact_destroy(hit);
  t_api()->session_destroy(s);
}
END_TEST

START_TEST(every_option_is_in_the_key) {
  cuplug_session *s = session();
  ck_assert_int_eq(where(s, &t_k_sum, 0), CUPLUG_CACHE_MISS);
  ck_assert_int_eq(where(s, &t_k_sum, 1), CUPLUG_CACHE_MISS); /* -opt=1 */
  ck_assert_int_eq(where(s, &t_k_sum, 1), CUPLUG_CACHE_MEMORY);
  ck_assert_int_eq(compiled(s, &t_k_sum, 0, CUPLUG_COMPILE_KEEP_IR, NULL, NULL),
                   CUPLUG_CACHE_MISS);
  /* fastmath, and another cc */
  cuplug_module m = {.struct_size = sizeof m, .text = t_k_sum.ir, .size = strlen(t_k_sum.ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = "k_sum", .signature = t_k_sum.signature,
                           .kind = CUPLUG_KERNEL, .output = CUPLUG_OUTPUT_LTOIR, .cc_major = 9,
                           .fastmath = 1};
  T_ASSERT_OK(t_api()->compile(&a));
  ck_assert_int_eq(art_info(a.artifact).cache, CUPLUG_CACHE_MISS);
  t_api()->artifact_destroy(a.artifact);
  a.fastmath = 0;
  a.cc_major = 8;
  T_ASSERT_OK(t_api()->compile(&a));
  ck_assert_int_eq(art_info(a.artifact).cache, CUPLUG_CACHE_MISS);
  ck_assert_uint_eq(art_info(a.artifact).cc_major, 8);
  t_api()->artifact_destroy(a.artifact);
  /* the IR: one name changed */
  t_kernel renamed = t_k_sum;
  char *ir = strdup(t_k_sum.ir);
  *strstr(ir, "%s = add") = '%', strstr(ir, "%s = add")[1] = 't';
  char *use = strstr(ir, "store i32 %s");
  use[11] = 't';
  renamed.ir = ir;
  ck_assert_int_eq(where(s, &renamed, 0), CUPLUG_CACHE_MISS);
  free(ir);
  /* no cache for one call: built, and not stored */
  uint64_t stores = info_of(s).stores;
  ck_assert_int_eq(compiled(s, &t_k_sum, 0, CUPLUG_COMPILE_NO_CACHE, NULL, NULL),
                   CUPLUG_CACHE_NONE);
  ck_assert_uint_eq(info_of(s).stores, stores);
  t_api()->session_destroy(s);
}
END_TEST

START_TEST(no_cache_session_and_environment) {
  cuplug_session *s = session_in(dir, CUPLUG_SESSION_NO_CACHE, 0, 0);
  ck_assert_int_eq(where(s, &t_k_sum, 0), CUPLUG_CACHE_NONE);
  ck_assert_int_eq(where(s, &t_k_sum, 0), CUPLUG_CACHE_NONE);
  cuplug_cache_info i = info_of(s);
  ck_assert_str_eq(i.status, "off");
  ck_assert_str_eq(i.dir, "");
  t_api()->session_destroy(s);
  setenv("CUPLUG_CACHE", "0", 1);
  s = session();
  ck_assert_int_eq(where(s, &t_k_sum, 0), CUPLUG_CACHE_NONE);
  ck_assert_str_eq(info_of(s).status, "off");
  t_api()->session_destroy(s);
  unsetenv("CUPLUG_CACHE");
  /* "": memory only */
  s = session_in("", 0, 0, 0);
  ck_assert_int_eq(where(s, &t_k_sum, 0), CUPLUG_CACHE_MISS);
  ck_assert_int_eq(where(s, &t_k_sum, 0), CUPLUG_CACHE_MEMORY);
  ck_assert_str_eq(info_of(s).status, "memory only: the session's cache_dir is \"\"");
  t_api()->session_destroy(s);
  /* the environment's folder, when the session names none */
  setenv("CUPLUG_CACHE_DIR", dir, 1);
  s = session_in(NULL, 0, 0, 0);
  ck_assert_str_eq(info_of(s).dir, dir);
  t_api()->session_destroy(s);
  setenv("CUPLUG_CACHE_DIR", "", 1);
  s = session_in(NULL, 0, 0, 0);
  ck_assert_str_eq(info_of(s).status, "memory only: CUPLUG_CACHE_DIR is empty");
  t_api()->session_destroy(s);
  unsetenv("CUPLUG_CACHE_DIR");
  setenv("XDG_CACHE_HOME", dir, 1);
  s = session_in(NULL, 0, 0, 0);
  char want[300];
  snprintf(want, sizeof want, "%s/cuplug", dir);
  ck_assert_str_eq(info_of(s).dir, want);
  t_api()->session_destroy(s);
  setenv("CUPLUG_CACHE_DIR", "", 1); /* as the suite runs */
}
END_TEST

START_TEST(clear_empties_both) {
  cuplug_session *s = session();
  where(s, &t_k_sum, 0);
  where(s, &t_k_neg, 0);
  ck_assert_uint_eq(info_of(s).disk_entries, 2);
  T_ASSERT_OK(clear(s));
  cuplug_cache_info i = info_of(s);
  ck_assert_uint_eq(i.disk_entries, 0);
  ck_assert_uint_eq(i.disk_bytes, 0);
  ck_assert_uint_eq(i.memory_entries, 0);
  ck_assert_int_eq(where(s, &t_k_sum, 0), CUPLUG_CACHE_MISS);
  T_ASSERT_ERROR(clear(NULL), CUPLUG_ERR_INVALID_ARGUMENT, "cache_clear: session is NULL");
  cuplug_cache_info none = {.struct_size = sizeof none};
  T_ASSERT_ERROR(t_api()->cache_info(&none), CUPLUG_ERR_INVALID_ARGUMENT,
                 "cache_info: session is NULL");
  T_ASSERT_ERROR(t_api()->cache_info(NULL), CUPLUG_ERR_INVALID_ARGUMENT,
                 "cuplug_cache_info is NULL");
  none.struct_size = 8; /* the first version has the session */
  T_ASSERT_ERROR(t_api()->cache_info(&none), CUPLUG_ERR_INVALID_ARGUMENT,
                 "cuplug_cache_info has struct_size 8, less than the 16 bytes of its first "
                 "version: set struct_size = sizeof(cuplug_cache_info)");
  t_api()->session_destroy(s);
}
END_TEST

/* ---- what the IR calls, and the code it links ---- */

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

/* The kernel that calls ext_mul, to a cubin, linking `link` (or nothing). */
static cuplug_artifact *compile_calling(cuplug_session *s, const cuplug_code *link) {
  cuplug_module m = {.struct_size = sizeof m, .text = t_calls_ext_mul_ir,
                     .size = strlen(t_calls_ext_mul_ir)};
  const cuplug_module *mods[] = {&m};
  const cuplug_code *codes[] = {link};
  const char *includes[] = {dir};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = "k",
                           .signature = "void(CPointer(int32), int32, int32)",
                           .kind = CUPLUG_KERNEL, .output = CUPLUG_OUTPUT_CUBIN, .cc_major = 9,
                           .link = link ? codes : NULL, .num_link = link ? 1 : 0,
                           .include_paths = includes, .num_include_paths = 1};
  T_ASSERT_OK(t_api()->compile(&a));
  return a.artifact;
}

static cuplug_cache_result calling(cuplug_session *s, const cuplug_code *link) {
  cuplug_artifact *a = compile_calling(s, link);
  cuplug_cache_result r = art_info(a).cache;
  t_api()->artifact_destroy(a);
  return r;
}

/* ext.cu, which includes ext.h, in the test's folder: their paths. */
static void write_ext(char cu[300], char h[300]) {
  snprintf(cu, 300, "%s/ext.cu", dir);
  snprintf(h, 300, "%s/ext.h", dir);
  write_file(h, "#define EXTRA 0\n");
  write_file(cu, "#include \"ext.h\"\n"
                 "extern \"C\" __device__ int ext_mul(int* r, int a, int b) "
                 "{ *r = a * b + EXTRA; return 0; }\n");
}

START_TEST(a_changed_cu_or_header_is_built_again) {
  char cu[300], h[300];
  write_ext(cu, h);
  cuplug_code code = {.struct_size = sizeof code, .path = cu};
  cuplug_session *s = session();
  ck_assert_int_eq(calling(s, &code), CUPLUG_CACHE_MISS);
  ck_assert_int_eq(calling(s, &code), CUPLUG_CACHE_MEMORY);
  write_file(h, "#define EXTRA 1\n"); /* the header */
  ck_assert_int_eq(calling(s, &code), CUPLUG_CACHE_MISS);
  ck_assert_int_eq(calling(s, &code), CUPLUG_CACHE_MEMORY);
  write_file(cu, "#include \"ext.h\"\n" /* the .cu */
                 "extern \"C\" __device__ int ext_mul(int* r, int a, int b) "
                 "{ *r = a * b - EXTRA; return 0; }\n");
  ck_assert_int_eq(calling(s, &code), CUPLUG_CACHE_MISS);
  t_api()->session_destroy(s);
}
END_TEST

START_TEST(a_declared_function_is_in_the_key) {
  char cu[300], h[300];
  write_ext(cu, h);
  cuplug_session *s = session();
  /* to PTX, with ext_mul undeclared: an extern call */
  cuplug_module m = {.struct_size = sizeof m, .text = t_calls_ext_mul_ir,
                     .size = strlen(t_calls_ext_mul_ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = "k",
                           .signature = "void(CPointer(int32), int32, int32)",
                           .kind = CUPLUG_KERNEL, .output = CUPLUG_OUTPUT_PTX, .cc_major = 9};
  T_ASSERT_OK(t_api()->compile(&a));
  ck_assert_int_eq(art_info(a.artifact).cache, CUPLUG_CACHE_MISS);
  t_api()->artifact_destroy(a.artifact);
  /* declaring it changes what the compile means */
  cuplug_code code = {.struct_size = sizeof code, .path = cu};
  const cuplug_code *codes[] = {&code};
  cuplug_declare_device_args d = {.struct_size = sizeof d,
                                  .registry = t_api()->session_registry(s), .name = "ext_mul",
                                  .signature = "int32(int32, int32)", .link = codes,
                                  .num_link = 1};
  T_ASSERT_OK(t_api()->declare_device(&d));
  T_ASSERT_OK(t_api()->compile(&a));
  ck_assert_int_eq(art_info(a.artifact).cache, CUPLUG_CACHE_MISS);
  t_api()->artifact_destroy(a.artifact);
  /* the cubin links the declared code, whose header can change */
  ck_assert_int_eq(calling(s, NULL), CUPLUG_CACHE_MISS);
  ck_assert_int_eq(calling(s, NULL), CUPLUG_CACHE_MEMORY);
  write_file(h, "#define EXTRA 2\n");
  ck_assert_int_eq(calling(s, NULL), CUPLUG_CACHE_MISS);
  t_api()->session_destroy(s);
}
END_TEST

START_TEST(links_are_cached) {
  cuplug_session *s = session();
  cuplug_artifact *k1 = compile(s, &t_k_sum, 0, 0), *k2 = compile(s, &t_k_neg, 0, 0);
  const cuplug_artifact *arts[] = {k1, k2};
  cuplug_link_args l = {.struct_size = sizeof l, .session = s, .artifacts = arts,
                        .num_artifacts = 2};
  static const char *const built[] = {"look_up",   "choose_cc", "gather_code", "hand_over",
                                      "run_nvjitlink", "hand_back", "describe",  "keep"};
  cuplug_cache_result seen[4];
  size_t size0 = 0;
  void *cubin0 = NULL;
  for (int i = 0; i < 4; i++) {
    l.max_registers = i < 2 ? 0 : 32;
    l.flags = i == 3 ? CUPLUG_LINK_NO_CACHE : 0;
    uint64_t t0 = clock_ns();
    T_ASSERT_OK(t_api()->link(&l));
    /* where the link's time went: a hit has only its look-up */
    assert_stages(l.artifact, built, i == 1 ? 1 : 8, clock_ns() - t0);
    cuplug_artifact_info li = art_info(l.artifact);
    seen[i] = li.cache;
    ck_assert_uint_eq(li.output, CUPLUG_OUTPUT_CUBIN);
    if (i == 0) cubin0 = malloc(size0 = li.size), memcpy(cubin0, li.data, li.size);
    if (i == 1) ck_assert_mem_eq(li.data, cubin0, size0);
    t_api()->artifact_destroy(l.artifact);
  }
  ck_assert_int_eq(seen[0], CUPLUG_CACHE_MISS);
  ck_assert_int_eq(seen[1], CUPLUG_CACHE_MEMORY);
  ck_assert_int_eq(seen[2], CUPLUG_CACHE_MISS); /* max_registers */
  ck_assert_int_eq(seen[3], CUPLUG_CACHE_NONE);
  l.flags = 0x80;
  T_ASSERT_ERROR(t_api()->link(&l), CUPLUG_ERR_INVALID_ARGUMENT, "link: unknown flags 0x80");
  free(cubin0);
  t_api()->artifact_destroy(k1);
  t_api()->artifact_destroy(k2);
  t_api()->session_destroy(s);
}
END_TEST

/* ---- bad entries and unusable folders ---- */

/* The path of the one entry `folder` holds. */
static void the_entry_in(const char *folder, char *out, size_t cap) {
  char v1[400];
  snprintf(v1, sizeof v1, "%s/v1", folder);
  DIR *d = opendir(v1);
  ck_assert_ptr_nonnull(d);
  int found = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char sub[700];
    snprintf(sub, sizeof sub, "%s/%s", v1, e->d_name);
    DIR *f = opendir(sub);
    for (struct dirent *g; f && (g = readdir(f));)
      if (g->d_name[0] != '.') found++, snprintf(out, cap, "%s/%s", sub, g->d_name);
    if (f) closedir(f);
  }
  closedir(d);
  ck_assert_int_eq(found, 1);
}

static void the_entry(char *out, size_t cap) { the_entry_in(dir, out, cap); }

typedef enum { FLIP_LAST_BYTE, TRUNCATE, OLD_FORMAT, NOT_AN_ENTRY, OTHERS_WRITE } damage;

static void damage_entry(const char *path, damage how) {
  int fd = open(path, O_RDWR);
  ck_assert_int_ge(fd, 0);
  struct stat st;
  fstat(fd, &st);
  unsigned char b;
  switch (how) {
    case FLIP_LAST_BYTE:
      pread(fd, &b, 1, st.st_size - 1);
      b ^= 0x40;
      pwrite(fd, &b, 1, st.st_size - 1);
      break;
    case TRUNCATE: ck_assert_int_eq(ftruncate(fd, st.st_size / 2), 0); break;
    case OLD_FORMAT: {
      uint32_t format = 0; /* the field after the 8-byte magic */
      pwrite(fd, &format, 4, 8);
      break;
    }
    case NOT_AN_ENTRY: pwrite(fd, "garbage!", 8, 0); break;
    case OTHERS_WRITE: ck_assert_int_eq(fchmod(fd, 0666), 0); break;
  }
  close(fd);
}

START_TEST(bad_entries_are_rebuilt) {
  static const struct {
    damage how;
    const char *said;
  } cases[] = {{FLIP_LAST_BYTE, "corrupt (its digest does not match)"},
               {TRUNCATE, "truncated"},
               {OLD_FORMAT, "written in another format"},
               {NOT_AN_ENTRY, "not a cuplug cache entry"},
               {OTHERS_WRITE, "writable by others (mode 0666)"}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    cuplug_session *s = session();
    T_ASSERT_OK(clear(s));
    ck_assert_int_eq(where(s, &t_k_sum, 0), CUPLUG_CACHE_MISS);
    t_api()->session_destroy(s);
    char path[1024];
    the_entry(path, sizeof path);
    damage_entry(path, cases[c].how);
    s = session();
    cuplug_artifact *a = compile(s, &t_k_sum, 0, 0);
    cuplug_artifact_info i = art_info(a);
    ck_assert_int_eq(i.cache, CUPLUG_CACHE_MISS);
    ck_assert_uint_eq(i.num_warnings, 1);
    const cuplug_error *w = t_api()->artifact_warning(a, 0);
    ck_assert_int_eq(t_api()->error_code(w), CUPLUG_WARN_CACHE);
    char want[1200];
    snprintf(want, sizeof want, "cuplug's disk cache entry %s was %s; it is rebuilt", path,
             cases[c].said);
    ck_assert_str_eq(t_api()->error_message(w), want);
    t_api()->artifact_destroy(a);
    ck_assert_uint_eq(info_of(s).rebuilt, 1);
    t_api()->session_destroy(s);
    s = session(); /* rebuilt: whole again */
    ck_assert_int_eq(where(s, &t_k_sum, 0), CUPLUG_CACHE_DISK);
    t_api()->session_destroy(s);
  }
}
END_TEST

/* A compile whose cache folder `folder` fails: the result is built, the
 * warning (its status begins with `status` and ends with `error`) said
 * once, the next compile quiet.  No Check asserts (a child process runs
 * it): NULL when all holds, else what did not. */
static const char *compiles_despite(const char *folder, const char *status, const char *error,
                                    bool reads_too) {
  static char why[1500];
  cuplug_session *s = child_session(folder, 0);
  cuplug_artifact *a = NULL;
  if (child_compile(s, &t_k_sum, 0, NULL, NULL, &a) != CUPLUG_CACHE_MISS) /* kept in memory */
    return "the first compile was not a miss";
  const cuplug_error *w = t_api()->artifact_warning(a, 0);
  char head[1200], tail[300];
  snprintf(head, sizeof head, "cuplug's disk cache %s: %s/v1/",
           reads_too ? "is off" : "stores no more results", status);
  snprintf(tail, sizeof tail, ": %s; %s", error,
           reads_too ? "compiling without it" : "the entries already there are still read");
  const char *said = w ? t_api()->error_message(w) : "(no warning)";
  bool ok = w && t_api()->error_code(w) == CUPLUG_WARN_CACHE && !t_api()->artifact_warning(a, 1) &&
            strncmp(said, head, strlen(head)) == 0 && strlen(said) > strlen(tail) &&
            strcmp(said + strlen(said) - strlen(tail), tail) == 0;
  snprintf(why, sizeof why, "the warning: %s", said);
  t_api()->artifact_destroy(a);
  if (!ok) return why;
  cuplug_artifact *quiet = NULL;
  if (child_compile(s, &t_k_neg, 0, NULL, NULL, &quiet) != CUPLUG_CACHE_MISS ||
      t_api()->artifact_warning(quiet, 0))
    return "the second compile warned again, or was not a miss";
  t_api()->artifact_destroy(quiet);
  cuplug_cache_info ci = {.struct_size = sizeof ci, .session = s};
  if (t_api()->cache_info(&ci) || strncmp(ci.status, status, strlen(status)) != 0)
    return "cache_info's status";
  t_api()->session_destroy(s);
  return NULL;
}

START_TEST(a_folder_that_cannot_be) {
  char file[300], folder[400], status[900];
  snprintf(file, sizeof file, "%s/a-file", dir);
  write_file(file, "not a folder\n");
  snprintf(folder, sizeof folder, "%s/cache", file);
  snprintf(status, sizeof status, "cannot make the cache folder %s", folder);
  const char *failed = compiles_despite(folder, status, "Not a directory", true);
  ck_assert_msg(!failed, "%s", failed);
}
END_TEST

START_TEST(a_full_folder) {
  /* a file size limit makes every write fail, as a full disk does; in a
   * child process, for Check's own files must not meet the limit */
  pid_t pid = fork();
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = {64, 64};
    if (setrlimit(RLIMIT_FSIZE, &small) != 0) _exit(3);
    char status[900];
    snprintf(status, sizeof status, "cannot write to the cache folder %s", dir);
    const char *failed = compiles_despite(dir, status, "File too large", false);
    if (failed) fprintf(stderr, "a_full_folder: %s\n", failed);
    _exit(failed ? 1 : 0);
  }
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: %d", status);
}
END_TEST

/* Sets the mode of every subfolder of `dir`; false when one cannot be. */
static bool chmod_subfolders(const char *dir, mode_t mode) {
  DIR *d = opendir(dir);
  bool ok = d != NULL;
  for (struct dirent *e; ok && (e = readdir(d));) {
    char sub[600];
    snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
    ok = e->d_name[0] == '.' || e->d_type != DT_DIR || chmod(sub, mode) == 0;
  }
  if (d) closedir(d);
  return ok;
}

START_TEST(a_read_only_folder) {
  /* an entry is there; then the folder can no longer be written (trusted
   * sessions: the toolkit in process, for nobody may not run the helper) */
  cuplug_session *s = session_in(dir, CUPLUG_SESSION_TRUSTED, 0, 0);
  ck_assert_int_eq(where(s, &t_k_sum, 0), CUPLUG_CACHE_MISS);
  t_api()->session_destroy(s);
  /* root writes anywhere: the check runs as nobody, whose folder it becomes
   * (the cache reads only its user's folders) */
  if (geteuid() == 0) ck_assert_int_eq(nftw(dir, own_by_nobody, 16, FTW_PHYS), 0);
  char v1[300];
  snprintf(v1, sizeof v1, "%s/v1", dir);
  pid_t pid = fork();
  if (pid == 0) {
    if (geteuid() == 0 && (setgid(NOBODY) != 0 || setuid(NOBODY) != 0)) _exit(3);
    /* no new subfolder for the next entry, and no new entry in the one
     * there: keys hash the build, so the next entry's subfolder may be the
     * first's (one build in 256) */
    if (chmod(v1, 0500) != 0) _exit(7);
    if (!chmod_subfolders(v1, 0500)) _exit(7);
    cuplug_session *ro = child_session(dir, CUPLUG_SESSION_TRUSTED);
    if (child_compile(ro, &t_k_sum, 0, NULL, NULL, NULL) != CUPLUG_CACHE_DISK)
      _exit(4); /* still read */
    cuplug_artifact *a = NULL;
    if (child_compile(ro, &t_k_neg, 0, NULL, NULL, &a) != CUPLUG_CACHE_MISS) _exit(6);
    const cuplug_error *w = t_api()->artifact_warning(a, 0);
    char make[900], write[900]; /* the entry's subfolder is new, or the first's */
    snprintf(make, sizeof make,
             "cuplug's disk cache stores no more results: cannot make the cache folder "
             "%s/v1/", dir);
    snprintf(write, sizeof write,
             "cuplug's disk cache stores no more results: cannot write to the cache folder "
             "%s/v1/", dir);
    if (!w || t_api()->error_code(w) != CUPLUG_WARN_CACHE ||
        (strncmp(t_api()->error_message(w), make, strlen(make)) != 0 &&
         strncmp(t_api()->error_message(w), write, strlen(write)) != 0) ||
        !strstr(t_api()->error_message(w), ": Permission denied; the entries already there "
                                           "are still read")) {
      fprintf(stderr, "a_read_only_folder: %s\n", w ? t_api()->error_message(w) : "no warning");
      _exit(5);
    }
    t_api()->artifact_destroy(a);
    _exit(0);
  }
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  chmod(v1, 0700);
  chmod_subfolders(v1, 0700);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: %d", status);
}
END_TEST

/* ---- whose folder it is ---- */

static mode_t mode_of(const char *path) {
  struct stat st;
  ck_assert_msg(stat(path, &st) == 0, "%s: %s", path, strerror(errno));
  return st.st_mode & 07777;
}

/* The folder an entry lies in. */
static void folder_of(const char *entry, char *out, size_t cap) {
  snprintf(out, cap, "%.*s", (int)(strrchr(entry, '/') - entry), entry);
}

/* Entries are code that runs on the GPU: every folder cuplug makes is
 * 0700, every entry 0600, whatever the umask. */
START_TEST(made_for_the_user_alone) {
  static const mode_t masks[] = {0, 022, 0277};
  for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++) {
    char above[300], folder[400], v1[500], entry[1024], sub[1024];
    snprintf(above, sizeof above, "%s/new%zu", dir, m); /* made too */
    snprintf(folder, sizeof folder, "%s/cache", above);
    snprintf(v1, sizeof v1, "%s/v1", folder);
    mode_t old = umask(masks[m]);
    cuplug_session *s = session_in(folder, 0, 0, 0);
    cuplug_cache_result r = where(s, &t_k_sum, 0);
    t_api()->session_destroy(s);
    umask(old);
    ck_assert_int_eq(r, CUPLUG_CACHE_MISS);
    the_entry_in(folder, entry, sizeof entry);
    folder_of(entry, sub, sizeof sub);
    ck_assert_uint_eq(mode_of(above), 0700);
    ck_assert_uint_eq(mode_of(folder), 0700);
    ck_assert_uint_eq(mode_of(v1), 0700);
    ck_assert_uint_eq(mode_of(sub), 0700);
    ck_assert_uint_eq(mode_of(entry), 0600);
  }
}
END_TEST

/* An older cuplug made its folders 0755 and its entries 0644: the entries
 * are still found, and cuplug's own folders become the user's alone; the
 * folder the user named is left as it is. */
START_TEST(an_older_cuplugs_folder) {
  cuplug_session *s = session();
  ck_assert_int_eq(where(s, &t_k_sum, 0), CUPLUG_CACHE_MISS);
  t_api()->session_destroy(s);
  char v1[300], entry[1024], sub[1024];
  snprintf(v1, sizeof v1, "%s/v1", dir);
  the_entry(entry, sizeof entry);
  folder_of(entry, sub, sizeof sub);
  const char *folders[] = {dir, v1, sub};
  for (int i = 0; i < 3; i++) ck_assert_int_eq(chmod(folders[i], 0755), 0);
  ck_assert_int_eq(chmod(entry, 0644), 0);
  s = session();
  ck_assert_int_eq(where(s, &t_k_sum, 0), CUPLUG_CACHE_DISK); /* no warning either */
  ck_assert_str_eq(info_of(s).status, "ok");
  t_api()->session_destroy(s);
  ck_assert_uint_eq(mode_of(dir), 0755);
  ck_assert_uint_eq(mode_of(v1), 0700);
  ck_assert_uint_eq(mode_of(sub), 0700);
  ck_assert_uint_eq(mode_of(entry), 0644); /* behind a folder only its user enters */
}
END_TEST

/* The entry's bytes, and the names in its subfolder and in v1. */
typedef struct snapshot {
  char *bytes;
  size_t size;
  char names[512];
} snapshot;

static void names_in(const char *folder, char *out, size_t cap) {
  DIR *d = opendir(folder);
  ck_assert_ptr_nonnull(d);
  size_t n = strlen(out);
  for (struct dirent *e; (e = readdir(d));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s ", e->d_name);
  closedir(d);
}

static snapshot snap(const char *entry) {
  snapshot sn = {.bytes = t_read(entry, &sn.size)};
  char v1[300], sub[1024];
  snprintf(v1, sizeof v1, "%s/v1", dir);
  folder_of(entry, sub, sizeof sub);
  names_in(v1, sn.names, sizeof sn.names);
  names_in(sub, sn.names, sizeof sn.names);
  return sn;
}

/* A compile with the cache in `dir`, whose folder is not to be trusted for
 * `why`: built, not read from the folder (the entry planted there is not
 * used) nor written to it, and said once. */
static void not_trusted(const char *entry, const char *why) {
  snapshot before = snap(entry);
  cuplug_session *s = session();
  cuplug_artifact *a = compile(s, &t_k_sum, 0, 0);
  cuplug_artifact_info i = art_info(a);
  ck_assert_int_eq(i.cache, CUPLUG_CACHE_MISS);
  ck_assert_uint_eq(i.num_warnings, 1);
  const cuplug_error *w = t_api()->artifact_warning(a, 0);
  ck_assert_int_eq(t_api()->error_code(w), CUPLUG_WARN_CACHE);
  char want[1200];
  snprintf(want, sizeof want, "cuplug's disk cache is off: %s; compiling without it", why);
  ck_assert_str_eq(t_api()->error_message(w), want);
  t_api()->artifact_destroy(a);
  ck_assert_int_eq(where(s, &t_k_neg, 0), CUPLUG_CACHE_MISS); /* quiet, and memory only */
  ck_assert_int_eq(where(s, &t_k_neg, 0), CUPLUG_CACHE_MEMORY);
  cuplug_cache_info ci = info_of(s);
  ck_assert_str_eq(ci.status, why);
  ck_assert_uint_eq(ci.disk_entries, 0);
  ck_assert_uint_eq(ci.stores, 2);
  T_ASSERT_OK(clear(s)); /* removes nothing there either */
  t_api()->session_destroy(s);
  snapshot after = snap(entry);
  ck_assert_str_eq(after.names, before.names);
  ck_assert_uint_eq(after.size, before.size);
  ck_assert_mem_eq(after.bytes, before.bytes, before.size);
  free(before.bytes);
  free(after.bytes);
}

/* A folder others can write (the cache folder, or a folder cuplug made
 * under it) is not used. */
START_TEST(a_folder_others_can_write) {
  cuplug_session *s = session();
  ck_assert_int_eq(where(s, &t_k_sum, 0), CUPLUG_CACHE_MISS);
  t_api()->session_destroy(s);
  char entry[1024], sub[1024], why[1400];
  the_entry(entry, sizeof entry);
  folder_of(entry, sub, sizeof sub);
  static const mode_t modes[] = {0777, 0770, 01777};
  static const char *const said[] = {"0777", "0770", "1777"};
  for (int m = 0; m < 3; m++) {
    ck_assert_int_eq(chmod(dir, modes[m]), 0);
    snprintf(why, sizeof why, "the cache folder %s is writable by others (mode %s)", dir,
             said[m]);
    not_trusted(entry, why);
  }
  ck_assert_int_eq(chmod(dir, 0700), 0);
  ck_assert_int_eq(chmod(sub, 0757), 0);
  snprintf(why, sizeof why, "the cache folder %s is writable by others (mode 0757)", sub);
  not_trusted(entry, why);
  /* cache_info finds it first: its status says why, the next compile warns */
  s = session();
  ck_assert_int_eq(chmod(dir, 0722), 0);
  snprintf(why, sizeof why, "the cache folder %s is writable by others (mode 0722)", dir);
  ck_assert_str_eq(info_of(s).status, why);
  cuplug_artifact *a = compile(s, &t_k_sum, 0, 0);
  ck_assert_uint_eq(art_info(a).num_warnings, 1);
  ck_assert_int_eq(art_info(a).cache, CUPLUG_CACHE_MISS);
  t_api()->artifact_destroy(a);
  t_api()->session_destroy(s);
  ck_assert_int_eq(chmod(dir, 0700), 0);
  ck_assert_int_eq(chmod(sub, 0700), 0);
  s = session(); /* the folder is the user's again: found */
  ck_assert_int_eq(where(s, &t_k_sum, 0), CUPLUG_CACHE_DISK);
  t_api()->session_destroy(s);
}
END_TEST

/* Another user's folder is not used; another user's entry in the user's
 * folder is removed and rebuilt. */
START_TEST(another_users_folder) {
  cuplug_session *s = session();
  ck_assert_int_eq(where(s, &t_k_sum, 0), CUPLUG_CACHE_MISS);
  t_api()->session_destroy(s);
  char entry[1024], why[1400];
  the_entry(entry, sizeof entry);
  ck_assert_int_eq(nftw(dir, own_by_nobody, 16, FTW_PHYS), 0);
  snprintf(why, sizeof why, "the cache folder %s is owned by uid %d, not you", dir, NOBODY);
  not_trusted(entry, why);
  struct stat st;
  ck_assert_int_eq(stat(entry, &st), 0);
  ck_assert_uint_eq(st.st_uid, NOBODY); /* untouched */

  /* the folders are the user's again, the entry is not */
  char v1[300], sub[1024];
  snprintf(v1, sizeof v1, "%s/v1", dir);
  folder_of(entry, sub, sizeof sub);
  const char *folders[] = {dir, v1, sub};
  for (int i = 0; i < 3; i++) ck_assert_int_eq(chown(folders[i], 0, 0), 0);
  s = session();
  cuplug_artifact *a = compile(s, &t_k_sum, 0, 0);
  ck_assert_int_eq(art_info(a).cache, CUPLUG_CACHE_MISS);
  ck_assert_uint_eq(art_info(a).num_warnings, 1);
  snprintf(why, sizeof why,
           "cuplug's disk cache entry %s was owned by uid %d, not you; it is rebuilt", entry,
           NOBODY);
  ck_assert_str_eq(t_api()->error_message(t_api()->artifact_warning(a, 0)), why);
  t_api()->artifact_destroy(a);
  t_api()->session_destroy(s);
  ck_assert_int_eq(stat(entry, &st), 0);
  ck_assert_uint_eq(st.st_uid, 0); /* rebuilt: the user's */
  s = session();
  ck_assert_int_eq(where(s, &t_k_sum, 0), CUPLUG_CACHE_DISK);
  t_api()->session_destroy(s);
}
END_TEST

/* ---- sharing and bounds ---- */

START_TEST(processes_share_a_folder) {
  const t_kernel *kernels[] = {&t_k_const, &t_k_sum, &t_k_neg};
  void *want[6];
  size_t want_size[6];
  cuplug_session *plain = t_session_uncached();
  for (int k = 0; k < 6; k++)
    compiled(plain, kernels[k % 3], k / 3 + 1, 0, &want[k], &want_size[k]);
  t_api()->session_destroy(plain);
  enum { PROCESSES = 6, ROUNDS = 8 };
  pid_t pids[PROCESSES];
  for (int p = 0; p < PROCESSES; p++) {
    if ((pids[p] = fork()) == 0) {
      for (int r = 0; r < ROUNDS; r++) {
        cuplug_session *s = child_session(dir, 0); /* a new one each round: from disk */
        for (int i = 0; i < 6; i++) {
          int k = (i + p + r) % 6;
          void *got;
          size_t size;
          if (child_compile(s, kernels[k % 3], k / 3 + 1, &got, &size, NULL) < 0) _exit(9);
          if (size != want_size[k] || memcmp(got, want[k], size) != 0) _exit(10 + k);
          free(got);
        }
        cuplug_cache_info ci = {.struct_size = sizeof ci, .session = s};
        if (t_api()->cache_info(&ci) || ci.rebuilt) _exit(20); /* a torn entry */
        t_api()->session_destroy(s);
      }
      _exit(0);
    }
  }
  for (int p = 0; p < PROCESSES; p++) {
    int status;
    ck_assert_int_eq(waitpid(pids[p], &status, 0), pids[p]);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "process %d: status %d", p,
                  status);
  }
  cuplug_session *s = session();
  ck_assert_uint_eq(info_of(s).disk_entries, 6);
  t_api()->session_destroy(s);
  for (int k = 0; k < 6; k++) free(want[k]);
}
END_TEST

START_TEST(the_least_recently_used_go) {
  cuplug_session *s = session();
  where(s, &t_k_sum, 1);
  uint64_t entry = info_of(s).disk_bytes; /* the entries are alike in size, within bytes */
  t_api()->session_destroy(s);
  s = session_in(dir, CUPLUG_SESSION_TRUSTED, 0, 0);
  T_ASSERT_OK(clear(s));
  t_api()->session_destroy(s);
  uint64_t bound = entry * 3 + entry / 2;
  s = session_in(dir, 0, bound, 0);
  const t_kernel *kernels[] = {&t_k_sum, &t_k_neg, &t_k_const};
  for (int k = 0; k < 6; k++) {
    ck_assert_int_eq(where(s, kernels[k % 3], k / 3 + 1), CUPLUG_CACHE_MISS);
    usleep(20000); /* entries' times a clock tick apart */
  }
  cuplug_cache_info i = info_of(s);
  ck_assert_uint_le(i.disk_bytes, bound);
  ck_assert_uint_ge(i.disk_entries, 2);
  t_api()->session_destroy(s);
  s = session_in(dir, 0, bound, 0);
  ck_assert_int_eq(where(s, kernels[5 % 3], 2), CUPLUG_CACHE_DISK);  /* the newest stays */
  ck_assert_int_eq(where(s, kernels[0], 1), CUPLUG_CACHE_MISS);      /* the oldest went */
  t_api()->session_destroy(s);
  /* memory has its own bound */
  s = session_in("", 0, 0, entry + entry / 2);
  where(s, &t_k_sum, 1);
  where(s, &t_k_neg, 1);
  ck_assert_uint_eq(info_of(s).memory_entries, 1);
  ck_assert_int_eq(where(s, &t_k_neg, 1), CUPLUG_CACHE_MEMORY);
  ck_assert_int_eq(where(s, &t_k_sum, 1), CUPLUG_CACHE_MISS);
  t_api()->session_destroy(s);
}
END_TEST

/* ---- the bytes of an artifact ---- */

START_TEST(artifacts_read_back) {
  cuplug_session *s = t_session_uncached();
  cuplug_module m = {.struct_size = sizeof m, .text = t_k_sum.ir, .size = strlen(t_k_sum.ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = "k_sum", .signature = t_k_sum.signature,
                           .kind = CUPLUG_KERNEL, .output = CUPLUG_OUTPUT_PTX, .cc_major = 9,
                           .debug = 1, .flags = CUPLUG_COMPILE_KEEP_IR}; /* a warning, IR */
  T_ASSERT_OK(t_api()->compile(&a));
  ck_assert_uint_eq(a.artifact->num_warnings, 1);
  ck_assert_uint_ge(a.artifact->num_ir, 1);
  cuplug__buf b1, b2;
  cuplug__buf_init(&b1);
  cuplug__buf_init(&b2);
  T_ASSERT_OK(cuplug__artifact_save(a.artifact, &b1));
  cuplug_artifact *back;
  T_ASSERT_OK(cuplug__artifact_restore(b1.data, b1.len, &back));
  T_ASSERT_OK(cuplug__artifact_save(back, &b2));
  ck_assert_uint_eq(b1.len, b2.len);
  ck_assert_mem_eq(b1.data, b2.data, b1.len);
  ck_assert_ptr_eq(back->signature, a.artifact->signature);
  ck_assert_str_eq(t_api()->error_message(back->warnings[0]),
                   t_api()->error_message(a.artifact->warnings[0]));
  ck_assert_uint_eq(back->num_kernels, 1);
  ck_assert(back->kernels[0].debug);
  t_api()->artifact_destroy(back);
  /* every shorter prefix, and one byte more, is refused */
  for (size_t n = 0; n < b1.len; n += 1 + n / 64) {
    cuplug_artifact *none = (cuplug_artifact *)1;
    T_ASSERT_ERROR(cuplug__artifact_restore(b1.data, n, &none), CUPLUG_ERR_IO,
                   "a cached result does not read back");
    ck_assert_ptr_null(none);
  }
  cuplug__buf_putc(&b1, 0);
  T_ASSERT_ERROR(cuplug__artifact_restore(b1.data, b1.len, &back), CUPLUG_ERR_IO,
                 "a cached result does not read back");
  cuplug__buf_free(&b1);
  cuplug__buf_free(&b2);
  t_api()->artifact_destroy(a.artifact);
  t_api()->session_destroy(s);
}
END_TEST

Suite *suite_cache(void) {
  Suite *s = suite_create("cache");
  TCase *tc = t_tcase(s, "hits", T_NVVM, setup, teardown, 240);
  tcase_add_test(tc, memory_then_disk);
  tcase_add_test(tc, stages_are_timed);
  tcase_add_test(tc, every_option_is_in_the_key);
  tcase_add_test(tc, no_cache_session_and_environment);
  tcase_add_test(tc, clear_empties_both);

  tc = t_tcase(s, "linked_code", T_TOOLKIT, setup, teardown, 240);
  tcase_add_test(tc, a_changed_cu_or_header_is_built_again);
  tcase_add_test(tc, a_declared_function_is_in_the_key);

  tc = t_tcase(s, "links", T_NVVM | T_NVJITLINK, setup, teardown, 240);
  tcase_add_test(tc, links_are_cached);

  tc = t_tcase(s, "bad_entries", T_NVVM, setup, teardown, 240);
  tcase_add_test(tc, bad_entries_are_rebuilt);
  tcase_add_test(tc, a_folder_that_cannot_be);
  tcase_add_test(tc, a_full_folder);
  tcase_add_test(tc, a_read_only_folder);

  tc = t_tcase(s, "trust", T_NVVM, setup, teardown, 240);
  tcase_add_test(tc, made_for_the_user_alone);
  tcase_add_test(tc, an_older_cuplugs_folder);
  tcase_add_test(tc, a_folder_others_can_write);

  tc = t_tcase(s, "another_user", T_NVVM | T_ROOT, setup, teardown, 240);
  tcase_add_test(tc, another_users_folder);

  tc = t_tcase(s, "sharing", T_NVVM, setup, teardown, 240);
  tcase_add_test(tc, processes_share_a_folder);
  tcase_add_test(tc, the_least_recently_used_go);

  tc = t_tcase(s, "artifact_bytes", T_NVVM, setup, teardown, 240);
  tcase_add_test(tc, artifacts_read_back);
  return s;
}
