/* modern.h - what cuplug does to IR, done on an LLVM 22 module: for modern
 * IR (opaque-pointer text, bitcode of LLVM 7 to 22), which cuplug cannot
 * edit as text the way it edits numba-cuda's typed text (lowering/).
 *
 * The modules of a compile are read into one LLVMContext and linked into
 * one module; the registry's implementations join it; lower() makes of it
 * what the text pipeline makes of numba-cuda's IR (the C-ABI wrapper, the
 * kernel fix-up, the debug exception store, kernels marked, launch bounds,
 * forceinline), and the result leaves as bitcode or text.  One
 * cuplug__modern is used by one thread at a time; several may be used at
 * once. */
#ifndef CUPLUG__PLUGIN_LLVM_MODERN_H
#define CUPLUG__PLUGIN_LLVM_MODERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ir.h"
#include "cuplug/cuplug.h"

typedef struct cuplug__modern cuplug__modern; /* one LLVMContext and the linked module */

/* Reads each module (text of either dialect or bitcode; text[size] need not
 * be NUL) into one context, verifies each and links them, the first being
 * the one the others join.  Errors: CUPLUG_ERR_IR_PARSE naming the module
 * and line:col (truncated bitcode too, named so); CUPLUG_ERR_IR_VERSION for
 * bitcode from an LLVM newer than 22, naming both versions;
 * CUPLUG_ERR_IR_INVALID for the verifier's findings and for modules that
 * do not link (a function defined twice); CUPLUG_ERR_IR_UNSUPPORTED for a
 * triple other than nvptx64-nvidia-cuda or nvptx-nvidia-cuda (none is
 * fine).  `for_cpu` (the CPU target) relaxes nothing yet.  On success *out
 * is the caller's, for cuplug__modern_free. */
cuplug_error *cuplug__modern_read(const cuplug__text *mods, size_t num, bool for_cpu,
                                  cuplug__modern **out);
void cuplug__modern_free(cuplug__modern *m); /* NULL: nothing */

/* What bitcode says of itself, before any LLVM reader sees it: from an LLVM
 * newer than cuplug's (CUPLUG_ERR_IR_VERSION, naming both), or cut short
 * (CUPLUG_ERR_IR_PARSE, naming where).  cuplug__modern_read checks it too;
 * the pipeline asks first, since it has bitcode read in a helper process
 * (LLVM's bitcode reader crashes on some malformed input). */
cuplug_error *cuplug__modern_check_bitcode(const cuplug__text *t);

/* Names of the functions the module declares (not defines), intrinsics
 * (llvm.*) aside; owned by m, valid until the next call on m. */
cuplug_error *cuplug__modern_declared(cuplug__modern *m, const char *const **names,
                                      size_t *num);

/* Links one more module into m: a registered implementation's IR (NVVM
 * typed text, which LLVM 22 reads, or modern text).  Its definitions with
 * external linkage become linkonce_odr, as the text pipeline makes them,
 * so that artifacts which both inline one still link together; an
 * internal definition of a function m declares becomes linkonce_odr too,
 * so that it defines the declaration (numba's atomic helpers, which
 * lowering/numba_atomics.c writes `internal`). */
cuplug_error *cuplug__modern_link(cuplug__modern *m, const cuplug__text *mod);

/* The entry: CUPLUG_ERR_ENTRY_NOT_FOUND when no module defines it.  A
 * ptx_kernel entry is a native kernel (entry ABI c, whatever entry_abi
 * says: it returns void).  With sig NULL, such an entry gives its signature:
 * iN -> intN (i1 -> bool), half/float/double -> float16/32/64, any ptr ->
 * CPointer(uint8), another type CUPLUG_ERR_IR_UNSUPPORTED naming the
 * parameter; an entry that is no ptx_kernel is CUPLUG_ERR_INVALID_ARGUMENT
 * (its signature must be given).  *sig_out
 * (interned: it lives as long as the plugin) is then that signature.  With
 * sig given, the entry's type is checked against it under entry_abi as the
 * validator checks typed IR (pointers are opaque; a native kernel's match
 * pointers of any address space, as Triton's global ones):
 * CUPLUG_ERR_ENTRY_MISMATCH, and *sig_out is sig.  *is_ptx_kernel says
 * whether the IR marks the entry a kernel already (ptx_kernel calling
 * convention).  Either out may be NULL. */
cuplug_error *cuplug__modern_entry(cuplug__modern *m, const char *entry, cuplug_abi entry_abi,
                                   const cuplug_type *sig, const cuplug_type **sig_out,
                                   bool *is_ptx_kernel);

typedef struct cuplug__modern_lower_options {
  cuplug_function_kind kind;
  const cuplug_type *sig;      /* the entry's (given, or read by cuplug__modern_entry) */
  cuplug_abi entry_abi, abi;   /* resolved: NUMBA or C, never DEFAULT */
  const char *entry;
  const char *symbol;          /* the C-ABI wrapper's name (abi_name, else the entry) */
  bool debug, lineinfo, forceinline;
  const uint32_t *launch_bounds; /* max threads per block, min blocks per SM,
                                    max blocks per cluster */
  size_t num_launch_bounds;
  uint32_t max_registers;      /* 0: no limit */
} cuplug__modern_lower_options;

/* numba-cuda's wrap step on the module:
 *   - a device function exported under the C ABI from a Numba-ABI entry
 *     gets its C-ABI wrapper `symbol` (as lowering/cabi_wrap.c: a bool
 *     returned as i8, a complex as {float, float}), every other definition
 *     with external linkage becomes linkonce_odr, numba's environment
 *     global internal, and with forceinline both are alwaysinline;
 *   - another device function with forceinline becomes alwaysinline;
 *   - a kernel of the Numba ABI is fixed up (the return slot and the
 *     stores to it gone, `ret <status>` -> `ret void`, noinline gone, its
 *     debug-info subroutine type without the slot) and, with debug, gets
 *     the exception store (globals <k>__errcode__, __tid{x,y,z}__,
 *     __ctaid{x,y,z}__, and <k>__exc_helper__ called with each status, as
 *     lowering/exc_store.c);
 *   - a kernel of the C ABI that the IR does not mark loses noinline;
 *   - every kernel then has the ptx_kernel calling convention (its calls
 *     too) and a place in @llvm.used, except a host's native kernel (entry
 *     ABI c, ptx_kernel already: Triton's, clang's), which stays as it is;
 *   - every kernel gets its launch bounds as the attributes
 *     "nvvm.maxntid", "nvvm.minctasm", "nvvm.maxclusterrank" and
 *     max_registers as "nvvm.maxnreg".
 * Errors: CUPLUG_ERR_ENTRY_NOT_FOUND, CUPLUG_ERR_ENTRY_MISMATCH (a
 * wrapped entry of another type than sig), CUPLUG_ERR_IR_UNSUPPORTED (IR
 * a step cannot handle, named: a return slot that is read, a C-ABI kernel
 * that returns a value). */
cuplug_error *cuplug__modern_lower(cuplug__modern *m, const cuplug__modern_lower_options *o);

/* The module's pointers are all in address spaces the GPU backend has:
 * LLVM's NVPTX backend (libnvvm false) takes generic 0, global 1, shared 3,
 * constant 4, local 5, tensor memory 6, cluster shared 7 and parameter 101,
 * and takes any other as the generic one, silently; libNVVM the first
 * five.  Else CUPLUG_ERR_IR_UNSUPPORTED naming the space and its user. */
cuplug_error *cuplug__modern_check_spaces(cuplug__modern *m, bool libnvvm);

/* Does the module declare a libdevice function (__nv_*)? */
bool cuplug__modern_uses_libdevice(cuplug__modern *m);

/* The module as bitcode (*data malloc'd, the caller's), or as text
 * (malloc'd, NUL-terminated; *size without the NUL). */
/* For libNVVM's LLVM 20 reader (cc 10.0 and up): the NVVM intrinsics LLVM
 * 21 and 22 renamed on reading go back to the names libNVVM knows
 * (barrier.cta.* to barrier0 and barrier.sync, fabs and ex2.approx to
 * their older spellings), calls rewritten where the arguments changed. */
cuplug_error *cuplug__modern_nvvm20_intrinsics(cuplug__modern *m);

cuplug_error *cuplug__modern_bitcode(cuplug__modern *m, char **data, size_t *size);
cuplug_error *cuplug__modern_text(cuplug__modern *m, char **text, size_t *size);

#endif
