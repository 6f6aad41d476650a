/* link_bench.c - cuplug's link() against bare nvJitLink on the same inputs.
 *
 *   build/bin/link_bench [REPEATS]
 *
 * The inputs are LTO-IR: the saxpy kernel of the corpus calling an
 * external function, and that function from NVRTC.  Bare nvJitLink:
 * create, add both, complete, read the cubin.  cuplug: link() of the same
 * bytes.  Medians, and their ratio.  Target (issue 3): at most 1.10x.
 *
 *   build/bin/link_bench [--stages] [REPEATS]
 *
 * --stages also prints the median of each stage of cuplug's link
 * (artifact_stage): hand_over, run_nvjitlink (nvJitLink's own time, in
 * the helper) and hand_back are the round trip to the helper process. */
#include <string.h>

#include "bench.h"
#include "ext_mul.h" /* tests/support: the tests' external code */

typedef struct jl {
  int (*create)(void **, unsigned, const char **);
  int (*add)(void *, int, const void *, size_t, const char *);
  int (*complete)(void *);
  int (*size)(void *, size_t *);
  int (*cubin)(void *, void *);
  int (*destroy)(void **);
} jl;

static int load_jl(jl *j) {
  const char *paths[] = {"/usr/local/cuda/lib64/libnvJitLink.so.13",
                         "/usr/local/cuda/lib/libnvJitLink.so.13", "libnvJitLink.so.13", NULL};
  void *h = NULL;
  for (int i = 0; paths[i] && !h; i++) h = dlopen(paths[i], RTLD_NOW);
  if (!h) return -1;
  j->create = (int (*)(void **, unsigned, const char **))dlsym(h, "nvJitLinkCreate");
  j->add = (int (*)(void *, int, const void *, size_t, const char *))dlsym(h, "nvJitLinkAddData");
  j->complete = (int (*)(void *))dlsym(h, "nvJitLinkComplete");
  j->size = (int (*)(void *, size_t *))dlsym(h, "nvJitLinkGetLinkedCubinSize");
  j->cubin = (int (*)(void *, void *))dlsym(h, "nvJitLinkGetLinkedCubin");
  j->destroy = (int (*)(void **))dlsym(h, "nvJitLinkDestroy");
  return 0;
}

#define MAX_STAGES 16

int main(int argc, char **argv) {
  bool stages = argc > 1 && strcmp(argv[1], "--stages") == 0;
  if (stages) argc--, argv++;
  int reps = argc > 1 ? atoi(argv[1]) : 31;
  const cuplug_api *api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  jl j;
  if (!api || load_jl(&j)) {
    fprintf(stderr, "link_bench: needs libcuplug and nvJitLink\n");
    return 1;
  }
  cuplug_session *s;
  cuplug_session_options o = {.struct_size = sizeof o, .flags = CUPLUG_SESSION_NO_CACHE};
  bench_check(api, api->session_create(&o, &s), "session_create"); /* every link is built */
  /* the two LTO-IR inputs, made once */
  cuplug_code cu = {.struct_size = sizeof cu, .name = "ext_mul.cu", .data = t_ext_mul_cu,
                    .size = sizeof t_ext_mul_cu - 1};
  const cuplug_code *link[] = {&cu};
  cuplug_module m = {sizeof m, "k.ll", t_calls_ext_mul_ir, sizeof t_calls_ext_mul_ir - 1};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = "k",
                           .signature = "void(CPointer(int32), int32, int32)",
                           .kind = CUPLUG_KERNEL, .cc_major = 9, .link = link, .num_link = 1};
  bench_check(api, api->compile_all(&a), "compile_all");
  cuplug_part p0 = {.struct_size = sizeof p0}, p1 = {.struct_size = sizeof p1};
  bench_check(api, api->artifact_part(a.artifact, 0, &p0), "artifact_part");
  bench_check(api, api->artifact_part(a.artifact, 1, &p1), "artifact_part");

  cuplug_code c0 = {.struct_size = sizeof c0, .kind = CUPLUG_CODE_LTOIR, .name = "k",
                    .data = p0.data, .size = p0.size};
  cuplug_code c1 = {.struct_size = sizeof c1, .kind = CUPLUG_CODE_LTOIR, .name = "ext_mul",
                    .data = p1.data, .size = p1.size};
  const cuplug_code *codes[] = {&c0, &c1};
  cuplug_link_args la = {.struct_size = sizeof la, .session = s, .code = codes, .num_code = 2,
                         .cc_major = 9};
  const char *opts[] = {"-arch=sm_90", "-lto"};
  double *tb = malloc(sizeof(double) * (size_t)reps), *tc = malloc(sizeof(double) * (size_t)reps);
  double *ts[MAX_STAGES];
  const char *names[MAX_STAGES];
  size_t num_stages = 0;
  for (int i = 0; i < MAX_STAGES; i++) ts[i] = calloc((size_t)reps, sizeof(double));
  for (int r = -2; r < reps; r++) {
    double t0 = bench_now();
    void *h;
    size_t size;
    if (j.create(&h, 2, opts) || j.add(h, 3, p0.data, p0.size, "k") ||
        j.add(h, 3, p1.data, p1.size, "ext_mul") || j.complete(h) || j.size(h, &size))
      return 1;
    void *out = malloc(size);
    j.cubin(h, out);
    free(out);
    j.destroy(&h);
    double t1 = bench_now();
    bench_check(api, api->link(&la), "link");
    double t2 = bench_now();
    cuplug_artifact_info info = {.struct_size = sizeof info};
    api->artifact_info(la.artifact, &info);
    for (size_t i = 0; r >= 0 && i < info.num_stages && i < MAX_STAGES; i++) {
      cuplug_artifact_stage_args st = {.struct_size = sizeof st, .artifact = la.artifact, .index = i};
      bench_check(api, api->artifact_stage(&st), "artifact_stage");
      names[i] = i < num_stages ? names[i] : strdup(st.name);
      ts[i][r] = (double)st.nanoseconds * 1e-9;
      if (i >= num_stages) num_stages = i + 1;
    }
    api->artifact_destroy(la.artifact);
    if (r >= 0) {
      tb[r] = t1 - t0;
      tc[r] = t2 - t1;
    }
  }
  double mb = bench_median(tb, reps), mc = bench_median(tc, reps);
  printf("LTO link of a kernel and an external function (LTO-IR), %d repeats (medians):\n", reps);
  printf("  bare nvJitLink:  %8.3f ms\n", mb * 1e3);
  printf("  cuplug link():   %8.3f ms\n", mc * 1e3);
  printf("  ratio cuplug / bare: %.3f\n", mc / mb);
  if (stages) {
    double in = 0;
    printf("stages of cuplug's link (medians, ms):\n");
    for (size_t i = 0; i < num_stages; i++) {
      double m = bench_median(ts[i], reps);
      in += m;
      printf("  %-20s %8.3f\n", names[i], m * 1e3);
    }
    printf("  %-20s %8.3f\n", "(outside the stages)", (mc - in) * 1e3);
  }
  for (int i = 0; i < MAX_STAGES; i++) free(ts[i]);
  free(tb);
  free(tc);
  api->artifact_destroy(a.artifact);
  api->session_destroy(s);
  return 0;
}
