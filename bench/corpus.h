/* corpus.h - the conformance cases, read for the benchmarks: each case's
 * IR and the compile arguments numba-cuda's compile of it takes. */
#ifndef CUPLUG_BENCH_CORPUS_H
#define CUPLUG_BENCH_CORPUS_H

#include <dirent.h>
#include <stdbool.h>
#include <string.h>

#include "bench.h"
#include "json.h"

typedef struct bench_case {
  char name[256];
  json *json;
  char *ir;
  size_t ir_size;
  bool kernel;
  cuplug_module module;
  const cuplug_module *mods[1];
  /* modules, entry, signature, kind and abi_name set; the caller adds the
   * session and the output */
  cuplug_compile_args args;
} bench_case;

static inline void bench_cases_free(bench_case *c, int n) {
  for (int i = 0; i < n; i++) {
    json_free(c[i].json);
    free(c[i].ir);
  }
  free(c);
}

/* Every case of the corpus folder, in name order; the count, or -1 when
 * the folder cannot be read.  Folders without case.json are passed over. */
static inline int bench_cases(const char *dir, bench_case **out) {
  struct dirent **names;
  int nd = scandir(dir, &names, NULL, alphasort);
  if (nd < 0) return -1;
  bench_case *v = calloc((size_t)nd + 1, sizeof *v);
  int n = 0;
  for (int d = 0; d < nd; d++) {
    char path[1024];
    size_t jn;
    snprintf(path, sizeof path, "%s/%s/case.json", dir, names[d]->d_name);
    char *text = names[d]->d_name[0] != '.' ? bench_read_file(path, &jn) : NULL;
    json *j = text ? json_parse(text, NULL, 0) : NULL;
    free(text);
    snprintf(path, sizeof path, "%s/%s/input.ll", dir, names[d]->d_name);
    bench_case *c = &v[n];
    if (j && (c->ir = bench_read_file(path, &c->ir_size))) {
      snprintf(c->name, sizeof c->name, "%s", names[d]->d_name);
      c->json = j;
      c->kernel = strcmp(json_string(j, "kind"), "kernel") == 0;
      c->module = (cuplug_module){sizeof c->module, "input.ll", c->ir, c->ir_size};
      n++;
    } else {
      json_free(j);
    }
    free(names[d]);
  }
  free(names);
  for (int i = 0; i < n; i++) { /* the pointers, now that v holds still */
    bench_case *c = &v[i];
    c->mods[0] = &c->module;
    c->args = (cuplug_compile_args){
        .struct_size = sizeof c->args, .modules = c->mods, .num_modules = 1,
        .entry = json_string(c->json, "entry"), .signature = json_string(c->json, "signature"),
        .kind = c->kernel ? CUPLUG_KERNEL : CUPLUG_DEVICE_FUNCTION,
        .abi_name = c->kernel ? NULL : json_string(c->json, "abi_name")};
  }
  *out = v;
  return n;
}

#endif
