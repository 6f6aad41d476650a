/* debug_chains.h - the chains of debug info that LLVM follows without
 * looking (debug_chains.cpp).
 *
 * LLVM walks two chains of debug metadata to their end wherever it meets
 * them, its verifier first: a location's inlinedAt locations, and a
 * lexical block's enclosing scopes up to a subprogram.  It trusts each
 * link to be of the right kind (a location's inlinedAt a !DILocation, a
 * scope a !DISubprogram, !DILexicalBlock or !DILexicalBlockFile) and each
 * chain to end; the text reader accepts any metadata there.  A chain that
 * runs in a circle hangs the verifier, a link of the wrong kind makes it
 * read one node as another.  cuplug checks every such chain the module
 * can reach before LLVM's verifier sees it. */
#ifndef CUPLUG__PLUGIN_LLVM_DEBUG_CHAINS_H
#define CUPLUG__PLUGIN_LLVM_DEBUG_CHAINS_H

#include <llvm-c/Core.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CUPLUG__CHAIN_OK,
  CUPLUG__CHAIN_INLINED_AT_CYCLE, /* a location's inlinedAt locations lead back to it */
  CUPLUG__CHAIN_SCOPE_CYCLE,      /* a lexical block's scopes lead back to it */
  CUPLUG__CHAIN_BAD_INLINED_AT,   /* a location inlined at what is not a location */
  CUPLUG__CHAIN_BAD_SCOPE,        /* a location's or a block's scope is not a local scope */
} cuplug__chain_fault;

/* What is wrong, in words for a message. */
typedef struct {
  cuplug__chain_fault fault;
  /* the node at fault ("!DILexicalBlock"), and its line (0: none) */
  const char *node;
  unsigned line;
  /* for a cycle, the nodes on it; for a bad link, what the link names
   * ("!DIFile"), NULL where it names nothing */
  unsigned cycle;
  const char *link;
  /* the function whose code or attachments reach the node (its name, not
   * NUL-terminated), or none (fn_len 0): the module's named metadata or a
   * global's */
  const char *fn;
  size_t fn_len;
} cuplug__chain_finding;

/* Checks every inlinedAt chain and every local scope chain reachable from
 * the module (instructions, debug records, attachments, named metadata).
 * False, with *f filled, at the first that is broken. */
bool cuplug__debug_chains_check(LLVMModuleRef m, cuplug__chain_finding *f);

#ifdef __cplusplus
}
#endif

#endif
