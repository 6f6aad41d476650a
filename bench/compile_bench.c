/* compile_bench.c - cuplug's compile against bare libNVVM, in one run.
 *
 * For each conformance case, compiles input.ll to LTO-IR and to PTX
 *   - through cuplug (validation, wrapping, legalisation, libNVVM),
 *   - through bare libNVVM on input.ll (create a program, add the IR, compile
 *     with the same -arch and -opt, read the result): "bare",
 *   - through bare libNVVM on the IR cuplug hands libNVVM (the wrapped or
 *     fixed-up module): "final".
 * "bare" is the floor the issue names; but a kernel or a C-ABI wrapper is
 * more for libNVVM to compile than input.ll's plain function, so "final"
 * isolates cuplug's own cost: cuplug / final.  Prints medians, ratios per
 * case and their geometric means.
 *
 *   build/bin/compile_bench [CORPUS_DIR] [REPEATS]
 *
 * Target (issue 2): cuplug's total at most 1.15x bare libNVVM for LTO-IR. */
#include <dirent.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuplug/cuplug.h"
#include "json.h"

typedef struct nvvm {
  int (*create)(void **);
  int (*destroy)(void **);
  int (*add)(void *, const char *, size_t, const char *);
  int (*compile)(void *, int, const char **);
  int (*size)(void *, size_t *);
  int (*result)(void *, char *);
} nvvm;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  rewind(f);
  char *b = malloc((size_t)len + 1);
  if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
    free(b);
    b = NULL;
  }
  if (b) b[len] = '\0';
  fclose(f);
  *n = (size_t)len;
  return b;
}

static bool load_nvvm(nvvm *v) {
  const char *names[] = {"/usr/local/cuda/nvvm/lib64/libnvvm.so", "/usr/local/cuda/lib64/libnvvm.so",
                         "/usr/local/cuda/lib/libnvvm.so", "libnvvm.so.4", NULL};
  void *h = NULL;
  for (int i = 0; names[i] && !h; i++) h = dlopen(names[i], RTLD_NOW);
  if (!h) return false;
  v->create = (int (*)(void **))dlsym(h, "nvvmCreateProgram");
  v->destroy = (int (*)(void **))dlsym(h, "nvvmDestroyProgram");
  v->add = (int (*)(void *, const char *, size_t, const char *))dlsym(h, "nvvmAddModuleToProgram");
  v->compile = (int (*)(void *, int, const char **))dlsym(h, "nvvmCompileProgram");
  v->size = (int (*)(void *, size_t *))dlsym(h, "nvvmGetCompiledResultSize");
  v->result = (int (*)(void *, char *))dlsym(h, "nvvmGetCompiledResult");
  return v->create && v->destroy && v->add && v->compile && v->size && v->result;
}

/* Bare libNVVM: the floor cuplug is measured against. */
static bool bare(const nvvm *v, const char *const *ir, const size_t *n, size_t num_modules,
                 const char *arch, bool lto) {
  void *prog;
  const char *opts[] = {arch, "-opt=3", "-gen-lto"};
  if (v->create(&prog)) return false;
  bool ok = true;
  for (size_t i = 0; i < num_modules && ok; i++) ok = v->add(prog, ir[i], n[i], "m") == 0;
  ok = ok && v->compile(prog, lto ? 3 : 2, opts) == 0;
  size_t size = 0;
  if (ok) ok = v->size(prog, &size) == 0;
  char *out = ok ? malloc(size) : NULL;
  if (out) ok = v->result(prog, out) == 0;
  free(out);
  v->destroy(&prog);
  return ok;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "tests/conformance/numba";
  int reps = argc > 2 ? atoi(argv[2]) : 15;
  const cuplug_api *api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  nvvm v;
  if (!api || !load_nvvm(&v)) {
    fprintf(stderr, "compile_bench: needs libcuplug and libNVVM\n");
    return 1;
  }
  cuplug_session *s;
  cuplug_error *e = api->session_create(NULL, &s);
  if (e) {
    fprintf(stderr, "compile_bench: %s\n", api->error_message(e));
    return 1;
  }
  struct dirent **names;
  int nd = scandir(dir, &names, NULL, alphasort);
  if (nd < 0) {
    fprintf(stderr, "compile_bench: cannot read %s\n", dir);
    return 1;
  }
  printf("%-14s %6s %9s %9s %9s %12s %12s\n", "case", "output", "bare ms", "final ms",
         "cuplug ms", "cuplug/bare", "cuplug/final");
  double logsum[2] = {0, 0}, logown[2] = {0, 0};
  int count[2] = {0, 0};
  double *tb = malloc(sizeof(double) * (size_t)reps), *tc = malloc(sizeof(double) * (size_t)reps);
  double *tf = malloc(sizeof(double) * (size_t)reps);
  for (int d = 0; d < nd; d++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/case.json", dir, names[d]->d_name);
    size_t jn, irn;
    char *jtext = slurp(path, &jn);
    if (!jtext) {
      free(names[d]);
      continue;
    }
    json *c = json_parse(jtext, NULL, 0);
    free(jtext);
    snprintf(path, sizeof path, "%s/%s/input.ll", dir, names[d]->d_name);
    char *ir = slurp(path, &irn);
    bool kernel = strcmp(json_string(c, "kind"), "kernel") == 0;
    cuplug_module m = {sizeof m, "input.ll", ir, irn};
    const cuplug_module *mods[] = {&m};
    for (int lto = 1; lto >= 0; lto--) {
      cuplug_compile_args a = {
          .struct_size = sizeof a, .session = s, .modules = mods, .num_modules = 1,
          .entry = json_string(c, "entry"), .signature = json_string(c, "signature"),
          .kind = kernel ? CUPLUG_KERNEL : CUPLUG_DEVICE_FUNCTION,
          .abi_name = kernel ? NULL : json_string(c, "abi_name"),
          .output = lto ? CUPLUG_OUTPUT_LTOIR : CUPLUG_OUTPUT_PTX};
      /* the IR cuplug hands libNVVM, for the "final" floor */
      a.flags = CUPLUG_COMPILE_KEEP_IR;
      cuplug_error *err = api->compile(&a);
      a.flags = 0;
      if (err) {
        fprintf(stderr, "%s: %s\n", names[d]->d_name, api->error_message(err));
        return 1;
      }
      cuplug_artifact_info info = {.struct_size = sizeof info};
      api->artifact_info(a.artifact, &info);
      size_t nf = info.num_ir_modules;
      const char *final_ir[8];
      size_t final_n[8];
      for (size_t k = 0; k < nf && k < 8; k++) {
        cuplug_ir_view view = {.struct_size = sizeof view};
        api->artifact_ir(a.artifact, k, &view);
        final_ir[k] = view.text;
        final_n[k] = view.size;
      }
      char arch[32];
      snprintf(arch, sizeof arch, "-arch=compute_%u%u", info.cc_major, info.cc_minor);
      const char *input_ir[] = {ir};
      size_t input_n[] = {irn};
      /* one warm-up each, then interleave so drift hits all alike */
      bare(&v, input_ir, input_n, 1, arch, lto);
      bare(&v, final_ir, final_n, nf, arch, lto);
      for (int r = 0; r < reps; r++) {
        double t0 = now();
        bare(&v, input_ir, input_n, 1, arch, lto);
        double t1 = now();
        bare(&v, final_ir, final_n, nf, arch, lto);
        double t2 = now();
        cuplug_compile_args b = a;
        api->compile(&b);
        double t3 = now();
        api->artifact_destroy(b.artifact);
        tb[r] = t1 - t0;
        tf[r] = t2 - t1;
        tc[r] = t3 - t2;
      }
      api->artifact_destroy(a.artifact);
      double mb = median(tb, reps), mf = median(tf, reps), mc = median(tc, reps);
      printf("%-14.14s %6s %9.3f %9.3f %9.3f %12.3f %12.3f\n", names[d]->d_name,
             lto ? "ltoir" : "ptx", mb * 1e3, mf * 1e3, mc * 1e3, mc / mb, mc / mf);
      logsum[lto] += log(mc / mb);
      logown[lto] += log(mc / mf);
      count[lto]++;
    }
    free(ir);
    json_free(c);
    free(names[d]);
  }
  free(names);
  free(tb);
  free(tc);
  free(tf);
  for (int lto = 1; lto >= 0; lto--)
    if (count[lto])
      printf("geometric mean, %-5s: cuplug/bare %.3f, cuplug/final %.3f (%d cases)\n",
             lto ? "ltoir" : "ptx", exp(logsum[lto] / count[lto]),
             exp(logown[lto] / count[lto]), count[lto]);
  api->session_destroy(s);
  return 0;
}
