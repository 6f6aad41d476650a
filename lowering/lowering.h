/* lowering.h - the NVVM IR transformations of the pipeline.
 *
 * Each is a pass over one module's rewrite (irrewrite.h): it reads the module
 * as parsed and records edits and new items.  The pipeline parses each
 * module once, runs the passes that concern it (wrap, then legalise) and
 * writes the result once. */
#ifndef CUPLUG__LOWERING_LOWERING_H
#define CUPLUG__LOWERING_LOWERING_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ir.h"
#include "cuplug/cuplug.h"
#include "lowering/irrewrite.h"

#define CUPLUG__NVPTX_TRIPLE "nvptx64-nvidia-cuda"
#define CUPLUG__NVPTX_DATALAYOUT                                                 \
  "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-"     \
  "f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"

/* ---- function_edits.c: a function's header and attributes, edited in place ---- */

/* Edits fn's attributes: adds the word `add` (may be NULL) and removes the
 * words in `remove`, inline or in an attribute group (a group the function
 * shares is copied, not changed). */
void cuplug__fn_attrs_edit(ir_rewrite *rw, const ir_function *fn, const char *add,
                           ir_wordset *remove);

/* Deletes fn's first parameter (a Numba-ABI function's return slot). */
void cuplug__drop_first_param(ir_rewrite *rw, const ir_function *fn);

/* In `ret <type> <value>[, !dbg !N ...]`, the offset where the attachments
 * start (their comma), or the statement's end when it has none. */
size_t cuplug__ret_attachments(const char *text, const ir_stmt *s);

/* Finds and parses the definition of `symbol`; NULL result when absent. */
cuplug_error *cuplug__find_define(const ir_module *m, const char *symbol,
                                  ir_function *fn, bool *found);

/* ---- cabi_wrap.c: numba-cuda's cabi_wrap_function ---- */

typedef struct cuplug__cabi_options {
  const cuplug_type *sig;
  const char *entry;      /* the Numba-ABI function */
  const char *name;       /* the C-ABI function to define */
  bool forceinline;       /* alwaysinline on both */
  bool has_entry;         /* this module defines the entry: the wrapper goes here */
  bool sole_caller;       /* no module calls the entry: it may become the C-ABI
                             function itself, rather than be wrapped */
} cuplug__cabi_options;

/* Gives every definition with external linkage linkonce_odr linkage, as
 * numba-cuda does to the libraries it links, and, in the module that
 * defines the entry, appends `R name(args)`, which calls the Numba-ABI
 * function and returns the value of its return slot.  When `name` is the
 * entry's own name, the entry moves aside to "<entry>.numba".  With
 * sole_caller, the entry itself becomes `R name(args)` where it can (see
 * cabi_wrap.c). */
cuplug_error *cuplug__cabi_wrap(ir_rewrite *rw, const cuplug__cabi_options *o);

/* Gives every definition with external linkage linkonce_odr linkage (for
 * the IR of a registered implementation). */
cuplug_error *cuplug__linkonce_definitions(ir_rewrite *rw);

/* Marks `symbol` alwaysinline (forceinline with the Numba ABI). */
cuplug_error *cuplug__force_inline(ir_rewrite *rw, const char *symbol);

/* ---- kernel_fixup.c: numba-cuda's kernel_fixup ---- */

typedef struct cuplug__kernel_options {
  bool debug;                     /* add the exception store */
  const uint32_t *launch_bounds;  /* maxntidx, minctasm, cluster_max_blocks */
  size_t num_launch_bounds;
  bool c_entry;                   /* already `void k(args)`: only mark it */
} cuplug__kernel_options;

cuplug_error *cuplug__kernel_fixup(ir_rewrite *rw, const char *entry,
                                   const cuplug__kernel_options *o);

/* ---- exc_store.c: numba-cuda's add_exception_store_helper ---- */

/* Appends the globals <k>__errcode__, <k>__tid{x,y,z}__, <k>__ctaid{x,y,z}__
 * and the helper void <k>__exc_helper__(i32) to the rewrite. */
void cuplug__exc_store_add(ir_rewrite *rw, const char *kernel);

/* ---- annotate.c: nvvm.annotations and @llvm.used ---- */

/* Marks `kernel` (whose pointer type is `fnptr_type`, "void (i32)*") as a
 * kernel with its launch bounds, and adds it to @llvm.used. */
cuplug_error *cuplug__annotate_kernel(ir_rewrite *rw, const char *kernel,
                                      const char *fnptr_type,
                                      const uint32_t *launch_bounds,
                                      size_t num_launch_bounds);

/* ---- legalize.c: make a module acceptable to libNVVM ---- */

/* *uses_libdevice is set when the module refers to a libdevice function
 * (__nv_*): only then does the compile add libdevice, which costs libNVVM
 * more than a small kernel does. */
cuplug_error *cuplug__legalize(ir_rewrite *rw, cuplug__ir_version v, bool *uses_libdevice);
/* Makes modern IR (LLVM 22's text) acceptable to libNVVM for cc 10.0 and
 * up, whose reader is LLVM 20's: the syntax LLVM 21 and 22 added goes
 * (`captures(none)` becomes `nocapture`), the triple, the datalayout and
 * !nvvmir.version as cuplug__legalize sets them. */
cuplug_error *cuplug__legalize_nvvm20(ir_rewrite *rw, cuplug__ir_version v);
/* The watch set to parse a module with (cuplug__ir_rewrite_begin) that legalisation
 * will see: it then looks only at the tokens the lexer noted, not at every
 * token.  Any other module is legalised the same, token by token. */
ir_wordset *cuplug__legalize_watch(void);

/* Writes attribute tokens as legalisation leaves them (and without the
 * words in `remove`, which may be NULL): for a copy of host attributes that
 * another pass appends, which legalisation does not see. */
void cuplug__put_legal_attrs(cuplug__buf *b, const char *text, const ir_tok *toks, size_t n,
                             ir_wordset *remove);

/* ---- numba_atomics.c: numba's atomic helpers ---- */

/* Appends the definition of a numba atomic helper (___numba_atomic_double_add,
 * ...), which numba-cuda's IR declares and its backend defines, and returns
 * true; returns false when `name` is not one. */
bool cuplug__numba_atomic_definition(const char *name, cuplug__buf *out);

#endif
