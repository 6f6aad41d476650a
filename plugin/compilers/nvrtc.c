/* nvrtc.c - CUDA C++ to LTO-IR or PTX with NVRTC. */
#include "plugin/compilers/nvrtc.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "plugin/helper/run.h"

struct cuplug__nvrtc_entry {
  uint64_t hash; /* of the key */
  char *key;     /* the options, the source, then the headers, compared in full */
  size_t key_size;
  cuplug__code out;
  char *log; /* NVRTC's warnings, or NULL */
  struct cuplug__nvrtc_entry *next;
};

void cuplug__nvrtc_cache_init(cuplug__nvrtc_cache *c) {
  pthread_mutex_init(&c->lock, NULL);
  c->entries = NULL;
}

void cuplug__nvrtc_cache_release(cuplug__nvrtc_cache *c) {
  while (c->entries) {
    struct cuplug__nvrtc_entry *e = c->entries;
    c->entries = e->next;
    free(e->key);
    cuplug__code_free(&e->out);
    free(e->log);
    free(e);
  }
  pthread_mutex_destroy(&c->lock);
}

static uint64_t fnv64(const char *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
  return h;
}

/* The options as NVRTC takes them into `b`, each ended by a NUL: the
 * first part of the cache key, and argv as it stands. */
static void put_option(cuplug__buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_option(cuplug__buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cuplug__buf_vprintf(b, fmt, ap);
  va_end(ap);
  cuplug__buf_append(b, "", 1);
}

static size_t options_text(cuplug__buf *b, cuplug__runner *r, const cuplug__nvrtc_options *o) {
  const char *home = cuplug__toolkit_home(r->toolkit);
  size_t n = 4 + o->num_include_paths;
  put_option(b, "-arch=sm_%u%u%s", o->cc_major, o->cc_minor, o->cc_suffix);
  put_option(b, "--relocatable-device-code=true");
  if (o->ltoir) put_option(b, "--dlink-time-opt"), n++;
  if (o->debug) put_option(b, "-G"), n++;
  if (o->lineinfo) put_option(b, "-lineinfo"), n++;
  /* the caller's folders first, as numba-cuda orders them: a header of
   * theirs that the toolkit also has (numba-cuda's cuda_fp16.h) is theirs */
  for (size_t i = 0; i < o->num_include_paths; i++)
    put_option(b, "--include-path=%s", o->include_paths[i]);
  put_option(b, "--include-path=%s/include", home);
  put_option(b, "--include-path=%s/include/cccl", home);
  return n;
}

/* NVRTC's log of a success, trimmed, or NULL (freed) when it said nothing. */
static char *said(char *log) {
  if (!log) return NULL;
  size_t n = strlen(log);
  while (n && isspace((unsigned char)log[n - 1])) log[--n] = 0;
  if (n) return log;
  free(log);
  return NULL;
}

/* Compiles with the options options_text wrote (`n` of them, in `opts`),
 * as a job for the session's toolkit. */
static cuplug_error *compile(cuplug__runner *r, const cuplug__code *cu, const char *opts,
                             size_t n, const cuplug__nvrtc_options *o, cuplug__code *out,
                             char **log) {
  const char **argv = malloc(n * sizeof *argv);
  if (!argv) return cuplug__error_oom();
  for (size_t i = 0; i < n; opts += strlen(opts) + 1) argv[i++] = opts;
  cuplug__tool_input source = {0, cu->name, cu->data, cu->size};
  cuplug__tool_job job = {.tool = CUPLUG__TOOL_NVRTC, .options = argv, .num_options = n,
                          .inputs = &source, .num_inputs = 1, .ptx = !o->ltoir};
  cuplug__tool_output result;
  cuplug_error *e = cuplug__run(r, &job, o->time_limit_ms, &result);
  free(argv);
  if (e) return e;
  out->kind = o->ltoir ? CUPLUG_CODE_LTOIR : CUPLUG_CODE_PTX;
  out->data = result.data;
  out->size = result.size;
  out->name = cuplug__strdup(cu->name);
  *log = said(result.log);
  if (!out->name) {
    free(*log);
    *log = NULL;
    cuplug__code_free(out);
    return cuplug__error_oom();
  }
  return NULL;
}

cuplug_error *cuplug__nvrtc_compile(cuplug__runner *r, cuplug__nvrtc_cache *cache,
                                    const cuplug__code *cu, const cuplug__nvrtc_options *o,
                                    cuplug__code *out, char **log) {
  memset(out, 0, sizeof *out);
  *log = NULL;
  cuplug__buf key;
  cuplug__buf_init(&key);
  size_t num_options = options_text(&key, r, o);
  cuplug__buf_append(&key, cu->data, cu->size);
  cuplug__buf_append(&key, o->headers, o->headers_size);
  if (key.oom) return cuplug__error_oom();
  uint64_t h = fnv64(key.data, key.len);

  if (cache) {
    pthread_mutex_lock(&cache->lock);
    for (struct cuplug__nvrtc_entry *e = cache->entries; e; e = e->next) {
      if (e->hash == h && e->key_size == key.len && memcmp(e->key, key.data, key.len) == 0) {
        cuplug_error *err = cuplug__code_make(e->out.kind, cu->name, e->out.data, e->out.size, out);
        if (!err && e->log && !(*log = cuplug__strdup(e->log))) {
          cuplug__code_free(out);
          err = cuplug__error_oom();
        }
        pthread_mutex_unlock(&cache->lock);
        cuplug__buf_free(&key);
        return err;
      }
    }
    pthread_mutex_unlock(&cache->lock);
  }

  cuplug_error *err = compile(r, cu, key.data, num_options, o, out, log);
  if (!err && cache) {
    struct cuplug__nvrtc_entry *e = calloc(1, sizeof *e);
    if (e && *log && !(e->log = cuplug__strdup(*log))) {
      free(e); /* no cache this time; the result stands */
      e = NULL;
    }
    if (e && !cuplug__code_make(out->kind, out->name, out->data, out->size, &e->out)) {
      e->hash = h;
      e->key_size = key.len;
      e->key = cuplug__buf_take(&key, NULL);
      pthread_mutex_lock(&cache->lock);
      e->next = cache->entries;
      cache->entries = e;
      pthread_mutex_unlock(&cache->lock);
    } else if (e) {
      free(e->log);
      free(e); /* no cache this time; the result stands */
    }
  }
  cuplug__buf_free(&key);
  return err;
}
