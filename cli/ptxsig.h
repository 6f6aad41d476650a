/* ptxsig.h - the return and parameter layout of a PTX function or kernel. */
#ifndef CUPLUG_PTXSIG_H
#define CUPLUG_PTXSIG_H

#include <stdbool.h>
#include <stddef.h>

#define PTXSIG_MAX_PARAMS 256

typedef struct ptxsig {
  bool found;
  bool entry;               /* .entry (kernel) or .func */
  char name[512];
  int num_returns;          /* 0 or 1 */
  char ret[64];             /* ".b64", ".align 4 .b8[8]" */
  int num_params;
  char params[PTXSIG_MAX_PARAMS][64];
} ptxsig;

/* Reads the visible function `name`, or with name NULL the first visible
 * .entry, from PTX text. */
bool ptxsig_read(const char *ptx, const char *name, ptxsig *out);
/* "(.b64) name(.b32, .b32)" */
void ptxsig_format(const ptxsig *s, char *out, size_t cap);
/* Same layout: return and parameter types equal (names may differ). */
bool ptxsig_same(const ptxsig *a, const ptxsig *b);

#endif
