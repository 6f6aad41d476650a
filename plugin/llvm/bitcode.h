/* bitcode.h - what a bitcode file says of itself before LLVM reads it. */
#ifndef CUPLUG__PLUGIN_LLVM_BITCODE_H
#define CUPLUG__PLUGIN_LLVM_BITCODE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cuplug__bitcode_info {
  /* The bytes end inside a block: `needed` is where the block ends (0:
   * inside its header). */
  bool truncated;
  size_t needed;
  /* Top-level blocks seen whole: any, a MODULE, a STRTAB (which LLVM 5
   * and later write after the module). */
  size_t num_blocks;
  bool has_module, has_strtab;
  /* The IDENTIFICATION block's producer ("LLVM22.1.8"), "" without one,
   * and its LLVM version, -1 when it names none. */
  char producer[64];
  int major, minor, patch;
  /* The first inline asm whose constraint string holds a code LLVM reads
   * past the string's end on (asm_guard.h): that code, and the string (cut
   * short). */
  bool bad_asm;
  char asm_code;
  char asm_constraints[84];
  /* The module's symbol table points LLVM at a function body (or itself
   * lies) where none of the module's blocks begins: bytes the walk stepped
   * over, which LLVM would read unchecked. */
  bool hidden_body;
  /* Every block was read to its end as LLVM reads bitcode (LLVM's own
   * files always are; the plugin refuses bitcode that is not). */
  bool walked;
} cuplug__bitcode_info;

/* Do the bytes begin as bitcode does ('BC' 0xC0DE, or the 0x0B17C0DE
 * wrapper)? */
bool cuplug__is_bitcode(const void *bytes, size_t size);

/* Reads the top-level blocks of bitcode (raw or wrapped): their extents,
 * the producer of the first IDENTIFICATION block, and the constraint
 * strings of the inline asm of the module's CONSTANTS blocks.  Bytes that are not
 * bitcode as far as this looks give an info with nothing found: LLVM's
 * reader says what is wrong with them. */
void cuplug__bitcode_scan(const void *bytes, size_t size, cuplug__bitcode_info *out);

#endif
