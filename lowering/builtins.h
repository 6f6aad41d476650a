/* builtins.h - cuplug's CUDA library: numba-cuda's built-ins as typing
 * templates and NVVM IR.
 *
 * Each built-in is a key with either concrete signatures or a typing
 * function (numba's generic templates), and a function that writes the
 * NVVM IR of one signature: a module that defines the symbol under the C
 * ABI, linkonce_odr and alwaysinline, so that a call costs what its
 * instructions cost.  The registry (plugin/registry/registry.c) registers
 * them all in the built-in registry, which every registry sits on. */
#ifndef CUPLUG__LOWERING_BUILTINS_H
#define CUPLUG__LOWERING_BUILTINS_H

#include <stdbool.h>

#include "base/buf.h"
#include "cuplug/cuplug.h"

struct cuplug__builtin {
  const char *key;          /* numba-cuda's name: "cuda.atomic.add", "math.sin" */
  const char *const *signatures; /* concrete: NULL-terminated; NULL: generic */
  const char *description;  /* generic: what it takes, for registry_list */
  /* Generic typing: *sig the signature the call converts to, or NULL for
   * "no match"; an error only when something is broken. */
  cuplug_error *(*type)(const struct cuplug__builtin *b, const cuplug_type *const *args,
                        size_t n, const cuplug_type **sig);
  /* Writes the module that defines `symbol` for `sig`. */
  cuplug_error *(*lower)(const struct cuplug__builtin *b, const cuplug_type *sig,
                         const char *symbol, cuplug__buf *out);
  const char *name; /* for lower: an intrinsic, a libdevice stem, an instruction */
  int op;           /* for lower: which member of a family */
  bool unique;      /* each resolve makes a new symbol (a new shared array) */
};
typedef struct cuplug__builtin cuplug__builtin;

/* Every built-in, in the order they register. */
const cuplug__builtin *const *cuplug__builtins(size_t *count);
/* What a built-in offers beyond numba-cuda 0.30's typing, for
 * registry_list: "" when nothing. */
const char *cuplug__builtin_extension(const cuplug__builtin *b);

/* The tables of each family (builtins_*.c). */
extern const cuplug__builtin cuplug__builtins_thread[], cuplug__builtins_atomic[],
    cuplug__builtins_math[], cuplug__builtins_array[];
extern const size_t cuplug__num_builtins_thread, cuplug__num_builtins_atomic,
    cuplug__num_builtins_math, cuplug__num_builtins_array;

/* ---- helpers for writing a built-in's IR ---- */

/* "define linkonce_odr R @symbol(P0 %p0, P1 %p1, ...) alwaysinline {\n
 * entry:\n": parameters are numbered in their flattened order. */
void cuplug__bi_begin(cuplug__buf *b, const cuplug_type *sig, const char *symbol);
/* The number of the first flattened parameter of argument `arg`. */
size_t cuplug__bi_param(const cuplug_type *sig, size_t arg);
/* "%dst = sext/zext/trunc/bitcast <from> %src to i<bits>" for an integer,
 * bool or literal value. */
void cuplug__bi_int(cuplug__buf *b, const char *dst, const char *src, const cuplug_type *from,
                    unsigned bits);
/* A function that calls `callee` with its own parameters (and then the
 * `trailing` operand, "i1 false", when not NULL) and returns its result;
 * and the callee's declaration. */
void cuplug__bi_forward(cuplug__buf *b, const cuplug_type *sig, const char *symbol,
                        const char *callee, const char *trailing);
/* The IR type of a value of t in memory ("float", "i64", "[2 x i64]"). */
const char *cuplug__bi_ir(const cuplug_type *t);
/* Bits of an integer or float type. */
unsigned cuplug__bi_bits(const cuplug_type *t);

/* The NVVM IR of a constant array (cuplug_const_array): `symbol` returns a
 * C-layout array of `array`'s type over a copy of the bytes in constant
 * memory. */
void cuplug__const_array_ir(cuplug__buf *b, const char *symbol, const cuplug_type *array,
                            const int64_t *shape, const void *data, size_t size);

/* Typing helpers shared by the families. */
/* *sig = restype(args...): n argument types follow. */
cuplug_error *cuplug__bi_sig(const cuplug_type **sig, const cuplug_type *restype, size_t n, ...);

#endif
