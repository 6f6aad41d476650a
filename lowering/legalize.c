/* legalize.c - make a module acceptable to libNVVM.
 *
 * libNVVM reads LLVM 7 IR.  Host JITs built on newer LLVMs (llvmlite
 * included) emit a few things LLVM 7 does not know; numba-cuda's backend
 * strips `immarg` and `willreturn`, and defines its atomic helpers.  cuplug
 * does those, and also:
 *   - removes the other attributes LLVM 7 lacks (nofree, noundef, memory(...), ...);
 *   - writes `fneg` as `fsub -0.0` and `poison` as `undef`;
 *   - gives a module flag of LLVM 15's `Min` behaviour (8: rustc's and
 *     clang's "PIC Level") LLVM 7's `Warning` (2), which its verifier
 *     takes: libNVVM stopped at "invalid behavior operand in module flag";
 *   - sets !nvvmir.version to what libNVVM reports, and adds the NVPTX
 *     triple and datalayout when a module has none (libNVVM reads a module
 *     without the version as IR 1.0 and rejects it);
 *   - rejects opaque pointers (`ptr`), with the line, rather than letting
 *     libNVVM fail on them.
 * For cc 10.0 and up libNVVM also reads modern IR, with LLVM 20's reader:
 * cuplug__legalize_nvvm20 makes LLVM 22's text of a module fit it. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "lowering/lowering.h"

/* The words legalisation acts on, in one set so that a word token costs
 * one lookup.  First the attributes newer than LLVM 7, then those that
 * take an argument list (removed with it), then the other rewrites. */
static ir_wordset legal_words = CUPLUG__IR_WORDSET(
    "nofree", "nosync", "willreturn", "mustprogress", "nocallback", "noundef",
    "immarg", "noprofile", "skipprofile", "hot", "speculative_load_hardening",
    "nosanitize_coverage", "nosanitize_bounds", "disable_sanitizer_instrumentation",
    "allocptr", "allocalign", "dead_on_unwind", "writable", "fn_ret_thunk_extern",
    "presplitcoroutine", "coro_only_destroy_when_complete", "coro_elide_safe",
    "null_pointer_is_valid", "sanitize_memtag", "sanitize_numerical_stability",
    "optdebug", "hybrid_patchable",
    /* FIRST_CALL */
    "memory", "allockind", "range", "nofpclass", "initializes", "captures", "vscale_range",
    /* FIRST_OTHER */
    "uwtable", "poison", "fneg", "ptr");
enum { FIRST_CALL = 27, FIRST_OTHER = 34 };

static ir_wordset fast_math_flags = CUPLUG__IR_WORDSET(
    "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc", "fast");

/* The index after the parenthesised group starting at toks[i], or i. */
static size_t after_group(const char *text, const ir_tok *toks, size_t n, size_t i) {
  if (i >= n || !cuplug__ir_tok_punct(text, toks[i], '(')) return i;
  int depth = 0;
  for (; i < n; i++) {
    if (cuplug__ir_tok_punct(text, toks[i], '(')) depth++;
    if (cuplug__ir_tok_punct(text, toks[i], ')') && --depth == 0) return i + 1;
  }
  return n;
}


/* @__nv_x or @"__nv_x": a libdevice function. */
static bool is_libdevice_ref(const char *text, ir_tok t) {
  const char *s = text + t.start + 1;
  size_t n = t.len - 1;
  if (n && *s == '"') {
    s++;
    n--;
  }
  return n >= 5 && memcmp(s, "__nv_", 5) == 0;
}

ir_wordset *cuplug__legalize_watch(void) { return &legal_words; }

/* The index in the item, at or after `from`, of the next token worth a
 * look, or the item's length: with the module's watch list (which holds
 * the legal words and the globals), the next on it; else the next token.
 * *k is the place in the watch list, which only moves forwards. */
static size_t next_token(const ir_module *m, const ir_item *it, size_t *k, size_t from) {
  size_t n = it->last - it->first;
  if (m->watch != &legal_words || from >= n) return from < n ? from : n;
  while (*k < m->num_watched && m->watched[*k] < it->first + from) (*k)++;
  return *k < m->num_watched && m->watched[*k] < it->last ? m->watched[*k] - it->first : n;
}

static cuplug_error *legalize_tokens(ir_rewrite *rw, const ir_item *it, size_t *k,
                                     bool *uses_libdevice) {
  const char *text = rw->m.text;
  const ir_tok *toks = rw->m.toks + it->first;
  size_t n = it->last - it->first;
  for (size_t i = next_token(&rw->m, it, k, 0); i < n; i = next_token(&rw->m, it, k, i + 1)) {
    ir_tok t = toks[i];
    if (t.kind == IR_GLOBAL && is_libdevice_ref(text, t)) *uses_libdevice = true;
    if (t.kind != IR_WORD) continue;
    int w = cuplug__ir_word_index(&legal_words, text, t);
    if (w < 0) continue;
    bool strip = w < FIRST_CALL, call = w >= FIRST_CALL && w < FIRST_OTHER;
    bool before_colon = i + 1 < n && cuplug__ir_tok_punct(text, toks[i + 1], ':');
    if (before_colon) continue; /* a label, or a metadata field name */
    if (strip) {
      cuplug__ir_edit_delete(&rw->edits, t.start, t.start + t.len);
    } else if (call && i + 1 < n && cuplug__ir_tok_punct(text, toks[i + 1], '(')) {
      size_t j = after_group(text, toks, n, i + 1);
      cuplug__ir_edit_delete(&rw->edits, t.start, toks[j - 1].start + toks[j - 1].len);
      i = j - 1;
    } else if (cuplug__ir_tok_is(text, t, "uwtable") && i + 1 < n &&
               cuplug__ir_tok_punct(text, toks[i + 1], '(')) {
      size_t j = after_group(text, toks, n, i + 1);
      cuplug__ir_edit_delete(&rw->edits, toks[i + 1].start, toks[j - 1].start + toks[j - 1].len);
      i = j - 1;
    } else if (cuplug__ir_tok_is(text, t, "poison")) {
      cuplug__ir_edit_replace(&rw->edits, t.start, t.start + t.len, "undef");
    } else if (cuplug__ir_tok_is(text, t, "fneg")) {
      /* fneg [fmf] T %v  ->  fsub [fmf] T -0.0, %v
       * fneg [fmf] <N x T> %v  ->  fsub [fmf] <N x T> <T -0.0, ...>, %v */
      size_t j = i + 1;
      while (j < n && cuplug__ir_word_in(&fast_math_flags, text, toks[j])) j++;
      if (j + 1 < n && toks[j].kind == IR_WORD) {
        cuplug__ir_edit_replace(&rw->edits, t.start, t.start + t.len, "fsub");
        cuplug__ir_edit_insert(&rw->edits, toks[j + 1].start, "-0.0, ");
      } else if (j + 5 < n && cuplug__ir_tok_punct(text, toks[j], '<') && toks[j + 1].kind == IR_NUMBER &&
                 cuplug__ir_tok_is(text, toks[j + 2], "x") && toks[j + 3].kind == IR_WORD &&
                 cuplug__ir_tok_punct(text, toks[j + 4], '>')) {
        long lanes = strtol(text + toks[j + 1].start, NULL, 10);
        cuplug__buf zero;
        cuplug__buf_init(&zero);
        cuplug__buf_putc(&zero, '<');
        for (long k = 0; k < lanes && k < 4096; k++)
          cuplug__buf_printf(&zero, "%s%.*s -0.0", k ? ", " : "", (int)toks[j + 3].len,
                             text + toks[j + 3].start);
        cuplug__buf_puts(&zero, ">, ");
        if (zero.oom) return cuplug__error_oom();
        cuplug__ir_edit_replace(&rw->edits, t.start, t.start + t.len, "fsub");
        cuplug__ir_edit_insert(&rw->edits, toks[j + 5].start, zero.data);
        cuplug__buf_free(&zero);
      }
    } else if (cuplug__ir_tok_is(text, t, "ptr")) {
      return cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED,
                           "%s:%zu: opaque pointer type 'ptr': libNVVM reads typed "
                           "pointers (LLVM 7 IR), such as 'i8*'",
                           rw->m.name, cuplug__ir_line_of(&rw->m, t.start));
    }
  }
  return NULL;
}

/* Does the module have `target <what> = ...`? */
static bool has_target(const ir_module *m, const char *what) {
  for (size_t i = 0; i < m->num_items; i++) {
    const ir_item *it = &m->items[i];
    if (it->kind != IR_ITEM_TARGET) continue;
    if (it->last - it->first > 1 && cuplug__ir_tok_is(m->text, m->toks[it->first + 1], what))
      return true;
  }
  return false;
}

static bool is_version(const ir_item *it) {
  return it->kind == IR_ITEM_NAMED_META && strcmp(it->name, "nvvmir.version") == 0;
}

/* The NVPTX triple and datalayout where the module has none, and one
 * !nvvmir.version naming what libNVVM reads (libNVVM reads a module
 * without it as IR 1.0 and rejects it). */
static void set_target_and_version(ir_rewrite *rw, cuplug__ir_version v) {
  if (!has_target(&rw->m, "triple"))
    cuplug__ir_edit_insert(&rw->edits, 0, "target triple = \"" CUPLUG__NVPTX_TRIPLE "\"\n");
  if (!has_target(&rw->m, "datalayout"))
    cuplug__ir_edit_insert(&rw->edits, 0, "target datalayout = \"" CUPLUG__NVPTX_DATALAYOUT "\"\n");
  long version_id = cuplug__ir_rewrite_meta_id(rw);
  char line[64] = "!nvvmir.version = !{!";
  size_t n = strlen(line);
  n += cuplug__decimal(line + n, (unsigned long long)version_id, false);
  memcpy(line + n, "}\n", 3);
  bool written = false;
  for (size_t i = 0; i < rw->m.num_items; i++) {
    const ir_item *it = &rw->m.items[i];
    if (!is_version(it)) continue;
    cuplug__ir_edit_replace(&rw->edits, it->start, it->end, written ? "" : line);
    written = true;
  }
  if (!written) cuplug__buf_puts(&rw->tail, line);
  cuplug__buf_printf(&rw->tail, "!%ld = !{i32 %d, i32 %d, i32 %d, i32 %d}\n", version_id,
                     v.ir_major, v.ir_minor, v.dbg_major, v.dbg_minor);
}

static int compare_ids(const void *a, const void *b) {
  unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
  return (x > y) - (x < y);
}

/* The ids of !llvm.module.flags's operands (!0, !5, ...), sorted; *n of
 * them.  NULL with *n 0 when there are none (or no memory: then no flag
 * is rewritten, and libNVVM says what it finds). */
static unsigned long *module_flag_ids(const ir_module *m, size_t *n) {
  *n = 0;
  const ir_item *flags = cuplug__ir_module_find(m, IR_ITEM_NAMED_META, "llvm.module.flags");
  if (!flags) return NULL;
  unsigned long *ids = malloc((flags->last - flags->first) * sizeof *ids);
  if (!ids) return NULL;
  for (size_t i = flags->first + 1; i < flags->last; i++) { /* past the name */
    ir_tok t = m->toks[i];
    if (t.kind == IR_META && t.len > 1 && m->text[t.start + 1] >= '0' &&
        m->text[t.start + 1] <= '9')
      ids[(*n)++] = strtoul(m->text + t.start + 1, NULL, 10);
  }
  qsort(ids, *n, sizeof *ids, compare_ids);
  return ids;
}

/* !llvm.module.flags's ids, read when a node first looks like a flag. */
typedef struct flag_ids {
  bool read;
  size_t n;
  unsigned long *ids;
} flag_ids;

/* A module flag's behaviour newer than LLVM 7 (!N = !{i32 8, ...}: Min)
 * becomes Warning. */
static void legalize_module_flag(ir_rewrite *rw, const ir_item *it, flag_ids *flags) {
  const char *text = rw->m.text;
  const ir_tok *t = rw->m.toks + it->first;
  size_t n = it->last - it->first; /* !N = ! { i32 8 , */
  if (n < 7 || t[5].kind != IR_NUMBER || (t[5].len == 1 && text[t[5].start] <= '7') ||
      !cuplug__ir_tok_is(text, t[4], "i32") || strtol(text + t[5].start, NULL, 10) <= 7)
    return; /* LLVM 7's behaviours are 1 to 7: most nodes are past the first test */
  if (!flags->read) {
    flags->ids = module_flag_ids(&rw->m, &flags->n);
    flags->read = true;
  }
  unsigned long id = strtoul(it->name, NULL, 10);
  if (flags->n && bsearch(&id, flags->ids, flags->n, sizeof id, compare_ids))
    cuplug__ir_edit_replace(&rw->edits, t[5].start, t[5].start + t[5].len, "2");
}

cuplug_error *cuplug__legalize(ir_rewrite *rw, cuplug__ir_version v, bool *uses_libdevice) {
  set_target_and_version(rw, v);
  flag_ids flags = {0};
  cuplug_error *e = NULL;
  size_t k = 0; /* in the watch list */
  for (size_t i = 0; i < rw->m.num_items; i++) {
    const ir_item *it = &rw->m.items[i];
    if (is_version(it)) continue;
    if (it->kind == IR_ITEM_DECLARE && strncmp(it->name, "___numba_atomic_", 16) == 0) {
      cuplug__buf def;
      cuplug__buf_init(&def);
      if (cuplug__numba_atomic_definition(it->name, &def)) {
        char *d = cuplug__buf_take(&def, NULL);
        if (!d) {
          e = cuplug__error_oom();
          break;
        }
        cuplug__ir_edit_replace(&rw->edits, it->start, it->end, d);
        free(d);
        continue;
      }
      cuplug__buf_free(&def);
    }
    if (it->kind == IR_ITEM_META) legalize_module_flag(rw, it, &flags);
    if ((e = legalize_tokens(rw, it, &k, uses_libdevice))) break;
  }
  free(flags.ids);
  return e;
}

/* ---- LLVM 20's dialect, for libNVVM at cc 10.0 and up ---- */

/* What LLVM 21 and 22 write that LLVM 20's reader, libNVVM's for
 * compute_100 and up, does not know: attributes, removed (with their
 * argument list); `captures(...)`, LLVM 21's form of `nocapture`, is
 * handled apart. */
static ir_wordset newer_than_20 = CUPLUG__IR_WORDSET(
    "dead_on_return", "nocreateundeforpoison", "sanitize_alloc_token", "denormal_fpenv");

/* Does the group toks[i..j) mention `word`? */
static bool group_has(const char *text, const ir_tok *toks, size_t i, size_t j, const char *word) {
  for (; i < j; i++)
    if (cuplug__ir_tok_is(text, toks[i], word)) return true;
  return false;
}

static void legalize_tokens_20(ir_rewrite *rw, const ir_item *it) {
  const char *text = rw->m.text;
  const ir_tok *toks = rw->m.toks + it->first;
  size_t n = it->last - it->first;
  for (size_t i = 0; i < n; i++) {
    ir_tok t = toks[i];
    if (t.kind != IR_WORD || (i + 1 < n && cuplug__ir_tok_punct(text, toks[i + 1], ':')))
      continue; /* a label, or a metadata field name */
    bool group = i + 1 < n && cuplug__ir_tok_punct(text, toks[i + 1], '(');
    size_t j = group ? after_group(text, toks, n, i + 1) : i + 1;
    size_t end = toks[j - 1].start + toks[j - 1].len;
    if (cuplug__ir_tok_is(text, t, "captures") && group) {
      /* captures(none) is nocapture; any other capture may happen, which
       * no attribute says */
      bool none = j == i + 4 && cuplug__ir_tok_is(text, toks[i + 2], "none");
      cuplug__ir_edit_replace(&rw->edits, t.start, end, none ? "nocapture" : "");
    } else if (cuplug__ir_tok_is(text, t, "memory") && group &&
               (group_has(text, toks, i + 2, j, "errnomem") ||
                group_has(text, toks, i + 2, j, "target_mem0") ||
                group_has(text, toks, i + 2, j, "target_mem1"))) {
      /* LLVM 21's errno location, LLVM 22's target memories (rustc 1.95
       * writes them): the whole claim goes, which is safe */
      cuplug__ir_edit_delete(&rw->edits, t.start, end);
    } else if (cuplug__ir_word_in(&newer_than_20, text, t)) {
      cuplug__ir_edit_delete(&rw->edits, t.start, end);
    } else {
      continue;
    }
    i = j - 1;
  }
}

cuplug_error *cuplug__legalize_nvvm20(ir_rewrite *rw, cuplug__ir_version v) {
  set_target_and_version(rw, v);
  for (size_t i = 0; i < rw->m.num_items; i++)
    if (!is_version(&rw->m.items[i])) legalize_tokens_20(rw, &rw->m.items[i]);
  return NULL;
}

void cuplug__put_legal_attrs(cuplug__buf *b, const char *text, const ir_tok *toks, size_t n,
                             ir_wordset *remove) {
  for (size_t i = 0; i < n; i++) {
    ir_tok t = toks[i];
    int w = cuplug__ir_word_index(&legal_words, text, t);
    bool args = i + 1 < n && cuplug__ir_tok_punct(text, toks[i + 1], '(');
    if ((remove && cuplug__ir_word_in(remove, text, t)) || (w >= 0 && w < FIRST_OTHER)) {
      if (args) i = after_group(text, toks, n, i + 1) - 1; /* memory(...) */
      continue;
    }
    bool glue = i > 0 && t.start == toks[i - 1].start + toks[i - 1].len;
    if (!glue) cuplug__buf_putc(b, ' ');
    cuplug__buf_append(b, text + t.start, t.len);
    if (cuplug__ir_tok_is(text, t, "uwtable") && args) i = after_group(text, toks, n, i + 1) - 1;
  }
}
