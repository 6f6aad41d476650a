/* results.c - the result cache for compile and link: what a result
 * depends on, written out as its key; fetching and keeping results.
 *
 * A key covers everything that can change a result, and no more:
 *
 *   cuplug's build and the toolkit's files    (build.c, toolkit_identity)
 *   the session's defaults that reach the result
 *   the call's inputs and options, as given   (a default is a default)
 *   the registered functions the IR declares  (their IR, or their code),
 *     and those their IR declares in turn; a name with nothing
 *     registered counts too, for registering it changes the result
 *   the code linked, and every header a .cu includes that is not the
 *     toolkit's, found as NVRTC finds it
 *
 * Time limits do not change results and are left out. */
#include "plugin/pipeline/results.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/map.h"
#include "base/types.h"
#include "lowering/irlex.h"
#include "plugin/registry/registry.h"

typedef struct keyer {
  cuplug__buf *b; /* the key's bytes */
  cuplug_registry *registry;
  const char *const *include_paths;
  size_t num_include_paths;
  char **names; /* declared names waiting, and those done (to hash each once) */
  size_t num_names, cap_names, next_name;
  bool oom;
} keyer;

/* ---- the key's bytes: every field with its length, so that "ab"+"c"
 * and "a"+"bc" differ ---- */

static void put_u64(keyer *k, uint64_t v) { cuplug__buf_append(k->b, (const char *)&v, 8); }

static void put_bytes(keyer *k, const void *data, size_t size) {
  put_u64(k, size);
  cuplug__buf_append(k->b, data, size);
}

static void put_str(keyer *k, const char *s) { /* NULL and "" differ */
  if (s)
    put_bytes(k, s, strlen(s));
  else
    put_u64(k, UINT64_MAX);
}

static void put_digest(keyer *k, const cuplug__digest *d) {
  cuplug__buf_append(k->b, (const char *)d->bytes, sizeof d->bytes);
}

/* A file's contents, by their digest (also to *d); or that it is missing
 * (false). */
static bool put_file(keyer *k, const char *path, cuplug__digest *d) {
  put_str(k, path);
  bool found = cuplug__file_digest(path, d);
  if (found)
    put_digest(k, d);
  else
    put_str(k, "missing");
  return found;
}

static void begin(keyer *k, cuplug_session *s, const char *domain) {
  put_str(k, domain);
  put_u64(k, CUPLUG__CACHE_FORMAT);
  cuplug__digest build = cuplug__build_digest();
  put_digest(k, &build);
  put_str(k, cuplug__toolkit_identity(&s->toolkit));
  put_u64(k, s->trusted); /* a trusted session compiles IR a safe one refuses */
  put_u64(k, s->default_cc_major);
  put_u64(k, s->default_cc_minor);
}

static void put_strings(keyer *k, const char *const *v, size_t n) {
  put_u64(k, v ? n : 0);
  for (size_t i = 0; v && i < n; i++) put_str(k, v[i]);
}

/* ---- CUDA C++ and the headers it includes ---- */

#define MAX_INCLUDE_DEPTH 32

static void hash_includes(keyer *k, const char *text, size_t size, const char *dir, int depth);

/* An `#include` line of text[..end), whatever #if surrounds it: a header
 * that might be read counts. */
typedef struct include_line {
  const char *hash;  /* its '#' */
  const char *after; /* just past "include" */
  const char *eol;
} include_line;

/* The next #include line at or after *at (which moves past it); false when
 * there is none. */
static bool next_include(const char **at, const char *end, include_line *out) {
  for (const char *line = *at; line < end;) {
    const char *eol = memchr(line, '\n', (size_t)(end - line));
    if (!eol) eol = end;
    const char *p = line;
    line = eol + 1;
    while (p < eol && (*p == ' ' || *p == '\t')) p++;
    if (p == eol || *p != '#') continue;
    const char *q = p + 1;
    while (q < eol && (*q == ' ' || *q == '\t')) q++;
    if ((size_t)(eol - q) > 7 && memcmp(q, "include", 7) == 0) {
      *out = (include_line){p, q + 7, eol};
      *at = line;
      return true;
    }
  }
  *at = end;
  return false;
}

/* The `#include` lines of a text, each ending in a newline, appended to b. */
static void include_lines(const char *text, size_t size, cuplug__buf *b) {
  include_line inc;
  for (const char *at = text; next_include(&at, text + size, &inc);) {
    cuplug__buf_append(b, inc.hash, (size_t)(inc.eol - inc.hash));
    cuplug__buf_putc(b, '\n');
  }
}

/* A header's `#include` lines, kept by the digest of its contents: while a
 * header does not change it is read once a process, not at every look-up
 * of a result that links the .cu including it. */
typedef struct header_lines {
  char hex[65]; /* the map's key */
  char *lines;
  size_t size;
} header_lines;

static pthread_mutex_t headers_lock = PTHREAD_MUTEX_INITIALIZER;
static cuplug__map headers; /* hex digest -> header_lines */

__attribute__((destructor)) static void forget_headers(void) {
  for (size_t i = 0; i < headers.cap; i++) {
    header_lines *h = headers.slots[i].value;
    if (!h) continue;
    free(h->lines);
    free(h);
  }
  cuplug__map_free(&headers);
}

/* The include lines of the header at path, whose contents have digest d
 * (a malloc'd copy, or NULL when it cannot be read). */
static char *lines_of(const char *path, const cuplug__digest *d, size_t *size) {
  char hex[65];
  cuplug__digest_hex(d, hex);
  pthread_mutex_lock(&headers_lock);
  header_lines *h = cuplug__map_get(&headers, hex, 64);
  char *copy = h ? cuplug__strndup(h->lines, h->size) : NULL;
  if (h) *size = h->size;
  pthread_mutex_unlock(&headers_lock);
  if (h) return copy;
  size_t len;
  char *text = cuplug__read_file(path, &len);
  if (!text) return NULL;
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__buf_putc(&b, '\n'); /* never empty: a header without includes is kept too */
  include_lines(text, len, &b);
  /* filed under what was read, which a write since the digest may have changed */
  cuplug__digest_hex((cuplug__digest[]){cuplug__digest_of(text, len)}, hex);
  free(text);
  if (b.oom) {
    cuplug__buf_free(&b);
    return NULL;
  }
  *size = b.len;
  copy = cuplug__strndup(b.data, b.len);
  pthread_mutex_lock(&headers_lock);
  if (!cuplug__map_get(&headers, hex, 64) && (h = malloc(sizeof *h))) {
    memcpy(h->hex, hex, sizeof hex);
    h->lines = cuplug__buf_take(&b, &h->size);
    if (!h->lines || !cuplug__map_put(&headers, h->hex, h)) {
      free(h->lines);
      free(h);
    }
  }
  pthread_mutex_unlock(&headers_lock);
  cuplug__buf_free(&b);
  return copy;
}

/* The folder of a path ("" when it has none). */
static void dir_of(const char *path, char *out, size_t cap) {
  const char *slash = path ? strrchr(path, '/') : NULL;
  snprintf(out, cap, "%.*s", slash ? (int)(slash - path) : 0, slash ? path : "");
}

/* One #include: the first file NVRTC would find (the including file's
 * folder and the working folder for "x", then the include paths), hashed
 * with the headers it includes; or its absence. */
static void hash_include(keyer *k, const char *name, size_t n, bool quoted, const char *dir,
                         int depth) {
  put_bytes(k, name, n);
  char path[PATH_MAX];
  struct stat st;
  size_t num = k->num_include_paths + 2;
  for (size_t i = 0; i < num; i++) {
    const char *base = i == 0 ? dir : i == 1 ? "." : k->include_paths[i - 2];
    if (i < 2 && (!quoted || (i == 0 && (!dir || !*dir)))) continue;
    if (snprintf(path, sizeof path, "%s/%.*s", base, (int)n, name) >= (int)sizeof path) continue;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    cuplug__digest d;
    size_t len;
    char *text = put_file(k, path, &d) && depth < MAX_INCLUDE_DEPTH ? lines_of(path, &d, &len)
                                                                   : NULL;
    if (text) {
      char sub[PATH_MAX];
      dir_of(path, sub, sizeof sub);
      hash_includes(k, text, len, sub, depth + 1);
      free(text);
    }
    return;
  }
  put_str(k, "not found"); /* the toolkit's own, or none yet */
}

/* Every header a text's #include lines name. */
static void hash_includes(keyer *k, const char *text, size_t size, const char *dir, int depth) {
  include_line inc;
  for (const char *at = text; next_include(&at, text + size, &inc);) {
    const char *p = inc.after;
    while (p < inc.eol && (*p == ' ' || *p == '\t')) p++;
    char close = p < inc.eol && *p == '"' ? '"' : p < inc.eol && *p == '<' ? '>' : 0;
    const char *q = close ? memchr(p + 1, close, (size_t)(inc.eol - p - 1)) : NULL;
    if (q) hash_include(k, p + 1, (size_t)(q - p - 1), close == '"', dir, depth);
  }
}

static void hash_code(keyer *k, const cuplug__code *c) {
  put_u64(k, c->kind);
  put_str(k, c->name);
  put_bytes(k, c->data, c->size);
  if (c->kind == CUPLUG_CODE_CU) {
    char dir[PATH_MAX];
    dir_of(c->name, dir, sizeof dir);
    hash_includes(k, c->data, c->size, dir, 0);
  }
}

cuplug_error *cuplug__headers_key(const cuplug__code *cu, const char *const *include_paths,
                                  size_t num_include_paths, cuplug__buf *key) {
  keyer k = {.b = key,
             .include_paths = include_paths,
             .num_include_paths = include_paths ? num_include_paths : 0};
  char dir[PATH_MAX];
  dir_of(cu->name, dir, sizeof dir);
  hash_includes(&k, cu->data, cu->size, dir, 0);
  return key->oom ? cuplug__error_oom() : NULL;
}

/* The caller's code, read as the link will read it. */
static cuplug_error *hash_caller_code(keyer *k, const cuplug_code *const *code, size_t n) {
  put_u64(k, code ? n : 0);
  for (size_t i = 0; code && i < n; i++) {
    cuplug__code c;
    CUPLUG__TRY(cuplug__code_import(code[i], i, &c));
    hash_code(k, &c);
    cuplug__code_free(&c);
  }
  return NULL;
}

/* ---- the registered functions the IR declares ---- */

static void note_name(void *ctx, const char *name, size_t n) {
  keyer *k = ctx;
  for (size_t i = 0; i < k->num_names; i++)
    if (strlen(k->names[i]) == n && memcmp(k->names[i], name, n) == 0) return;
  if (k->num_names == k->cap_names) {
    size_t cap = k->cap_names ? 2 * k->cap_names : 16;
    char **v = realloc(k->names, cap * sizeof *v);
    if (!v) {
      k->oom = true;
      return;
    }
    k->names = v;
    k->cap_names = cap;
  }
  if (!(k->names[k->num_names] = cuplug__strndup(name, n))) {
    k->oom = true;
    return;
  }
  k->num_names++;
}

/* What the registry holds under a name, and (for IR) what that declares. */
static cuplug_error *hash_symbol(keyer *k, const char *name) {
  put_str(k, name);
  cuplug__impl *m = cuplug__registry_symbol(k->registry, name, strlen(name));
  if (!m) {
    put_str(k, "unregistered");
    return NULL;
  }
  put_u64(k, m->kind);
  put_str(k, m->sig ? m->sig->name : NULL);
  put_u64(k, m->abi);
  put_u64(k, m->cooperative);
  if (m->kind == CUPLUG__IMPL_EXTERNAL || m->kind == CUPLUG__IMPL_CUDA) {
    put_u64(k, m->num_code);
    for (size_t i = 0; i < m->num_code; i++) hash_code(k, &m->code[i]);
    return NULL;
  }
  const char *ir;
  CUPLUG__TRY(cuplug__impl_ir(m, &ir));
  size_t n = strlen(ir);
  put_bytes(k, ir, n);
  cuplug__ir_text_each_declared(ir, n, note_name, k);
  return NULL;
}

static cuplug_error *hash_declared(keyer *k) {
  while (k->next_name < k->num_names && !k->oom)
    CUPLUG__TRY(hash_symbol(k, k->names[k->next_name++]));
  return k->oom ? cuplug__error_oom() : NULL;
}

static void end(keyer *k) {
  for (size_t i = 0; i < k->num_names; i++) free(k->names[i]);
  free(k->names);
}

/* ---- compile ---- */

cuplug_error *cuplug__compile_key(cuplug_session *s, const cuplug_compile_args *a, bool all,
                                  const cuplug_type *sig, const cuplug__text *mods,
                                  const char *const *declared, size_t num_declared,
                                  cuplug__buf *key) {
  keyer k = {.b = key,
             .registry = s->registry,
             .include_paths = a->include_paths,
             .num_include_paths = a->include_paths ? a->num_include_paths : 0};
  begin(&k, s, all ? "cuplug compile_all" : "cuplug compile");
  put_str(&k, a->entry);
  put_str(&k, sig->name);
  put_u64(&k, a->entry_abi);
  put_u64(&k, a->kind);
  put_u64(&k, a->abi);
  put_str(&k, a->abi_name);
  put_u64(&k, a->output);
  put_u64(&k, a->cc_major);
  put_u64(&k, a->cc_minor);
  put_u64(&k, a->cc_suffix);
  if (a->flags & CUPLUG_COMPILE_CURRENT_DEVICE) {
    int major, minor;
    CUPLUG__TRY(cuplug__toolkit_current_cc(&s->toolkit, &major, &minor));
    put_u64(&k, (uint64_t)major * 10 + (uint64_t)minor);
  }
  put_u64(&k, (uint64_t)(int64_t)a->opt);
  put_u64(&k, a->debug);
  put_u64(&k, a->lineinfo);
  put_u64(&k, a->fastmath);
  put_u64(&k, a->forceinline);
  put_u64(&k, a->launch_bounds ? a->num_launch_bounds : 0);
  for (size_t i = 0; a->launch_bounds && i < a->num_launch_bounds; i++)
    put_u64(&k, a->launch_bounds[i]);
  put_u64(&k, a->max_registers);
  put_u64(&k, a->flags & ~(uint32_t)CUPLUG_COMPILE_NO_CACHE);
  put_u64(&k, a->no_lto);
  put_strings(&k, a->include_paths, k.num_include_paths);
  put_u64(&k, a->num_modules);
  for (size_t i = 0; i < a->num_modules; i++) {
    put_str(&k, a->modules[i]->name);
    put_bytes(&k, mods[i].text, mods[i].size);
    cuplug__ir_text_each_declared(mods[i].text, mods[i].size, note_name, &k);
  }
  for (size_t i = 0; i < num_declared; i++) note_name(&k, declared[i], strlen(declared[i]));
  put_u64(&k, a->backend);
  cuplug_error *e = hash_declared(&k);
  if (!e) e = hash_caller_code(&k, a->link, a->link ? a->num_link : 0);
  if (!e && key->oom) e = cuplug__error_oom();
  end(&k);
  return e;
}

/* ---- link ---- */

cuplug_error *cuplug__link_key(const cuplug_link_args *a, cuplug__buf *key) {
  keyer k = {.b = key,
             .registry = a->session->registry,
             .include_paths = a->include_paths,
             .num_include_paths = a->include_paths ? a->num_include_paths : 0};
  begin(&k, a->session, "cuplug link");
  put_u64(&k, a->cc_major);
  put_u64(&k, a->cc_minor);
  put_u64(&k, a->cc_suffix);
  put_u64(&k, a->no_lto);
  put_u64(&k, a->max_registers);
  put_u64(&k, a->lineinfo);
  put_u64(&k, a->debug);
  put_u64(&k, a->want_ptx);
  put_u64(&k, a->use_cooperative);
  put_strings(&k, a->include_paths, k.num_include_paths);
  put_u64(&k, a->artifacts ? a->num_artifacts : 0);
  cuplug_error *e = NULL;
  for (size_t i = 0; a->artifacts && i < a->num_artifacts && !e; i++) {
    size_t at = key->len; /* the artifact's bytes, then their length */
    e = a->artifacts[i] ? cuplug__artifact_save(a->artifacts[i], key) : NULL;
    put_u64(&k, key->len - at);
  }
  if (!e) e = hash_caller_code(&k, a->code, a->code ? a->num_code : 0);
  if (!e && key->oom) e = cuplug__error_oom();
  end(&k);
  return e;
}

/* ---- fetching and keeping ---- */

cuplug_artifact *cuplug__fetch_result(cuplug_session *s, cuplug__cache_key *key,
                                      cuplug_error **note) {
  void *data;
  size_t size;
  cuplug_cache_result where = cuplug__cache_get(s->cache, key, &data, &size, note);
  if (!data) return NULL;
  cuplug_artifact *art;
  cuplug_error *e = cuplug__artifact_restore(data, size, &art);
  free(data);
  if (e) { /* the same build wrote it: only memory running out gets here */
    cuplug__error_destroy(e);
    return NULL;
  }
  art->cache = where;
  return art;
}

void cuplug__keep_result(cuplug_session *s, cuplug__cache_key *key, cuplug_artifact *art,
                         cuplug_error *note) {
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug_error *e = cuplug__artifact_save(art, &b);
  if (!e) {
    cuplug__cache_put(s->cache, key, b.data, b.len, &note);
    art->cache = CUPLUG_CACHE_MISS;
  }
  cuplug__error_destroy(e); /* out of memory: the result is just not kept */
  cuplug__buf_free(&b);
  if (note) cuplug__error_destroy(cuplug__artifact_warn(art, note));
}
