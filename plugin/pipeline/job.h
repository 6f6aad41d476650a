/* job.h - one compile as it passes through its target's stages.
 *
 * A target is a list of stages read top to bottom (nvvm_target.c: libNVVM's
 * PTX, LTO-IR and cubins; cpu_target.c: IR for the CPU JIT).  Stages every
 * target shares live in job.c; each reads and updates the job, and the
 * first error ends the compile (compile.c runs the list). */
#ifndef CUPLUG__PLUGIN_PIPELINE_JOB_H
#define CUPLUG__PLUGIN_PIPELINE_JOB_H

#include <stdbool.h>

#include "base/buf.h"
#include "base/ir.h"
#include "base/worker.h"
#include "cuplug/cuplug.h"
#include "lowering/irrewrite.h"
#include "plugin/cache/cache.h"
#include "plugin/compilers/nvptx.h"
#include "plugin/compilers/nvvm.h"
#include "plugin/registry/registry.h"
#include "plugin/session/session.h"

typedef struct cuplug__job {
  cuplug_compile_args *a;
  bool all; /* compile_all: list the code, do not link it */
  cuplug_session *s;
  const cuplug_type *sig;
  cuplug_abi entry_abi; /* resolved: NUMBA or C */
  cuplug_abi abi;       /* resolved: NUMBA or C */
  const char *symbol;   /* the exported name */
  int opt;
  bool lto; /* cubin output: link LTO-IR (not debug, not no_lto) */
  cuplug__cc cc;
  cuplug__ir_version irv;
  bool uses_libdevice;
  cuplug_artifact *art;

  /* the modules: the caller's, then the implementations' the IR calls */
  cuplug__text *mods; /* the current text of each */
  size_t num_mods, cap_mods;
  char **copies;        /* NUL-terminated copies of the caller's modules */
  char **owned;         /* texts the passes wrote, one slot per module (cap_mods) */
  char **names;         /* names the job made up for unnamed modules */
  cuplug__text *inputs; /* the caller's modules, as given (the copies) */
  ir_rewrite *parsed;   /* the caller's modules, parsed for `lower` */
  size_t num_parsed;
  size_t num_lowered;   /* how many of the parsed ones `lower` took over (it finishes them) */
  size_t entry_module;
  cuplug__impl **used; /* registered implementations the IR calls */
  size_t num_used;
  cuplug__buf builtins; /* the IR of the built-ins called, merged */
  char **builtin_decls; /* the functions `builtins` declares */
  size_t num_builtin_decls;

  /* cuplug's check of the types: it read the entry's, and those of every
   * declared function (else LLVM checks them) */
  bool entry_typed;
  bool declarations_typed;

  /* validation, on a thread of its own, or on this one while a helper
   * process runs the toolkit job (validate_later: set by a target whose
   * job goes to a helper; that thread would only wait meanwhile) */
  bool validating;     /* it was started, or is due */
  bool validate_later; /* run it when the compile first waits for it */
  bool validation_due; /* put off, and not run yet */
  cuplug__worker *validator;
  size_t valid_entry_module;
  cuplug_error *validation;

  /* targets that read the IR through LLVM (modern_stages.c): the modules
   * as one LLVM module; and whether the IR may give the signature */
  struct cuplug__modern *modern;
  bool signature_from_ir;

  /* libNVVM's job: a helper reserved early, the job started by run_nvvm */
  cuplug__nvvm_job nvvm;
  /* the NVPTX backend's, likewise (llvm_target.c) */
  cuplug__nvptx_job nvptx;
  /* the stage running now ran a toolkit job: when (timings.h) */
  const cuplug__tool_times *tool_ran;

  /* the result cache */
  bool to_cache; /* the result is to be kept under key */
  cuplug__buf key_bytes;
  cuplug__cache_key key;
  cuplug_error *cache_warning; /* the cache's news for the session, for the result */
  bool from_cache;             /* the result was found: the stages end */
} cuplug__job;

typedef cuplug_error *(*cuplug__stage)(cuplug__job *j);

/* A stage and its name, which a result's timings give (artifact_stage):
 * a target's own stage by its function's name, a shared one by its name
 * without the functions' "cuplug__stage_". */
typedef struct cuplug__step {
  const char *name;
  cuplug__stage run;
} cuplug__step;
#define CUPLUG__STEP(fn) {#fn, fn}
#define CUPLUG__STAGE(name) {#name, cuplug__stage_##name}
/* How every target that reads modern IR (text or bitcode through LLVM)
 * begins: the options, the signature and the modules read, then the
 * modules read by LLVM and their entry found. */
#define CUPLUG__MODERN_FRONT                                                  \
  CUPLUG__STAGE(check_options), CUPLUG__STAGE(read_signature),              \
      CUPLUG__STAGE(read_modules), CUPLUG__STAGE(copy_modules),             \
      CUPLUG__STAGE(read_modern), CUPLUG__STAGE(modern_entry)
/* The most stages a target has (compile.c times each one). */
#define CUPLUG__MAX_STAGES 32


/* A target: its stages, in order, and what gives back the resources its
 * stages took when a job ends (NULL: none). */
typedef struct cuplug__target {
  const cuplug__step *stages;
  size_t num_stages;
  void (*release)(cuplug__job *j);
} cuplug__target;

/* ---- the stages every target shares (job.c), in the order they run ---- */

/* numba-cuda's rules for the options, and warnings; the artifact is made */
cuplug_error *cuplug__stage_check_options(cuplug__job *j);
/* the signature string or handle */
cuplug_error *cuplug__stage_read_signature(cuplug__job *j);
/* the host's IR modules, none empty */
cuplug_error *cuplug__stage_read_modules(cuplug__job *j);
/* the result cache: a result found ends the compile */
cuplug_error *cuplug__stage_look_up(cuplug__job *j);
/* within cuplug's size limit, copied (NUL-terminated) */
cuplug_error *cuplug__stage_copy_modules(cuplug__job *j);
/* each lexed once (within cuplug's nesting limit) and split into items */
cuplug_error *cuplug__stage_parse_modules(cuplug__job *j);
/* the types of the entry's definition and of the declared functions, in
 * the text, against their signatures (every session); then LLVM parses and
 * verifies the modules on a thread of its own, finds the entry, and checks
 * the types cuplug could not read (not in a trusted session, unless types
 * were left unread) */
cuplug_error *cuplug__stage_start_validation(cuplug__job *j);
/* the module that defines the entry */
cuplug_error *cuplug__stage_find_entry(cuplug__job *j);
/* for each module, on one parse: wrap (C-ABI wrapper, or kernel fix-up and
 * exception store), then legalise for libNVVM; and the NVVM IR of each
 * registered implementation the modules call, as one more module */
cuplug_error *cuplug__stage_lower(cuplug__job *j);
/* the cc: explicit, the current device's, or numba-cuda's default rule */
cuplug_error *cuplug__stage_choose_cc(cuplug__job *j);
/* GPU targets, cubin output: the own code linked by nvJitLink with the
 * code of the declared functions the IR calls and the caller's; for
 * compile_all, that code listed as the artifact's parts */
cuplug_error *cuplug__stage_link_code(cuplug__job *j);
/* the lowered modules into the artifact (CUPLUG_COMPILE_KEEP_IR) */
cuplug_error *cuplug__stage_keep_ir(cuplug__job *j);
/* the result into the cache, when it was looked up */
cuplug_error *cuplug__stage_keep(cuplug__job *j);

/* Notes a registered function the IR declares (`where`: the module, for
 * messages): it joins `used`, and its NVVM IR, if it has some, joins the
 * modules (a built-in's, the merged `builtins`). */
cuplug_error *cuplug__job_note_symbol(cuplug__job *j, const char *name, const char *where);
/* ---- the stages of targets that read the IR through LLVM (modern_stages.c) ---- */

/* the caller's modules, any dialect, parsed and linked into one module */
cuplug_error *cuplug__stage_read_modern(cuplug__job *j);
/* the entry, checked against the signature, or the signature read from it */
cuplug_error *cuplug__stage_modern_entry(cuplug__job *j);
/* the registered functions the IR calls (and theirs), linked in */
cuplug_error *cuplug__stage_gather_modern(cuplug__job *j);
/* wrapped as the kind and ABI ask, through LLVM-C */
cuplug_error *cuplug__stage_lower_modern(cuplug__job *j);
/* Appends the lowered module's text, under `name`, to the artifact's IR. */
cuplug_error *cuplug__job_keep_modern(cuplug__job *j, const char *name);

/* Waits for the validator (or runs it here, when it was put off); returns
 * its error, if it found one. */
cuplug_error *cuplug__job_finish_validation(cuplug__job *j);
/* What every target's artifact says of its entry: the symbol, the kind,
 * debug and line info, the signature, and the kernel it holds. */
cuplug_error *cuplug__job_describe_entry(cuplug__job *j);
/* Moves the lowered modules into the artifact's IR. */
cuplug_error *cuplug__job_keep_modules(cuplug__job *j);
/* Frees what the job holds but its artifact (and the validator's verdict,
 * which must have been taken). */
void cuplug__job_release(cuplug__job *j);

#endif
