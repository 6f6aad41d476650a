/* support.c - what the test programs share. */
#include "support.h"

#include <hiredis/hiredis.h>

#include "redis.h"
#define SONAME_TEXT_(x) #x
#define SONAME_TEXT(x) SONAME_TEXT_(x)
#define HIREDIS_SONAME_TEXT SONAME_TEXT(HIREDIS_SONAME)

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

/* Check's asserts only work inside a test; the readers below also run in
 * main(), so they report and exit (which Check counts as a failure). */
__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "test support: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

const char *t_test_dir(void) {
  const char *d = getenv("CUPLUG_TEST_DIR");
  return d && *d ? d : "tests";
}

const char *t_path(const char *relative) {
  static char buf[4096];
  snprintf(buf, sizeof buf, "%s/%s", t_test_dir(), relative);
  return buf;
}

char *t_read(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) die("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *b = malloc((size_t)n + 1);
  if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) die("cannot read %s", path);
  fclose(f);
  b[n] = '\0';
  if (size) *size = (size_t)n;
  return b;
}

/* Unit tests link the plugin's objects (cuplug_get_api is then theirs);
 * other programs link libcuplug.so.  Either way the symbol resolves. */
const cuplug_api *t_api(void) {
  static const cuplug_api *api;
  if (!api) api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  return api;
}

static cuplug_info *info(void) {
  static cuplug_info i;
  static bool done;
  if (!done) {
    i.struct_size = sizeof i;
    cuplug_error *e = t_api()->get_info(&i);
    t_api()->error_destroy(e);
    done = true;
  }
  return &i;
}

bool t_have_nvvm(void) { return info()->nvvm_major >= 0; }
bool t_have_nvrtc(void) { return info()->nvrtc_major >= 0; }
bool t_have_nvjitlink(void) { return info()->nvjitlink_major >= 0; }
bool t_have_gpu(void) { return info()->device_count > 0; }

/* A build carried without libcuplug-host.so (it is 41 MB) skips the CPU
 * target's tests rather than fail them. */
static bool find_host(void) {
  cuplug_session *probe;
  if (t_api()->session_create(NULL, &probe)) return false;
  static const char ir[] = "define i32 @f(i32 %x) {\n  ret i32 %x\n}\n";
  cuplug_module m = {sizeof m, "probe.ll", ir, sizeof ir - 1};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = probe, .modules = mods,
                           .num_modules = 1, .entry = "f", .signature = "int32(int32)",
                           .entry_abi = CUPLUG_ABI_C, .output = CUPLUG_OUTPUT_HOST};
  cuplug_error *e = t_api()->compile(&a);
  cuplug_load_args l = {.struct_size = sizeof l, .session = probe, .artifact = a.artifact};
  if (!e) e = t_api()->load(&l);
  bool found = t_api()->error_code(e) != CUPLUG_ERR_HOST_NOT_FOUND;
  if (!found) printf("%s\n", t_api()->error_message(e));
  t_api()->error_destroy(e);
  t_api()->library_unload(l.library);
  t_api()->artifact_destroy(a.artifact);
  t_api()->session_destroy(probe);
  return found;
}

bool t_have_host(void) {
  static int found = -1;
  if (found < 0) found = find_host();
  return found;
}

/* The GPU machine has no LLVM: the cases that compile CUDA C++ with clang
 * at test time run where the build was made. */
bool t_have_clang(void) {
  const char *clang = getenv("CUPLUG_TEST_CLANG");
  return clang && *clang && access(clang, X_OK) == 0;
}

int t_stdout_capture(void) {
  fflush(stdout);
  char path[] = "/tmp/cuplug-stdout-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  unlink(path);
  int saved = dup(STDOUT_FILENO);
  ck_assert_int_ge(saved, 0);
  ck_assert_int_ge(dup2(fd, STDOUT_FILENO), 0);
  close(fd);
  return saved;
}

char *t_stdout_captured(int saved) {
  fflush(stdout);
  off_t size = lseek(STDOUT_FILENO, 0, SEEK_END);
  ck_assert_int_ge(size, 0);
  char *text = calloc(1, (size_t)size + 1);
  ck_assert_ptr_nonnull(text);
  ck_assert_int_eq(pread(STDOUT_FILENO, text, (size_t)size, 0), size);
  ck_assert_int_ge(dup2(saved, STDOUT_FILENO), 0);
  close(saved);
  return text;
}

/* ... and the cases that lower MLIR's gpu dialect at test time */
bool t_have_mlir(void) {
  const char *tools[] = {getenv("CUPLUG_TEST_MLIR_OPT"), getenv("CUPLUG_TEST_MLIR_TRANSLATE")};
  for (size_t i = 0; i < 2; i++)
    if (!tools[i] || !*tools[i] || access(tools[i], X_OK) != 0) return false;
  return true;
}

bool t_have_redis(void) {
  static int have = -1;
  if (have < 0) {
    const char *lib = getenv("CUPLUG_HIREDIS");
    void *so = dlopen(lib && *lib ? lib : "libhiredis.so." HIREDIS_SONAME_TEXT, RTLD_LAZY);
    have = so && t_redis_server();
    if (so) dlclose(so);
  }
  return have;
}

cuplug_session *t_session(void) {
  cuplug_session *s = NULL;
  T_ASSERT_OK(t_api()->session_create(NULL, &s));
  return s;
}

cuplug_error *t_compile_case(cuplug_session *s, const char *name, const char *ir, size_t n,
                             cuplug_output output, uint32_t time_limit_ms,
                             cuplug_artifact **artifact) {
  t_case *cases;
  int num = t_cases(&cases);
  const t_case *c = NULL;
  for (int i = 0; i < num && !c; i++)
    if (!strcmp(cases[i].name, name)) c = &cases[i];
  ck_assert_msg(c != NULL, "no corpus case %s", name);
  cuplug_module m = {sizeof m, "input.ll", ir ? ir : c->ir, ir ? n : c->ir_size};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a;
  t_case_args(c, s, mods, &a);
  a.output = output;
  a.time_limit_ms = time_limit_ms;
  cuplug_error *e = t_api()->compile(&a);
  if (!e && artifact)
    *artifact = a.artifact;
  else if (!e)
    t_api()->artifact_destroy(a.artifact);
  t_cases_free(cases, num);
  return e;
}

cuplug_session *t_session_uncached(void) {
  cuplug_session_options o = {.struct_size = sizeof o, .flags = CUPLUG_SESSION_NO_CACHE};
  cuplug_session *s = NULL;
  T_ASSERT_OK(t_api()->session_create(&o, &s));
  return s;
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const t_case *)a)->name, ((const t_case *)b)->name);
}

const t_case *t_case_named(const t_case *cases, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(cases[i].name, name) == 0) return &cases[i];
  ck_abort_msg("no corpus case %s", name);
  return NULL;
}

int t_cases(t_case **out) {
  const char *env = getenv("CUPLUG_CONFORMANCE_DIR");
  char root[4096];
  snprintf(root, sizeof root, "%s", env && *env ? env : t_path("conformance/numba"));
  DIR *d = opendir(root);
  if (!d) die("cannot open the corpus %s", root);
  t_case *v = NULL;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char path[8448];
    snprintf(path, sizeof path, "%s/%s/case.json", root, e->d_name);
    FILE *f = fopen(path, "rb");
    if (!f) continue;
    fclose(f);
    v = realloc(v, (size_t)(n + 1) * sizeof *v);
    t_case *c = &v[n++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", e->d_name);
    snprintf(c->dir, sizeof c->dir, "%s/%s", root, e->d_name);
    char *text = t_read(path, NULL);
    char err[128];
    c->json = json_parse(text, err, sizeof err);
    if (!c->json) die("%s: %s", path, err);
    free(text);
    snprintf(path, sizeof path, "%.8000s/input.ll", c->dir);
    c->ir = t_read(path, &c->ir_size);
    c->kernel = strcmp(json_string(c->json, "kind"), "kernel") == 0;
  }
  closedir(d);
  qsort(v, (size_t)n, sizeof *v, by_name);
  *out = v;
  return n;
}

void t_cases_free(t_case *cases, int n) {
  for (int i = 0; i < n; i++) {
    json_free(cases[i].json);
    free(cases[i].ir);
  }
  free(cases);
}

void t_case_args(const t_case *c, cuplug_session *s, const cuplug_module **mods,
                 cuplug_compile_args *a) {
  memset(a, 0, sizeof *a);
  a->struct_size = sizeof *a;
  a->session = s;
  a->modules = mods;
  a->num_modules = 1;
  a->entry = json_string(c->json, "entry");
  a->signature = json_string(c->json, "signature");
  a->kind = c->kernel ? CUPLUG_KERNEL : CUPLUG_DEVICE_FUNCTION;
  if (!c->kernel) {
    const char *abi = json_string(c->json, "abi");
    a->abi = abi && !strcmp(abi, "numba") ? CUPLUG_ABI_NUMBA : CUPLUG_ABI_C;
    if (a->abi == CUPLUG_ABI_C) a->abi_name = json_string(c->json, "abi_name");
  }
}

void t_case_declare(const t_case *c, cuplug_session *s) {
  const json *decls = json_get(c->json, "declare_device");
  for (size_t i = 0; decls && decls->kind == JSON_ARRAY && i < decls->count; i++) {
    const json *d = decls->items[i];
    const json *links = json_get(d, "link");
    cuplug_code codes[8];
    const cuplug_code *ptrs[8];
    char paths[8][8448];
    size_t n = 0;
    for (size_t k = 0; links && k < links->count && n < 8; k++, n++) {
      snprintf(paths[n], sizeof paths[n], "%.8000s/%s", c->dir, links->items[k]->string);
      codes[n] = (cuplug_code){.struct_size = sizeof codes[n], .path = paths[n]};
      ptrs[n] = &codes[n];
    }
    const char *abi = json_string(d, "abi");
    cuplug_declare_device_args a = {.struct_size = sizeof a,
                                    .registry = t_api()->session_registry(s),
                                    .name = json_string(d, "name"),
                                    .signature = json_string(d, "signature"),
                                    .abi = abi && !strcmp(abi, "c") ? CUPLUG_ABI_C : CUPLUG_ABI_NUMBA,
                                    .link = ptrs,
                                    .num_link = n};
    cuplug_error *e = t_api()->declare_device(&a);
    if (e && t_api()->error_code(e) != CUPLUG_ERR_DUPLICATE)
      die("%s: declare_device %s: %s", c->name, a.name, t_api()->error_message(e));
    t_api()->error_destroy(e);
  }
}

bool t_elf_has_symbol(const void *elf, size_t size, const char *name) {
  const unsigned char *b = elf;
  if (size < sizeof(Elf64_Ehdr) || memcmp(b, ELFMAG, SELFMAG) != 0) return false;
  const Elf64_Ehdr *eh = elf;
  if (eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > size) return false;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(b + eh->e_shoff);
  for (int i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_SYMTAB) continue;
    const Elf64_Shdr *strtab = &sh[sh[i].sh_link];
    const Elf64_Sym *sym = (const Elf64_Sym *)(b + sh[i].sh_offset);
    size_t count = sh[i].sh_size / sizeof(Elf64_Sym);
    for (size_t k = 0; k < count; k++) {
      if (sym[k].st_shndx == SHN_UNDEF) continue;
      const char *s = (const char *)(b + strtab->sh_offset + sym[k].st_name);
      if (strcmp(s, name) == 0) return true;
    }
  }
  return false;
}

int t_run_suite(Suite *s) {
  SRunner *sr = srunner_create(s);
  /* Once this process has initialised CUDA (asking for a GPU does), a
   * forked child cannot use it: where there is a GPU, tests run in-process. */
  if (!getenv("CK_FORK") && t_have_gpu()) srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}

TCase *t_suite(Suite **suite, const char *name, void (*setup)(void), void (*teardown)(void),
               double timeout) {
  *suite = suite_create(name);
  TCase *tc = tcase_create(name);
  if (setup || teardown) tcase_add_checked_fixture(tc, setup, teardown);
  if (timeout > 0) tcase_set_timeout(tc, timeout);
  suite_add_tcase(*suite, tc);
  return tc;
}

bool t_nvjitlink(const void *ltoir, size_t size, unsigned cc, void **cubin,
                 size_t *cubin_size, char **log) {
  static void *h;
  const char *paths[] = {"/usr/local/cuda/lib64/libnvJitLink.so.13",
                         "/usr/local/cuda/lib/libnvJitLink.so.13", "libnvJitLink.so.13", NULL};
  for (int i = 0; paths[i] && !h; i++) h = dlopen(paths[i], RTLD_NOW);
  ck_assert_msg(h != NULL, "nvJitLink not found");
  typedef struct nvjl *nvjl;
  int (*create)(nvjl *, unsigned, const char **) = (int (*)(nvjl *, unsigned, const char **))dlsym(h, "nvJitLinkCreate");
  int (*add)(nvjl, int, const void *, size_t, const char *) = (int (*)(nvjl, int, const void *, size_t, const char *))dlsym(h, "nvJitLinkAddData");
  int (*complete)(nvjl) = (int (*)(nvjl))dlsym(h, "nvJitLinkComplete");
  int (*cubin_sz)(nvjl, size_t *) = (int (*)(nvjl, size_t *))dlsym(h, "nvJitLinkGetLinkedCubinSize");
  int (*get_cubin)(nvjl, void *) = (int (*)(nvjl, void *))dlsym(h, "nvJitLinkGetLinkedCubin");
  int (*log_sz)(nvjl, size_t *) = (int (*)(nvjl, size_t *))dlsym(h, "nvJitLinkGetErrorLogSize");
  int (*get_log)(nvjl, char *) = (int (*)(nvjl, char *))dlsym(h, "nvJitLinkGetErrorLog");
  int (*destroy)(nvjl *) = (int (*)(nvjl *))dlsym(h, "nvJitLinkDestroy");
  char arch[32];
  snprintf(arch, sizeof arch, "-arch=sm_%u", cc);
  const char *opts[] = {arch, "-lto"};
  nvjl l;
  ck_assert_int_eq(create(&l, 2, opts), 0);
  bool ok = add(l, 3 /* NVJITLINK_INPUT_LTOIR */, ltoir, size, "cuplug") == 0 && complete(l) == 0;
  *log = NULL;
  if (ok) {
    ck_assert_int_eq(cubin_sz(l, cubin_size), 0);
    *cubin = malloc(*cubin_size);
    ck_assert_int_eq(get_cubin(l, *cubin), 0);
  } else {
    size_t n = 0;
    log_sz(l, &n);
    *log = calloc(1, n + 1);
    get_log(l, *log);
  }
  destroy(&l);
  return ok;
}

/* ---- calling a registered function from a kernel ---- */

const cuplug_type *t_type(const char *text) {
  const cuplug_type *t = NULL;
  T_ASSERT_OK(t_api()->type_parse(text, &t));
  return t;
}

cuplug_type_info t_type_info(const cuplug_type *t) {
  cuplug_type_info i = {.struct_size = sizeof i, .type = t};
  T_ASSERT_OK(t_api()->type_info(&i));
  return i;
}

const char *t_type_name(const cuplug_type *t) { return t_type_info(t).name; }

const char *t_ir_type(const cuplug_type *t) {
  cuplug_type_lower_args l = {.struct_size = sizeof l, .type = t, .abi = CUPLUG_ABI_C,
                              .position = CUPLUG_POSITION_RETURN};
  T_ASSERT_OK(t_api()->type_lower(&l));
  return l.ir_type;
}

char *t_artifact_text(const cuplug_artifact *a) {
  cuplug_artifact_info i = {.struct_size = sizeof i};
  T_ASSERT_OK(t_api()->artifact_info(a, &i));
  char *copy = strdup(i.data);
  ck_assert_ptr_nonnull(copy);
  return copy;
}

bool t_host_target;

uint64_t t_dev_alloc(cuplug_session *s, size_t bytes) {
  uint64_t p = 0;
  if (t_host_target) {
    void *m = calloc(1, bytes ? bytes : 1);
    ck_assert_ptr_nonnull(m);
    return (uint64_t)(uintptr_t)m;
  }
  T_ASSERT_OK(t_api()->mem_alloc(s, bytes, &p));
  return p;
}

uint64_t t_dev_copy(cuplug_session *s, const void *host, size_t bytes) {
  uint64_t p = t_dev_alloc(s, bytes);
  if (t_host_target) memcpy((void *)(uintptr_t)p, host, bytes);
  else T_ASSERT_OK(t_api()->memcpy_to_device(s, p, host, bytes));
  return p;
}

void t_to_host(cuplug_session *s, void *host, uint64_t dev, size_t bytes) {
  if (t_host_target) memcpy(host, (const void *)(uintptr_t)dev, bytes);
  else T_ASSERT_OK(t_api()->memcpy_to_host(s, host, dev, bytes));
}

void t_dev_free(cuplug_session *s, uint64_t dev) {
  if (t_host_target) free((void *)(uintptr_t)dev);
  else T_ASSERT_OK(t_api()->mem_free(s, dev));
}

/* Appends to a growing string. */
__attribute__((format(printf, 4, 5))) static void put(char **s, size_t *len, size_t *cap,
                                                      const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (*len + (size_t)n + 1 > *cap) {
    *cap = (*len + (size_t)n + 1) * 2;
    *s = realloc(*s, *cap);
    if (!*s) die("out of memory");
  }
  va_start(ap, fmt);
  vsnprintf(*s + *len, *cap - *len, fmt, ap);
  va_end(ap);
  *len += (size_t)n;
}

char *t_elementwise_kernel(const cuplug_type *sig, const char *symbol, char *kernel_sig,
                           size_t kernel_sig_size) {
  cuplug_type_info si = {.struct_size = sizeof si, .type = sig};
  T_ASSERT_OK(t_api()->type_info(&si));
  bool has_out = t_type_name(si.restype)[0] != 'v'; /* not "void" */
  size_t cap = 0, len = 0;
  char *ir = NULL;
#define PUT(...) put(&ir, &len, &cap, __VA_ARGS__)
  int k = snprintf(kernel_sig, kernel_sig_size, "void(");
  PUT("define void @k(");
  bool first = true;
  if (has_out) {
    PUT("%s* %%out", t_ir_type(si.restype));
    k += snprintf(kernel_sig + k, kernel_sig_size - (size_t)k, "CPointer(%s)", t_type_name(si.restype));
    first = false;
  }
  for (size_t a = 0; a < si.num_args; a++) {
    PUT("%s%s* %%in%zu", first ? "" : ", ", t_ir_type(si.args[a]), a);
    k += snprintf(kernel_sig + k, kernel_sig_size - (size_t)k, "%sCPointer(%s)", first ? "" : ", ",
                  t_type_name(si.args[a]));
    first = false;
  }
  snprintf(kernel_sig + k, kernel_sig_size - (size_t)k, ")");
  PUT(") {\nentry:\n"
      "  %%tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
      "  %%ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
      "  %%ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
      "  %%base = mul i32 %%ntid, %%ctaid\n"
      "  %%i32 = add i32 %%base, %%tid\n"
      "  %%i = sext i32 %%i32 to i64\n");
  for (size_t a = 0; a < si.num_args; a++) {
    const char *t = t_ir_type(si.args[a]);
    PUT("  %%p%zu = getelementptr %s, %s* %%in%zu, i64 %%i\n  %%a%zu = load %s, %s* %%p%zu\n", a, t,
        t, a, a, t, t, a);
  }
  PUT("  %scall %s @%s(", has_out ? "%r = " : "", t_ir_type(si.restype), symbol);
  for (size_t a = 0; a < si.num_args; a++) PUT("%s%s %%a%zu", a ? ", " : "", t_ir_type(si.args[a]), a);
  PUT(")\n");
  if (has_out)
    PUT("  %%po = getelementptr %s, %s* %%out, i64 %%i\n  store %s %%r, %s* %%po\n",
        t_ir_type(si.restype), t_ir_type(si.restype), t_ir_type(si.restype), t_ir_type(si.restype));
  PUT("  ret void\n}\n\ndeclare %s @%s(", t_ir_type(si.restype), symbol);
  for (size_t a = 0; a < si.num_args; a++) PUT("%s%s", a ? ", " : "", t_ir_type(si.args[a]));
  PUT(")\ndeclare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
      "declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
      "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n");
#undef PUT
  return ir;
}

const cuplug_type *t_argtypes(const char *list, const cuplug_type *const **args, size_t *n) {
  char buf[1024];
  snprintf(buf, sizeof buf, "void(%s)", list);
  const cuplug_type *sig;
  T_ASSERT_OK(t_api()->type_parse(buf, &sig));
  cuplug_type_info i = {.struct_size = sizeof i, .type = sig};
  T_ASSERT_OK(t_api()->type_info(&i));
  *args = i.args;
  *n = i.num_args;
  return sig;
}

cuplug_error *t_try_compile_call(cuplug_session *s, const char *key, const char *argtypes,
                                 cuplug_output output, int32_t opt, uint32_t flags,
                                 cuplug_resolve_args *how, cuplug_artifact **artifact) {
  const cuplug_type *const *args;
  size_t n;
  t_argtypes(argtypes, &args, &n);
  cuplug_resolve_args r = {.struct_size = sizeof r, .registry = t_api()->session_registry(s),
                           .key = key, .argtypes = args, .nargs = n};
  T_ASSERT_OK(t_api()->resolve_call(&r));
  if (how) *how = r;
  char ksig[1024];
  char *ir = t_elementwise_kernel(r.signature, r.symbol, ksig, sizeof ksig);
  cuplug_module m = {.struct_size = sizeof m, .name = key, .text = ir, .size = strlen(ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = "k", .signature = ksig,
                           .entry_abi = CUPLUG_ABI_C, .kind = CUPLUG_KERNEL, .output = output,
                           .cc_major = 9, .cc_minor = 0, .opt = opt, .flags = flags};
  cuplug_error *e = t_api()->compile(&a);
  free(ir);
  *artifact = a.artifact;
  return e;
}

cuplug_artifact *t_compile_call(cuplug_session *s, const char *key, const char *argtypes,
                                cuplug_output output, int32_t opt, cuplug_resolve_args *how) {
  cuplug_artifact *a;
  T_ASSERT_OK(t_try_compile_call(s, key, argtypes, output, opt, 0, how, &a));
  return a;
}

/* ---- small kernels, several to a cubin ---- */

const t_kernel t_k_const = {"k_const", "void(CPointer(int32))",
                            "define i32 @k_const(i8** %ret, i32* %out) {\n"
                            "entry:\n"
                            "  store i32 11, i32* %out\n"
                            "  ret i32 0\n"
                            "}\n"};
const t_kernel t_k_sum = {"k_sum", "void(CPointer(int32), int32, int32)",
                          "define i32 @k_sum(i8** %ret, i32* %out, i32 %a, i32 %b) {\n"
                          "entry:\n"
                          "  %s = add i32 %a, %b\n"
                          "  store i32 %s, i32* %out\n"
                          "  ret i32 0\n"
                          "}\n"};
const t_kernel t_k_neg = {"k_neg", "void(CPointer(int64), int64)",
                          "define i32 @k_neg(i8** %ret, i64* %out, i64 %a) {\n"
                          "entry:\n"
                          "  %n = sub i64 0, %a\n"
                          "  store i64 %n, i64* %out\n"
                          "  ret i32 0\n"
                          "}\n"};

void *t_host_address(cuplug_library *l) {
  cuplug_host_function_args f = {.struct_size = sizeof f, .library = l};
  T_ASSERT_OK(t_api()->host_function(&f));
  return f.address;
}

void t_host_call(cuplug_library *l, const cuplug_value *v, size_t n, void *result, size_t size) {
  cuplug_host_call_args c = {.struct_size = sizeof c, .library = l, .args = v, .num_args = n,
                             .result = result, .result_size = size};
  T_ASSERT_OK(t_api()->host_call(&c));
}

cuplug_error *t_try_compile_kernel(cuplug_session *s, const t_kernel *k, cuplug_output output,
                                   int32_t opt, uint32_t flags, cuplug_artifact **artifact) {
  cuplug_module m = {.struct_size = sizeof m, .name = k->name, .text = k->ir,
                     .size = strlen(k->ir)};
  const cuplug_module *mods[] = {&m};
  bool current = (flags & CUPLUG_COMPILE_CURRENT_DEVICE) != 0;
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = k->name, .signature = k->signature,
                           .kind = CUPLUG_KERNEL, .output = output,
                           .cc_major = current ? 0 : 9, .opt = opt, .flags = flags};
  cuplug_error *e = t_api()->compile(&a);
  *artifact = a.artifact;
  return e;
}

cuplug_artifact *t_compile_kernel(cuplug_session *s, const t_kernel *k, cuplug_output output,
                                  uint32_t flags) {
  cuplug_artifact *a = NULL;
  T_ASSERT_OK(t_try_compile_kernel(s, k, output, 0, flags, &a));
  return a;
}

const char t_raising_ir[] =
    "define i32 @raiser(i8** %ret, i32* %out) {\n"
    "entry:\n"
    "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
    "  %is_t = icmp eq i32 %t, 3\n"
    "  %is_b = icmp eq i32 %b, 1\n"
    "  %both = and i1 %is_t, %is_b\n"
    "  br i1 %both, label %raise, label %ok\n"
    "raise:\n"
    "  ret i32 7\n"
    "ok:\n"
    "  store i32 1, i32* %out\n"
    "  ret i32 0\n"
    "}\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n";
