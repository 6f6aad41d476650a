/* results.h - the result cache as compile and link use it: the keys they
 * file their results under (results.c says what a key covers), and
 * fetching and keeping a result. */
#ifndef CUPLUG__PLUGIN_PIPELINE_RESULTS_H
#define CUPLUG__PLUGIN_PIPELINE_RESULTS_H

#include <stdbool.h>

#include "base/buf.h"
#include "base/code.h"
#include "base/ir.h"
#include "cuplug/cuplug.h"
#include "plugin/cache/cache.h"
#include "plugin/session/session.h"

/* A compile's key, appended to `key`: its arguments, the parsed signature
 * and the caller's modules, with the registered functions they declare
 * (those of text found here; `declared` adds those LLVM listed).  Errors: reading linked code, or a callback
 * lowering that fails. */
cuplug_error *cuplug__compile_key(cuplug_session *s, const cuplug_compile_args *a, bool all,
                                  const cuplug_type *sig, const cuplug__text *mods,
                                  const char *const *declared, size_t num_declared,
                                  cuplug__buf *key);
/* A link's key, appended to `key`. */
cuplug_error *cuplug__link_key(const cuplug_link_args *a, cuplug__buf *key);
/* What the headers a .cu includes hold (those NVRTC would find beside it or
 * in include_paths, not the toolkit's), appended to `key`: what, beside
 * its text and NVRTC's options, compiling it depends on. */
cuplug_error *cuplug__headers_key(const cuplug__code *cu, const char *const *include_paths,
                                  size_t num_include_paths, cuplug__buf *key);

/* The result filed under key, or NULL.  *note receives a warning the cache
 * has for the session (once), which the caller hands to keep_result. */
cuplug_artifact *cuplug__fetch_result(cuplug_session *s, cuplug__cache_key *key,
                                      cuplug_error **note);
/* Files a built result under key and marks it CUPLUG_CACHE_MISS, then adds
 * the cache's warnings (`note`, taken) to it: they are the session's news,
 * not part of the result. */
void cuplug__keep_result(cuplug_session *s, cuplug__cache_key *key, cuplug_artifact *art,
                         cuplug_error *note);

#endif
