/* backend_bench.c - compile latency of cuplug's two GPU backends, in one
 * run: the same IR to PTX through libNVVM and through LLVM 22's NVPTX
 * backend (issue 20), and the NVPTX backend against LLVM 22's code
 * generator called bare in this process (issue 22).
 *
 * For each conformance case (numba-cuda's typed IR, which both backends
 * take): cuplug's PTX through libNVVM, through the NVPTX backend in the
 * default (helper process) session, and through the NVPTX backend in a
 * trusted session (in this process).  Then Triton's own LLIR
 * (tests/triton/fixtures), which only the NVPTX backend reads, for cc 9.0a.
 * "bare LLVM" is the anchor for the NVPTX backend: LLVM-C in this process
 * on the IR cuplug hands its backend (the lowered module, as
 * CUPLUG_COMPILE_KEEP_IR keeps it): parse, the target machine, default<O3>,
 * PTX, with the processor and PTX ISA cuplug's backend uses; what that
 * backend adds (libdevice where called, its checks, the internalizing of
 * all but the entries, the helper process) is cuplug's cost.
 * No cache; each repeat runs the builds in a new order (a fixed-seed
 * shuffle), medians reported, ratios per case and their geometric mean.
 *
 *   build/bin/backend_bench [CORPUS_DIR] [REPEATS] [TRITON_DIR]
 */
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "plugin/nvptx/nvptx.h" /* CUPLUG__NVPTX_FEATURES: the PTX ISA cuplug's backend writes */

enum { LIBNVVM, NVPTX, NVPTX_TRUSTED, BARE, WAYS };

static const cuplug_api *api;
static uint64_t seed = 42;

/* What bare LLVM compiles: the IR and the processor. */
typedef struct bare_input {
  const char *ir;
  size_t size;
  char cpu[16];
} bare_input;

/* One way of compiling: through cuplug (args), or bare LLVM (bare). */
typedef struct way {
  cuplug_compile_args *args;
  const bare_input *bare;
} way;

/* LLVM 22's NVPTX code generator on the text, as a JIT calling it bare
 * would: a context, the module read, the target machine, LLVM's O3
 * pipeline, PTX. */
static bool bare_llvm(const bare_input *in) {
  static bool registered;
  if (!registered) {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    registered = true;
  }
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(in->ir, in->size, "m");
  LLVMModuleRef mod = NULL;
  char *why = NULL;
  bool ok = !LLVMParseIRInContext2(ctx, buf, &mod, &why);
  LLVMDisposeMemoryBuffer(buf);
  LLVMTargetRef target;
  if (ok) ok = !LLVMGetTargetFromTriple("nvptx64-nvidia-cuda", &target, &why);
  LLVMTargetMachineRef tm = NULL;
  if (ok) {
    tm = LLVMCreateTargetMachine(target, "nvptx64-nvidia-cuda", in->cpu, CUPLUG__NVPTX_FEATURES,
                                 LLVMCodeGenLevelAggressive, LLVMRelocDefault,
                                 LLVMCodeModelDefault);
    if (!tm) {
      fprintf(stderr, "backend_bench: bare LLVM: no target machine for %s\n", in->cpu);
      exit(1);
    }
    LLVMSetTarget(mod, "nvptx64-nvidia-cuda");
    LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(mod, layout);
    LLVMDisposeTargetData(layout);
    LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
    LLVMPassBuilderOptionsSetLoopVectorization(o, 1);
    LLVMPassBuilderOptionsSetSLPVectorization(o, 1);
    LLVMErrorRef e = LLVMRunPasses(mod, "default<O3>", tm, o);
    LLVMDisposePassBuilderOptions(o);
    if (e) {
      why = LLVMGetErrorMessage(e);
      ok = false;
    }
  }
  LLVMMemoryBufferRef ptx = NULL;
  if (ok) ok = !LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMAssemblyFile, &why, &ptx);
  if (!ok) {
    fprintf(stderr, "backend_bench: bare LLVM: %s\n", why ? why : "failed");
    exit(1);
  }
  LLVMDisposeMemoryBuffer(ptx);
  LLVMDisposeTargetMachine(tm);
  LLVMDisposeModule(mod);
  LLVMContextDispose(ctx);
  return ok;
}

static double compile_ms(const way *w) {
  double t0 = bench_now();
  if (w->bare) {
    bare_llvm(w->bare);
    return (bench_now() - t0) * 1e3;
  }
  cuplug_error *e = api->compile(w->args);
  double t = bench_now() - t0;
  if (e) {
    fprintf(stderr, "backend_bench: %s: %s\n", w->args->entry, api->error_message(e));
    exit(1);
  }
  api->artifact_destroy(w->args->artifact);
  return t * 1e3;
}

/* Medians of `reps` builds of each way (one with neither: skipped). */
static void measure(const way ways[WAYS], int reps, double med[WAYS]) {
  double *t[WAYS];
  for (int w = 0; w < WAYS; w++) {
    t[w] = calloc((size_t)reps, sizeof(double));
    if (ways[w].args || ways[w].bare) compile_ms(&ways[w]); /* one warm-up each */
  }
  for (int r = 0; r < reps; r++) {
    int order[WAYS] = {0, 1, 2, 3};
    for (int k = WAYS - 1; k > 0; k--) { /* Fisher-Yates */
      seed = seed * 6364136223846793005u + 1442695040888963407u;
      int pick = (int)((seed >> 33) % (uint64_t)(k + 1)), keep = order[k];
      order[k] = order[pick];
      order[pick] = keep;
    }
    for (int k = 0; k < WAYS; k++)
      if (ways[order[k]].args || ways[order[k]].bare) t[order[k]][r] = compile_ms(&ways[order[k]]);
  }
  for (int w = 0; w < WAYS; w++) {
    med[w] = ways[w].args || ways[w].bare ? bench_median(t[w], reps) : NAN;
    free(t[w]);
  }
}

/* The IR cuplug hands its NVPTX backend for a (a compile with KEEP_IR,
 * whose artifact the caller destroys) and the processor, for bare LLVM. */
static cuplug_artifact *lowered(const cuplug_compile_args *a, bare_input *out) {
  cuplug_compile_args k = *a;
  k.flags |= CUPLUG_COMPILE_KEEP_IR;
  bench_check(api, api->compile(&k), "compile (keep_ir)");
  cuplug_artifact_info info = {.struct_size = sizeof info};
  api->artifact_info(k.artifact, &info);
  cuplug_ir_view view = {.struct_size = sizeof view};
  bench_check(api, api->artifact_ir(k.artifact, info.num_ir_modules - 1, &view), "artifact_ir");
  out->ir = view.text;
  out->size = view.size;
  const char suffix[2] = {(char)info.cc_suffix, 0};
  snprintf(out->cpu, sizeof out->cpu, "sm_%u%u%s", info.cc_major, info.cc_minor, suffix);
  return k.artifact;
}

/* Triton's LLIR: the NVPTX backend, safe and trusted, against bare LLVM;
 * the geometric mean of nvptx/bare added to *log_bare, *count. */
static void triton(const char *dir, cuplug_session *s, cuplug_session *st, int reps,
                   double *log_bare, double *log_trusted_bare, int *count) {
  static const char *const kernels[] = {"add", "softmax", "gelu", "matmul"};
  printf("Triton 3.6 LLIR, cc 9.0a, NVPTX backend only (libNVVM reads no opaque pointers "
         "below cc 10.0)\n");
  printf("%-14s %12s %12s %12s %13s %13s\n", "kernel", "nvptx ms", "trusted ms", "bare ms",
         "nvptx/bare", "trusted/bare");
  for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
    char path[4096];
    size_t n;
    snprintf(path, sizeof path, "%s/%s.ll", dir, kernels[k]);
    char *ir = bench_read_file(path, &n);
    if (!ir) {
      printf("%-14s skipped: no %s\n", kernels[k], path);
      continue;
    }
    char entry[64];
    snprintf(entry, sizeof entry, "%s_kernel", kernels[k]);
    cuplug_module m = {sizeof m, path, ir, n};
    const cuplug_module *mods[] = {&m};
    cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                             .num_modules = 1, .entry = entry, .kind = CUPLUG_KERNEL,
                             .output = CUPLUG_OUTPUT_PTX, .cc_major = 9, .cc_suffix = 'a'};
    cuplug_compile_args b = a;
    b.session = st;
    bare_input bare;
    cuplug_artifact *kept = lowered(&a, &bare);
    way ways[WAYS] = {{NULL, NULL}, {&a, NULL}, {&b, NULL}, {NULL, &bare}};
    double med[WAYS];
    measure(ways, reps, med);
    printf("%-14s %12.3f %12.3f %12.3f %13.3f %13.3f\n", kernels[k], med[NVPTX],
           med[NVPTX_TRUSTED], med[BARE], med[NVPTX] / med[BARE], med[NVPTX_TRUSTED] / med[BARE]);
    *log_bare += log(med[NVPTX] / med[BARE]);
    *log_trusted_bare += log(med[NVPTX_TRUSTED] / med[BARE]);
    ++*count;
    api->artifact_destroy(kept);
    free(ir);
  }
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "tests/conformance/numba";
  int reps = argc > 2 ? atoi(argv[2]) : 11;
  const char *triton_dir = argc > 3 ? argv[3] : "tests/triton/fixtures";
  api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  if (!api) {
    fprintf(stderr, "backend_bench: needs libcuplug\n");
    return 1;
  }
  cuplug_session *s, *st;
  cuplug_session_options safe = {.struct_size = sizeof safe, .flags = CUPLUG_SESSION_NO_CACHE};
  cuplug_session_options trusted = {.struct_size = sizeof trusted,
                                    .flags = CUPLUG_SESSION_TRUSTED | CUPLUG_SESSION_NO_CACHE};
  bench_check(api, api->session_create(&safe, &s), "session_create");
  bench_check(api, api->session_create(&trusted, &st), "session_create");
  bench_case *cases;
  int nc = bench_cases(dir, &cases);
  if (nc < 0) {
    fprintf(stderr, "backend_bench: cannot read %s\n", dir);
    return 1;
  }
  printf("%-14s %10s %10s %10s %10s %11s %12s %11s %12s\n", "case", "libnvvm ms", "nvptx ms",
         "trusted ms", "bare ms", "nvptx/nvvm", "trusted/nvvm", "nvptx/bare", "trusted/bare");
  double logn = 0, logt = 0, logb = 0, logtb = 0;
  int nb = 0;
  for (int d = 0; d < nc; d++) {
    cuplug_compile_args a = cases[d].args;
    a.session = s;
    a.output = CUPLUG_OUTPUT_PTX;
    a.backend = CUPLUG_BACKEND_LIBNVVM;
    cuplug_compile_args b = a, c = a;
    b.backend = c.backend = CUPLUG_BACKEND_LLVM;
    c.session = st;
    bare_input bare;
    cuplug_artifact *kept = lowered(&b, &bare);
    way ways[WAYS] = {{&a, NULL}, {&b, NULL}, {&c, NULL}, {NULL, &bare}};
    double med[WAYS];
    measure(ways, reps, med);
    printf("%-14.14s %10.3f %10.3f %10.3f %10.3f %11.3f %12.3f %11.3f %12.3f\n", cases[d].name,
           med[LIBNVVM], med[NVPTX], med[NVPTX_TRUSTED], med[BARE], med[NVPTX] / med[LIBNVVM],
           med[NVPTX_TRUSTED] / med[LIBNVVM], med[NVPTX] / med[BARE], med[NVPTX_TRUSTED] / med[BARE]);
    logn += log(med[NVPTX] / med[LIBNVVM]);
    logt += log(med[NVPTX_TRUSTED] / med[LIBNVVM]);
    logb += log(med[NVPTX] / med[BARE]);
    logtb += log(med[NVPTX_TRUSTED] / med[BARE]);
    nb++;
    api->artifact_destroy(kept);
  }
  printf("geometric mean, ptx: nvptx/libnvvm %.3f, trusted nvptx/libnvvm %.3f (%d cases)\n",
         exp(logn / nc), exp(logt / nc), nc);
  bench_cases_free(cases, nc);
  triton(triton_dir, s, st, reps, &logb, &logtb, &nb);
  printf("geometric mean, nvptx/bare llvm %.3f, trusted nvptx/bare llvm %.3f (%d cases: the "
         "corpus and Triton's)\n",
         exp(logb / nb), exp(logtb / nb), nb);
  api->session_destroy(s);
  api->session_destroy(st);
  return 0;
}
