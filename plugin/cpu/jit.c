/* jit.c - the IR a compile would hand libNVVM, compiled for this CPU.
 *
 * One LLJIT per session, made on first use (LLVM's OrcV2CBindings
 * examples).  A library is one JITDylib: its modules are parsed by LLVM 22
 * (which reads libNVVM's typed-pointer dialect and modern IR alike),
 * linked into one, retargeted (retarget.c), optimised at O2 for this CPU,
 * and added; the runtime's symbols (runtime.c) and the few of the
 * process's that mean on the host what they mean on a GPU (libm, ...:
 * device_lib.c) resolve what it calls.
 * Unloading removes the JITDylib's code (its resource tracker); the empty
 * JITDylib itself stays, for LLVM-C cannot remove one. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "plugin/cpu/jit.h"
#include "plugin/cpu/device_lib.h"
#include "plugin/cpu/fail.h"
#include "plugin/cpu/libdevice.h"
#include "plugin/cpu/polls.h"
#include "plugin/cpu/retarget.h"
#include "plugin/cpu/rows.h"
#include "plugin/cpu/runtime.h"
#include "plugin/cpu/tm.h"

struct cuplug__cpu_jit {
  LLVMOrcLLJITRef jit;
  LLVMOrcExecutionSessionRef es;
  LLVMTargetMachineRef tm; /* the optimiser's: this CPU, its features */
  pthread_mutex_t lock;    /* the JITDylib names */
  unsigned next_lib;
  /* One library compiles at a time: the optimiser's target machine, and
   * the JIT's (LLJIT compiles on the thread that looks a symbol up, with
   * one machine), are not safe to use from two threads at once. */
  pthread_mutex_t compile_lock;
};

/* LLVM's error as our message (consumes the error). */
static int llvm_fail(char **msg, int code, LLVMErrorRef err, const char *what) {
  char *m = LLVMGetErrorMessage(err);
  int rc = cuplug__cpu_fail(msg, code, "%s: %s", what, m);
  LLVMDisposeErrorMessage(m);
  return rc;
}

static pthread_once_t targets_once = PTHREAD_ONCE_INIT;
static void init_targets(void) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
}

int cuplug__cpu_jit_create(cuplug__cpu_jit **out, char **msg) {
  pthread_once(&targets_once, init_targets);
  cuplug__cpu_jit *j = calloc(1, sizeof *j);
  if (!j) return cuplug__cpu_fail(msg, CUPLUG_ERR_OUT_OF_MEMORY, "out of memory");
  char *triple = LLVMGetDefaultTargetTriple();
  char *cpu = LLVMGetHostCPUName();
  char *features = LLVMGetHostCPUFeatures();
  LLVMTargetRef target;
  char *why = NULL;
  int rc = 0;
  if (LLVMGetTargetFromTriple(triple, &target, &why)) {
    rc = cuplug__cpu_fail(msg, CUPLUG_ERR_HOST_UNSUPPORTED, "no LLVM target for %s: %s", triple,
                           why);
    LLVMDisposeMessage(why);
  } else {
    /* Two machines alike: the optimiser's, and the JIT's, which takes the
     * one it is given.  The JIT's keeps thread-locals emulated: shared
     * memory lives in them, per block (runtime.c). */
    j->tm = LLVMCreateTargetMachine(target, triple, cpu, features, LLVMCodeGenLevelDefault,
                                    LLVMRelocPIC, LLVMCodeModelJITDefault);
    LLVMTargetMachineRef jtm = LLVMCreateTargetMachine(target, triple, cpu, features,
                                                       LLVMCodeGenLevelDefault, LLVMRelocPIC,
                                                       LLVMCodeModelJITDefault);
    cuplug__cpu_tm_options(jtm);
    LLVMOrcLLJITBuilderRef b = LLVMOrcCreateLLJITBuilder();
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(
        b, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(jtm));
    LLVMErrorRef err = LLVMOrcCreateLLJIT(&j->jit, b);
    if (err) rc = llvm_fail(msg, CUPLUG_ERR_HOST_UNSUPPORTED, err, "creating the host JIT");
  }
  LLVMDisposeMessage(triple);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  if (rc) {
    if (j->tm) LLVMDisposeTargetMachine(j->tm);
    free(j);
    return rc;
  }
  j->es = LLVMOrcLLJITGetExecutionSession(j->jit);
  pthread_mutex_init(&j->lock, NULL);
  pthread_mutex_init(&j->compile_lock, NULL);
  *out = j;
  return 0;
}

void cuplug__cpu_jit_destroy(cuplug__cpu_jit *j) {
  if (!j) return;
  LLVMErrorRef err = LLVMOrcDisposeLLJIT(j->jit);
  if (err) LLVMConsumeError(err);
  LLVMDisposeTargetMachine(j->tm);
  pthread_mutex_destroy(&j->lock);
  pthread_mutex_destroy(&j->compile_lock);
  free(j);
}

/* ---- lookups: ExecutionSession::lookup, waited for ---- */

typedef struct lookup_wait {
  pthread_mutex_t lock;
  pthread_cond_t done_cv;
  bool done;
  uint64_t address;
  char *error;
} lookup_wait;

static void lookup_done(LLVMErrorRef err, LLVMOrcCSymbolMapPairs result, size_t n, void *ctx) {
  lookup_wait *w = ctx;
  pthread_mutex_lock(&w->lock);
  if (err) {
    char *m = LLVMGetErrorMessage(err);
    w->error = strdup(m);
    LLVMDisposeErrorMessage(m);
  } else if (n) {
    w->address = result[0].Sym.Address;
  }
  w->done = true;
  pthread_cond_signal(&w->done_cv);
  pthread_mutex_unlock(&w->lock);
}

/* The address of `name` in the library's JITDylib (compiling it now, if
 * it is not yet); 0 and *error (malloc'd) when it cannot be had. */
static uint64_t lookup(cuplug__cpu_lib *l, const char *name, char **error) {
  lookup_wait w = {.lock = PTHREAD_MUTEX_INITIALIZER, .done_cv = PTHREAD_COND_INITIALIZER};
  LLVMOrcCJITDylibSearchOrderElement order[] = {
      {l->jd, LLVMOrcJITDylibLookupFlagsMatchAllSymbols}};
  LLVMOrcCLookupSetElement syms[] = {
      {LLVMOrcExecutionSessionIntern(l->jit->es, name), LLVMOrcSymbolLookupFlagsRequiredSymbol}};
  LLVMOrcExecutionSessionLookup(l->jit->es, LLVMOrcLookupKindStatic, order, 1, syms, 1,
                                lookup_done, &w);
  pthread_mutex_lock(&w.lock);
  while (!w.done) pthread_cond_wait(&w.done_cv, &w.lock);
  pthread_mutex_unlock(&w.lock);
  if (error) *error = w.error;
  else free(w.error);
  return w.error ? 0 : w.address;
}

void *cuplug__cpu_lookup(cuplug__cpu_lib *l, const char *name) {
  return (void *)(uintptr_t)lookup(l, name, NULL);
}

/* ---- making a library ---- */

/* Parses the modules into one, in the JIT's context. */
static int parse_and_link(LLVMContextRef ctx, const cuplug__text *mods, size_t n,
                          LLVMModuleRef *out, char **msg) {
  LLVMModuleRef whole = NULL;
  for (size_t i = 0; i < n; i++) {
    LLVMMemoryBufferRef buf =
        LLVMCreateMemoryBufferWithMemoryRangeCopy(mods[i].text, mods[i].size, mods[i].name);
    LLVMModuleRef m;
    char *why = NULL;
    LLVMBool bad = LLVMParseIRInContext2(ctx, buf, &m, &why);
    LLVMDisposeMemoryBuffer(buf);
    if (bad) {
      int rc = cuplug__cpu_fail(msg, CUPLUG_ERR_IR_PARSE, "%s: LLVM cannot read it: %s",
                                 mods[i].name, why);
      LLVMDisposeMessage(why);
      if (whole) LLVMDisposeModule(whole);
      return rc;
    }
    if (!whole) {
      whole = m;
      continue;
    }
    /* numba's text, the registry's and a modern producer's name different
     * layouts; retarget sets the host's on the whole, and LLVM would warn
     * on stderr of each difference */
    LLVMSetTarget(m, LLVMGetTarget(whole));
    LLVMSetDataLayout(m, LLVMGetDataLayoutStr(whole));
    if (LLVMLinkModules2(whole, m)) { /* takes m */
      LLVMDisposeModule(whole);
      return cuplug__cpu_fail(msg, CUPLUG_ERR_LINK,
                               "%s: cannot be linked with the modules before it (a symbol "
                               "defined twice?)",
                               mods[i].name);
    }
  }
  *out = whole;
  return 0;
}

static int optimise(cuplug__cpu_jit *j, LLVMModuleRef m, const char *passes, char **msg) {
  LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopVectorization(o, 1);
  LLVMPassBuilderOptionsSetSLPVectorization(o, 1);
  LLVMErrorRef err = LLVMRunPasses(m, passes, j->tm, o);
  LLVMDisposePassBuilderOptions(o);
  return err ? llvm_fail(msg, CUPLUG_ERR_HOST_UNSUPPORTED, err, "optimising for the host") : 0;
}

/* Of the process's symbols, those device_lib.c allows. */
static int process_may_call(void *ctx, LLVMOrcSymbolStringPoolEntryRef sym) {
  (void)ctx;
  return cuplug__cpu_process_may_call(LLVMOrcSymbolStringPoolEntryStr(sym));
}

/* The runtime's functions, and those of the process's that device code
 * may call (the IR's own declarations were checked by retarget.c; these
 * are also what LLVM's code generator calls: memcpy, fmodf, ...). */
static int define_runtime(cuplug__cpu_lib *l, const cuplug__cpu_lib_args *a, char **msg) {
  size_t n = 0;
  const cuplug__cpu_symbol *rt = cuplug__cpu_runtime_symbols(&n);
  LLVMOrcCSymbolMapPair *pairs = calloc(n + a->num_externs, sizeof *pairs);
  if (!pairs) return cuplug__cpu_fail(msg, CUPLUG_ERR_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; i < n + a->num_externs; i++) {
    const char *name = i < n ? rt[i].name : a->extern_names[i - n];
    void *address = i < n ? rt[i].address : a->extern_addresses[i - n];
    pairs[i].Name = LLVMOrcExecutionSessionIntern(l->jit->es, name);
    pairs[i].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)address;
    pairs[i].Sym.Flags.GenericFlags =
        LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
  }
  LLVMErrorRef err =
      LLVMOrcJITDylibDefine(l->jd, LLVMOrcAbsoluteSymbols(pairs, n + a->num_externs));
  free(pairs);
  if (err) return llvm_fail(msg, CUPLUG_ERR_HOST_UNSUPPORTED, err, "defining the runtime");
  LLVMOrcDefinitionGeneratorRef gen;
  err = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
      &gen, LLVMOrcLLJITGetGlobalPrefix(l->jit->jit), process_may_call, NULL);
  if (err) return llvm_fail(msg, CUPLUG_ERR_HOST_UNSUPPORTED, err, "searching the process");
  LLVMOrcJITDylibAddGenerator(l->jd, gen);
  return 0;
}

static int add_module(cuplug__cpu_lib *l, const cuplug__cpu_lib_args *a, LLVMModuleRef m,
                      LLVMOrcThreadSafeContextRef tsc, char **msg) {
  pthread_mutex_lock(&l->jit->lock);
  char name[48];
  snprintf(name, sizeof name, "cuplug.host.%u", l->jit->next_lib++);
  pthread_mutex_unlock(&l->jit->lock);
  l->jd = LLVMOrcExecutionSessionCreateBareJITDylib(l->jit->es, name);
  int rc = define_runtime(l, a, msg);
  if (rc) {
    LLVMDisposeModule(m);
    return rc;
  }
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m, tsc);
  LLVMErrorRef err = LLVMOrcLLJITAddLLVMIRModule(l->jit->jit, l->jd, tsm);
  if (err) {
    LLVMOrcDisposeThreadSafeModule(tsm);
    return llvm_fail(msg, CUPLUG_ERR_HOST_UNSUPPORTED, err, "adding the module to the host JIT");
  }
  return 0;
}

/* Compiles the library now (one lookup materialises the module) and finds
 * each kernel's launcher and exception store. */
static int find_kernels(cuplug__cpu_lib *l, const char *entry, char **msg) {
  if (entry) { /* compiled now, so that its errors are load()'s */
    char *error = NULL;
    if (!lookup(l, entry, &error)) {
      int rc = cuplug__cpu_fail(msg, CUPLUG_ERR_HOST_UNSUPPORTED,
                                 "%s cannot be compiled for the host: %s", entry,
                                 error ? error : "not found");
      free(error);
      return rc;
    }
  }
  for (size_t i = 0; i < l->num_kernels; i++) {
    cuplug__cpu_kernel *k = &l->kernels[i];
    char *error = NULL;
    char name[4200];
    snprintf(name, sizeof name, "%s%s", CUPLUG__CPU_LAUNCHER, k->name);
    k->launcher = (cuplug__cpu_launcher)(uintptr_t)lookup(l, name, &error);
    if (!k->launcher) {
      int rc = cuplug__cpu_fail(msg, CUPLUG_ERR_HOST_UNSUPPORTED,
                                 "kernel %s cannot be compiled for the host: %s", k->name,
                                 error ? error : "no launcher");
      free(error);
      return rc;
    }
    snprintf(name, sizeof name, "%s%s", CUPLUG__CPU_ROW, k->name);
    char *none = NULL;
    k->row = (cuplug__cpu_launcher)(uintptr_t)lookup(l, name, &none);
    free(none); /* no row launcher: threads one by one */
    static const char *const store[] = {"__errcode__", "__tidx__",   "__tidy__",  "__tidz__",
                                        "__ctaidx__",  "__ctaidy__", "__ctaidz__"};
    for (int s = 0; s < 7; s++) {
      snprintf(name, sizeof name, "%s%s", k->name, store[s]);
      none = NULL;
      k->store[s] = (int32_t *)(uintptr_t)lookup(l, name, &none);
      free(none); /* a kernel without the exception store */
    }
  }
  return 0;
}

/* A library that knows its kernels' names, nothing compiled yet. */
static int lib_new(cuplug__cpu_jit *j, const cuplug__cpu_lib_args *a, cuplug__cpu_lib **out,
                   char **msg) {
  cuplug__cpu_lib *l = calloc(1, sizeof *l);
  if (!l || !(l->kernels = calloc(a->num_kernels ? a->num_kernels : 1, sizeof *l->kernels))) {
    free(l);
    return cuplug__cpu_fail(msg, CUPLUG_ERR_OUT_OF_MEMORY, "out of memory");
  }
  l->jit = j;
  *out = l;
  for (size_t i = 0; i < a->num_kernels; i++) {
    if (!(l->kernels[i].name = strdup(a->kernels[i])))
      return cuplug__cpu_fail(msg, CUPLUG_ERR_OUT_OF_MEMORY, "out of memory");
    l->num_kernels++;
  }
  return 0;
}

/* The module made host IR for the JIT's target (retarget.c). */
static int retarget_for(cuplug__cpu_jit *j, cuplug__cpu_lib *l, const cuplug__cpu_lib_args *a,
                        LLVMModuleRef m, char **msg) {
  cuplug__cpu_cabi_fn *imports = calloc(a->num_externs + 1, sizeof *imports);
  if (!imports) return cuplug__cpu_fail(msg, CUPLUG_ERR_OUT_OF_MEMORY, "out of memory");
  char *triple = LLVMGetTargetMachineTriple(j->tm);
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(j->tm);
  char *layout = LLVMCopyStringRepOfTargetData(td);
  size_t num_imports = 0;
  for (size_t i = 0; a->extern_signatures && i < a->num_externs; i++)
    if (a->extern_signatures[i])
      imports[num_imports++] = (cuplug__cpu_cabi_fn){a->extern_names[i], a->extern_signatures[i],
                                                     a->extern_numba && a->extern_numba[i]};
  cuplug__cpu_cabi_fn entry = {a->entry, a->entry_signature, a->entry_numba != 0};
  cuplug__cpu_retarget_args r = {.module = m,
                                 .triple = triple,
                                 .layout = layout,
                                 .sources = a->sources,
                                 .num_sources = a->num_sources,
                                 .kernels = a->kernels,
                                 .num_kernels = a->num_kernels,
                                 .externs = a->extern_names,
                                 .num_externs = a->num_externs,
                                 .exports = &entry,
                                 .num_exports = a->entry && a->entry_signature,
                                 .imports = imports,
                                 .num_imports = num_imports};
  int rc = cuplug__cpu_retarget(&r, msg);
  free(imports);
  l->uses_collectives = r.uses_collectives;
  LLVMDisposeMessage(layout);
  LLVMDisposeTargetData(td);
  LLVMDisposeMessage(triple);
  return rc;
}

/* Each kernel's row launcher where its code allows one (rows.c), the
 * others' deleted; the row loops, new since the first pass, then get a
 * loop pipeline of their own ($CUPLUG_HOST_ROW_PASSES replaces it): the
 * whole of O2 again doubled the compile of a kernel. */
static int make_rows(cuplug__cpu_jit *j, cuplug__cpu_lib *l, const cuplug__cpu_lib_args *a,
                     LLVMModuleRef m, char **msg) {
  bool rows = false;
  for (size_t k = 0; k < a->num_kernels && !l->uses_collectives; k++) {
    if (cuplug__cpu_make_row(m, a->kernels[k])) {
      rows = true;
    } else { /* threads one by one, through the per-thread launcher */
      char name[4200];
      snprintf(name, sizeof name, "%s%s", CUPLUG__CPU_ROW, a->kernels[k]);
      LLVMValueRef f = LLVMGetNamedFunction(m, name);
      if (f) LLVMDeleteFunction(f);
    }
  }
  const char *row_passes = getenv("CUPLUG_HOST_ROW_PASSES");
  if (!row_passes)
    row_passes = "function(instcombine,simplifycfg,loop-simplify,lcssa,loop-mssa(licm,loop-rotate),"
                 "loop-simplify,lcssa,loop(indvars),loop-vectorize,instcombine,simplifycfg)";
  return rows ? optimise(j, m, row_passes, msg) : 0;
}

/* What the JIT compiles, for whoever studies it (as numba's DUMP_LLVM):
 * $CUPLUG_HOST_DUMP_IR/<entry or first kernel>.host.ll */
static void dump_ir(const cuplug__cpu_lib_args *a, LLVMModuleRef m) {
  const char *dump = getenv("CUPLUG_HOST_DUMP_IR");
  const char *what = a->entry ? a->entry : a->num_kernels ? a->kernels[0] : NULL;
  if (!dump || !*dump || !what) return;
  char path[4096], *why = NULL;
  snprintf(path, sizeof path, "%s/%.200s.host.ll", dump, what);
  if (LLVMPrintModuleToFile(m, path, &why)) LLVMDisposeMessage(why);
}

int cuplug__cpu_lib_create(cuplug__cpu_jit *j, const cuplug__cpu_lib_args *a,
                           cuplug__cpu_lib **out, char **msg) {
  cuplug__cpu_lib *l = NULL;
  int rc = lib_new(j, a, &l, msg);
  if (rc) {
    cuplug__cpu_lib_destroy(l);
    return rc;
  }
  /* A context per library: LLVM contexts are not thread-safe, and loads
   * may run on many threads at once. */
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContextFromLLVMContext(ctx);
  LLVMModuleRef m = NULL;
  rc = parse_and_link(ctx, a->mods, a->num_mods, &m, msg);
  /* in the NVPTX layout libdevice's own, until retarget sets the host's */
  if (!rc && a->libdevice)
    rc = cuplug__cpu_link_libdevice(m, a->libdevice, a->libdevice_size, a->ftz != 0, msg);
  if (!rc) rc = retarget_for(j, l, a, m, msg);
  pthread_mutex_lock(&j->compile_lock);
  if (!rc) rc = optimise(j, m, "default<O2>", msg);
  if (!rc) rc = make_rows(j, l, a, m, msg);
  if (!rc) cuplug__cpu_add_polls(m); /* a stopped launch's way out (interrupt.c) */
  if (!rc) dump_ir(a, m);
  if (!rc) {
    rc = add_module(l, a, m, tsc, msg);
    m = NULL; /* the JIT's now, or disposed */
  }
  if (m) LLVMDisposeModule(m);
  LLVMOrcDisposeThreadSafeContext(tsc); /* the modules hold it as long as they need it */
  if (!rc) rc = find_kernels(l, a->entry, msg); /* the lookups compile the module */
  pthread_mutex_unlock(&j->compile_lock);
  if (rc) {
    cuplug__cpu_lib_destroy(l);
    return rc;
  }
  *out = l;
  return 0;
}

void cuplug__cpu_lib_destroy(cuplug__cpu_lib *l) {
  if (!l) return;
  if (l->jd) {
    LLVMOrcResourceTrackerRef rt = LLVMOrcJITDylibGetDefaultResourceTracker(l->jd);
    LLVMErrorRef err = LLVMOrcResourceTrackerRemove(rt);
    if (err) LLVMConsumeError(err);
  }
  for (size_t i = 0; i < l->num_kernels; i++) free(l->kernels[i].name);
  free(l->kernels);
  free(l);
}
