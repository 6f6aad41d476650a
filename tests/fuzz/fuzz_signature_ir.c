/* fuzz_signature_ir.c - random signatures against the corpus IR: each
 * compile either succeeds or fails with an error that is the input's own
 * fault (the signature disagrees with the IR, a kernel returns a value),
 * never anything else, and never a crash.
 *
 * The input: a byte choosing the corpus case, a byte of switches (kernel
 * or device function, entry ABI, trusted session, signature as text or as
 * a handle, a signature declared for the case's external function), then
 * the entry's signature and, after a newline, the declared one.  A text
 * that is no signature is read as bytes that build one from the grammar:
 * every scalar, CPointer, arrays of any dtype, rank and layout, tuples,
 * literals and number classes.  The seeds are the corpus's own signatures
 * (scripts/fuzz.sh).  Output is CUPLUG_OUTPUT_HOST: no toolkit, and fast. */
#include <dirent.h>
#include <stdio.h>

#include "cuplug/cuplug.h"
#include "fuzz.h"
#include "json.h"

#ifndef CUPLUG_FUZZ_CORPUS
#define CUPLUG_FUZZ_CORPUS "tests/conformance/numba"
#endif

enum {
  KERNEL = 1,       /* compile a kernel */
  ENTRY_C = 2,      /* the entry's ABI is C */
  TRUSTED = 4,      /* in a trusted session */
  AS_HANDLE = 8,    /* the signature as a cuplug_type, not text */
  DECLARE = 16,     /* declare the case's external function with the second signature */
  DECLARE_C = 32    /* ... under the C ABI */
};

typedef struct fuzz_case {
  char *name, *entry, *ir, *external; /* external: a declared function's name, or NULL */
  size_t ir_size;
} fuzz_case;

static const cuplug_api *api;
static cuplug_session *sessions[2]; /* untrusted, trusted */
static fuzz_case cases[64];
static size_t num_cases;

static int by_name(const struct dirent **a, const struct dirent **b) {
  return strcmp((*a)->d_name, (*b)->d_name);
}

static char *read_all(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)n + 1);
  if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) abort();
  text[n] = '\0';
  fclose(f);
  if (size) *size = (size_t)n;
  return text;
}

/* Every folder of the corpus with a case.json, in name order (the order
 * scripts/fuzz.sh numbers the seeds in). */
static void load_corpus(void) {
  const char *dir = getenv("CUPLUG_CONFORMANCE_DIR");
  if (!dir) dir = CUPLUG_FUZZ_CORPUS;
  struct dirent **names;
  int n = scandir(dir, &names, NULL, by_name);
  if (n < 0) {
    fprintf(stderr, "fuzz_signature_ir: cannot open the corpus %s\n", dir);
    abort();
  }
  for (int i = 0; i < n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/case.json", dir, names[i]->d_name);
    char *text = names[i]->d_name[0] != '.' && num_cases < 64 ? read_all(path, NULL) : NULL;
    json *j = text ? json_parse(text, NULL, 0) : NULL;
    if (j) {
      fuzz_case *c = &cases[num_cases++];
      c->name = strdup(names[i]->d_name);
      c->entry = strdup(json_string(j, "entry"));
      const json *decls = json_get(j, "declare_device");
      const char *ext = decls && decls->count ? json_string(decls->items[0], "name") : NULL;
      c->external = ext ? strdup(ext) : NULL;
      snprintf(path, sizeof path, "%s/%s/input.ll", dir, names[i]->d_name);
      if (!(c->ir = read_all(path, &c->ir_size))) abort();
    }
    json_free(j);
    free(text);
    free(names[i]);
  }
  free(names);
  if (!num_cases) abort();
}

static void setup(void) {
  api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  for (int t = 0; t < 2; t++) {
    cuplug_session_options o = {.struct_size = sizeof o,
                                .flags = CUPLUG_SESSION_NO_CACHE |
                                         (t ? CUPLUG_SESSION_TRUSTED : 0)};
    if (api->session_create(&o, &sessions[t])) abort();
  }
  load_corpus();
}

/* ---- signatures from bytes, by the grammar ---- */

typedef struct gen {
  const uint8_t *p;
  size_t n;
  char out[4096];
  size_t len;
} gen;

static unsigned next(gen *g, unsigned n) {
  if (!g->n) return 0;
  g->n--;
  return *g->p++ % n;
}

static void put(gen *g, const char *s) {
  size_t n = strlen(s);
  if (g->len + n < sizeof g->out) {
    memcpy(g->out + g->len, s, n);
    g->len += n;
  }
  g->out[g->len] = '\0';
}

static const char *const scalars[] = {"bool",   "int8",    "int16",   "int32",     "int64",
                                      "uint8",  "uint16",  "uint32",  "uint64",    "float16",
                                      "float32", "float64", "complex64", "complex128"};
enum { NSCALARS = sizeof scalars / sizeof scalars[0] };

static void gen_type(gen *g, unsigned depth, bool argument) {
  char num[64];
  unsigned kind = depth > 3 ? 0 : next(g, 10);
  switch (kind) {
    case 5: /* CPointer of a scalar or a pointer */
      put(g, "CPointer(");
      if (next(g, 4) == 0)
        put(g, "CPointer(int8)");
      else
        put(g, scalars[next(g, NSCALARS)]);
      put(g, ")");
      return;
    case 6: { /* an array */
      static const char *const layouts[] = {"A", "C", "F"};
      snprintf(num, sizeof num, ", %ud, %s)", 1 + next(g, 3), layouts[next(g, 3)]);
      put(g, "array(");
      put(g, scalars[next(g, NSCALARS)]);
      put(g, num);
      return;
    }
    case 7: /* UniTuple */
      put(g, "UniTuple(");
      gen_type(g, depth + 1, false);
      snprintf(num, sizeof num, " x %u)", 1 + next(g, 3));
      put(g, num);
      return;
    case 8: { /* Tuple */
      unsigned n = next(g, 4);
      put(g, "Tuple(");
      for (unsigned i = 0; i < n; i++) {
        if (i) put(g, ", ");
        gen_type(g, depth + 1, false);
      }
      put(g, ")");
      return;
    }
    case 9:
      if (argument && next(g, 2)) {
        put(g, "class(");
        put(g, scalars[next(g, NSCALARS)]);
        put(g, ")");
      } else {
        snprintf(num, sizeof num, "Literal[int](%d)", (int)next(g, 256) - 128);
        put(g, num);
      }
      return;
    default:
      put(g, scalars[next(g, NSCALARS)]);
      return;
  }
}

/* A signature built from the bytes. */
static const char *gen_signature(gen *g) {
  g->len = 0;
  if (next(g, 3) == 0)
    put(g, "void");
  else
    gen_type(g, 0, false);
  put(g, "(");
  unsigned n = next(g, 6);
  for (unsigned i = 0; i < n; i++) {
    if (i) put(g, ", ");
    gen_type(g, 0, true);
  }
  put(g, ")");
  return g->out;
}

/* The text as a signature when it is one, else one built from its bytes. */
static const cuplug_type *signature_of(const uint8_t *data, size_t size, gen *g) {
  char *text = fuzz_string(data, size);
  const cuplug_type *t = NULL;
  cuplug_type_info info = {.struct_size = sizeof info};
  cuplug_error *e = api->type_parse(text, &t);
  if (!e && ((info.type = t), !api->type_info(&info)) && info.kind == CUPLUG_TYPE_SIGNATURE) {
    free(text);
    return t;
  }
  api->error_destroy(e);
  free(text);
  *g = (gen){.p = data, .n = size};
  if ((e = api->type_parse(gen_signature(g), &t))) {
    api->error_destroy(e); /* a limit: too deep or too long */
    return NULL;
  }
  return t;
}

/* ---- the compile ---- */

static bool allowed(cuplug_status code, unsigned mode) {
  switch (code) {
    case CUPLUG_ERR_ENTRY_MISMATCH:
    case CUPLUG_ERR_KERNEL_RETURN:
      return true;
    case CUPLUG_ERR_DECLARATION_MISMATCH:
      return (mode & DECLARE) != 0;
    default:
      return false;
  }
}

static void compile(const fuzz_case *c, unsigned mode, const cuplug_type *sig,
                    const cuplug_type *declared) {
  cuplug_session *s = sessions[(mode & TRUSTED) != 0];
  cuplug_registry *reg = NULL;
  if (declared) { /* a registry of its own for the declaration */
    cuplug_registry_options ro = {.struct_size = sizeof ro, .flags = CUPLUG_REGISTRY_NO_BUILTINS};
    cuplug_session_options o = {.struct_size = sizeof o, .flags = CUPLUG_SESSION_NO_CACHE};
    if (api->registry_create(&ro, &reg)) abort();
    o.registry = reg;
    if (api->session_create(&o, &s)) abort();
    cuplug_declare_device_args d = {.struct_size = sizeof d, .registry = reg,
                                    .name = c->external, .signature_type = declared,
                                    .abi = mode & DECLARE_C ? CUPLUG_ABI_C : CUPLUG_ABI_NUMBA};
    if (api->declare_device(&d)) abort();
  }
  cuplug_type_info info = {.struct_size = sizeof info, .type = sig};
  if (api->type_info(&info)) abort();
  cuplug_module m = {.struct_size = sizeof m, .name = c->name, .text = c->ir, .size = c->ir_size};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = c->entry,
                           .entry_abi = mode & ENTRY_C ? CUPLUG_ABI_C : CUPLUG_ABI_NUMBA,
                           .kind = mode & KERNEL ? CUPLUG_KERNEL : CUPLUG_DEVICE_FUNCTION,
                           .output = CUPLUG_OUTPUT_HOST};
  if (mode & AS_HANDLE)
    a.signature_type = sig;
  else
    a.signature = info.name;
  cuplug_error *e = api->compile(&a);
  if (e) {
    if (!api->error_message(e)[0] || a.artifact) abort();
    if (!allowed(api->error_code(e), mode)) {
      fprintf(stderr, "fuzz_signature_ir: %s with '%s' (mode %u): %s: %s\n", c->name, info.name,
              mode, api->status_name(api->error_code(e)), api->error_message(e));
      abort();
    }
    api->error_destroy(e);
  } else {
    api->artifact_destroy(a.artifact);
  }
  if (declared) {
    api->session_destroy(s);
    api->registry_destroy(reg);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!api) setup();
  const fuzz_case *c = &cases[fuzz_choose(&data, &size, (unsigned)num_cases)];
  unsigned mode = fuzz_choose(&data, &size, 64);
  const uint8_t *nl = memchr(data, '\n', size);
  size_t first = nl ? (size_t)(nl - data) : size;
  gen g;
  const cuplug_type *sig = signature_of(data, first, &g);
  const cuplug_type *declared = NULL;
  if ((mode & DECLARE) && c->external && nl)
    declared = signature_of(nl + 1, size - first - 1, &g);
  if (sig) compile(c, mode, sig, declared);
  return 0;
}
