/* kernel_fixup.c - turn a Numba-ABI function into a kernel.
 *
 * As numba-cuda's kernel_fixup: every `ret i32 <status>` becomes `ret void`
 * (in debug mode after a call to the exception helper with the status),
 * stores to the return slot go, the return slot parameter goes, `noinline`
 * goes, the debug-info subroutine type's first element (the return slot)
 * becomes null (void), and the function is marked as a kernel, with its launch bounds, in
 * !nvvm.annotations and kept alive by @llvm.used.
 *
 * When the return slot is an unnamed parameter (%0), every numbered value
 * of the function is renumbered down by one, since LLVM requires numbered
 * values to be consecutive.
 *
 * A kernel the host wrote under the C ABI (already `void k(args)`) only
 * loses `noinline` and is marked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "lowering/lowering.h"

typedef struct fixup {
  ir_rewrite *rw;
  const char *text;
  const char *entry;
  const ir_function *fn;
  ir_tok slot;    /* the return slot's name token, or IR_EOF if unnamed */
  char *slot_name; /* decoded, or NULL when unnamed (then it is %0) */
  bool renumber;
  bool debug;
  char *helper;    /* <kernel>__exc_helper__ */
  /* Only a statement whose text holds the slot's name can use the slot, so
   * the body is searched for the name (strstr) rather than every token
   * looked at; `mention` is the next place it occurs.  Not when renumbering
   * (every token is looked at anyway) or when the body escapes characters
   * in names (\2E is a '.'). */
  bool every_token;
  const char *mention, *body_end;
} fixup;

/* Is token t a reference to the return slot? */
static bool is_slot(const fixup *f, ir_tok t) {
  if (t.kind != IR_LOCAL) return false;
  if (f->renumber) {
    unsigned long num;
    return cuplug__ir_tok_numbered(f->text, t, &num) && num == 0;
  }
  return cuplug__ir_tok_names(f->text, t, f->slot_name);
}

/* Appends text [start, end) with numbered locals shifted down by one when
 * renumbering, and poison written as undef. */
static void put_renumbered(const fixup *f, cuplug__buf *b, size_t start, size_t end) {
  const ir_tok *toks;
  size_t n = cuplug__ir_slice(&f->rw->m, start, end, &toks);
  size_t pos = start;
  for (size_t i = 0; i < n; i++) {
    unsigned long num;
    if (f->renumber && toks[i].kind == IR_LOCAL && cuplug__ir_tok_numbered(f->text, toks[i], &num) &&
        num > 0) {
      cuplug__buf_append(b, f->text + pos, toks[i].start - pos);
      cuplug__buf_printf(b, "%%%lu", num - 1);
      pos = toks[i].start + toks[i].len;
    } else if (cuplug__ir_tok_is(f->text, toks[i], "poison")) {
      /* this text replaces a statement legalisation will not see */
      cuplug__buf_append(b, f->text + pos, toks[i].start - pos);
      cuplug__buf_puts(b, "undef");
      pos = toks[i].start + toks[i].len;
    }
  }
  cuplug__buf_append(b, f->text + pos, end - pos);
}

/* Renumbers the numbered locals of a token run in place (as edits); with
 * labels_too, a numbered label definition ("5:") as well. */
static void renumber(fixup *f, const ir_tok *toks, size_t n, bool labels_too) {
  if (!f->renumber) return;
  for (size_t i = 0; i < n; i++) {
    unsigned long num;
    char buf[1 + CUPLUG__DECIMAL_MAX] = "%";
    if (toks[i].kind == IR_LOCAL && cuplug__ir_tok_numbered(f->text, toks[i], &num) && num > 0) {
      cuplug__decimal(buf + 1, num - 1, false);
      cuplug__ir_edit_replace(&f->rw->edits, toks[i].start, toks[i].start + toks[i].len, buf);
    } else if (labels_too && i == 0 && toks[i].kind == IR_NUMBER && n > 1 &&
               cuplug__ir_tok_punct(f->text, toks[1], ':')) {
      num = strtoul(f->text + toks[i].start, NULL, 10);
      cuplug__decimal(buf, num ? num - 1 : 0, false);
      cuplug__ir_edit_replace(&f->rw->edits, toks[i].start, toks[i].start + toks[i].len, buf);
    }
  }
}

static cuplug_error *unsupported(const fixup *f, size_t at, const char *what) {
  return cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED, "%s:%zu: kernel @%s: %s",
                       f->rw->m.name, cuplug__ir_line_of(&f->rw->m, at), f->entry, what);
}

/* ret i32 <status>[, !dbg !N]  ->  [call exc_helper(status)] ret void */
static cuplug_error *fix_ret(fixup *f, const ir_stmt *s) {
  const ir_tok *toks = s->toks;
  size_t n = s->n;
  size_t val = 2; /* ret <type> <value> */
  if (n < 3) {
    if (n == 2 && cuplug__ir_tok_is(f->text, toks[1], "void")) return NULL;
    return unsupported(f, s->start, "a return without a status value");
  }
  size_t md_text = cuplug__ret_attachments(f->text, s); /* ", !dbg ..." */
  size_t val_end = md_text;
  cuplug__buf b;
  cuplug__buf_init(&b);
  if (f->debug) {
    cuplug__buf_puts(&b, "call void ");
    cuplug__ir_put_name(&b, '@', f->helper);
    cuplug__buf_puts(&b, "(i32 ");
    put_renumbered(f, &b, toks[val].start, val_end);
    cuplug__buf_putc(&b, ')');
    cuplug__buf_append(&b, f->text + md_text, s->end - md_text);
    cuplug__buf_puts(&b, "\n  ");
  }
  cuplug__buf_puts(&b, "ret void");
  cuplug__buf_append(&b, f->text + md_text, s->end - md_text);
  char *repl = cuplug__buf_take(&b, NULL);
  if (!repl) return cuplug__error_oom();
  cuplug__ir_edit_replace(&f->rw->edits, s->start, s->end, repl);
  free(repl);
  return NULL;
}

/* Does the statement call a debug intrinsic (llvm.dbg.*)? */
static bool calls_dbg(const fixup *f, const ir_stmt *s) {
  for (size_t k = 0; k < s->n; k++)
    if (s->toks[k].kind == IR_GLOBAL && s->toks[k].len > 10 &&
        memcmp(f->text + s->toks[k].start, "@llvm.dbg.", 10) == 0)
      return true;
  return false;
}

/* The next mention of the slot's name in the body at or after p, or NULL.
 * strstr (the text ends with a NUL) scans with vector compares where
 * memmem goes a byte at a time. */
static const char *next_mention(const fixup *f, const char *p) {
  const char *m = strstr(p, f->slot_name);
  return m && m < f->body_end ? m : NULL;
}

/* Deletes statement s, its line(s) with it. */
static void delete_stmt(fixup *f, const ir_stmt *s) {
  size_t start, end;
  cuplug__ir_stmt_lines(&f->rw->m, f->fn, s, &start, &end);
  cuplug__ir_edit_delete(&f->rw->edits, start, end);
}

/* May the statement refer to the slot?  (Statements come in order.) */
static bool may_use_slot(fixup *f, const ir_stmt *s) {
  if (f->every_token) return true;
  while (f->mention && f->mention < f->text + s->start)
    f->mention = next_mention(f, f->mention + 1);
  return f->mention && f->mention < f->text + s->end;
}

static cuplug_error *fix_body(fixup *f) {
  const char *body = f->text + f->fn->body_open, *end = f->text + f->fn->body_close;
  f->every_token = f->renumber || memchr(body, '\\', (size_t)(end - body));
  f->body_end = end;
  if (!f->every_token) f->mention = next_mention(f, body);
  ir_stmt st;
  ir_stmt_cursor cursor = {0};
  while (cuplug__ir_next_stmt(&f->rw->m, f->fn, &cursor, &st)) {
    const ir_stmt *s = &st;
    if (cuplug__ir_tok_is(f->text, s->toks[0], "ret")) {
      CUPLUG__TRY(fix_ret(f, s));
      continue;
    }
    if (!may_use_slot(f, s)) continue; /* (always may when renumbering) */
    bool removed = false;
    if (cuplug__ir_tok_is(f->text, s->toks[0], "store")) {
      /* store <ty> <val>, <ty>* <ptr>[, align N]: the pointer operand is the
       * last token of the second operand */
      size_t ptr = cuplug__ir_operand_start(f->text, s->toks, s->n, 1, 1);
      size_t ptr_end = cuplug__ir_operand_start(f->text, s->toks, s->n, ptr, 1);
      size_t last = (ptr_end < s->n ? ptr_end - 1 : s->n) - 1;
      if (ptr < s->n && last < s->n && is_slot(f, s->toks[last])) {
        delete_stmt(f, s);
        removed = true;
      }
    }
    for (size_t j = 0; j < s->n && !removed; j++) {
      if (!is_slot(f, s->toks[j])) continue;
      /* a debug intrinsic that describes the slot goes with it */
      if (!calls_dbg(f, s))
        return unsupported(f, s->start, "the return slot is used other than by storing to it");
      delete_stmt(f, s);
      removed = true;
    }
    if (!removed) renumber(f, s->toks, s->n, true);
  }
  return NULL;
}

/* The metadata node a !N token refers to. */
static const ir_item *find_meta(const ir_module *m, ir_tok ref) {
  char id[32];
  snprintf(id, sizeof id, "%.*s", (int)ref.len - 1, m->text + ref.start + 1);
  return cuplug__ir_module_find(m, IR_ITEM_META, id);
}

/* The !N after "field:" in a specialised metadata node, or IR_EOF. */
static ir_tok field_ref(const char *text, const ir_tok *toks, size_t n, const char *field) {
  for (size_t i = 0; i + 2 < n; i++)
    if (cuplug__ir_tok_is(text, toks[i], field) && cuplug__ir_tok_punct(text, toks[i + 1], ':') &&
        toks[i + 2].kind == IR_META)
      return toks[i + 2];
  return (ir_tok){.kind = IR_EOF};
}

/* How often a metadata node is named in the module, its definition left out. */
static size_t meta_uses(const ir_module *m, const ir_item *node) {
  const ir_tok *def = &m->toks[node->first];
  size_t uses = 0;
  for (size_t i = 0; i < m->num_toks; i++) {
    const ir_tok *t = &m->toks[i];
    uses += i != node->first && t->kind == IR_META && t->len == def->len &&
            memcmp(m->text + t->start, m->text + def->start, def->len) == 0;
  }
  return uses;
}

/* A new types list for the subprogram's type ref, !M: !K = !{a, b, c}
 * gives !K2 = !{ null, b, c } and !M2, !M with types: !K2.  (The tail
 * spaces the list as numba-cuda's llvmlite does: numba-cuda's tests read
 * it with patterns.) */
static void new_debug_type(fixup *f, ir_tok type_ref, const ir_item *st, ir_tok types_ref,
                           const ir_tok *list, size_t second, size_t close) {
  ir_rewrite *rw = f->rw;
  const ir_tok *toks;
  size_t n = cuplug__ir_slice(&rw->m, st->start, st->end, &toks);
  size_t st_eq = 0;
  while (st_eq < n && !cuplug__ir_tok_punct(f->text, toks[st_eq], '=')) st_eq++;
  size_t st_body = st_eq + 1 < n ? toks[st_eq + 1].start : st->end;
  size_t st_end = n ? toks[n - 1].start + toks[n - 1].len : st->end;
  long new_list = cuplug__ir_rewrite_meta_id(rw), new_type = cuplug__ir_rewrite_meta_id(rw);
  cuplug__buf_printf(&rw->tail, "!%ld = !{ null", new_list);
  if (second < close) {
    size_t from = list[second].start, to = list[close].start;
    while (to > from && (f->text[to - 1] == ' ' || f->text[to - 1] == '\t')) to--;
    cuplug__buf_puts(&rw->tail, ", ");
    cuplug__buf_append(&rw->tail, f->text + from, to - from);
  }
  cuplug__buf_puts(&rw->tail, " }\n");

  cuplug__buf_printf(&rw->tail, "!%ld = ", new_type);
  cuplug__buf_append(&rw->tail, f->text + st_body, types_ref.start - st_body);
  cuplug__buf_printf(&rw->tail, "!%ld", new_list);
  size_t after = types_ref.start + types_ref.len;
  cuplug__buf_append(&rw->tail, f->text + after, st_end - after);
  cuplug__buf_putc(&rw->tail, '\n');

  char ref[32];
  snprintf(ref, sizeof ref, "!%ld", new_type);
  cuplug__ir_edit_replace(&rw->edits, type_ref.start, type_ref.start + type_ref.len, ref);
}

/* The debug-info subroutine type's first element, the return slot's type,
 * becomes null, the void a kernel returns, so that debuggers see the
 * kernel's own parameters (numba-cuda's kernel_fixup writes null there
 * too).  Nodes only the kernel uses are edited where they stand, as
 * numba-cuda edits them (its tests read the first subroutine type of the
 * module); shared ones stay as they are, and the subprogram gets new ones. */
static cuplug_error *fix_debug_type(fixup *f) {
  const ir_module *m = &f->rw->m;
  const ir_tok *toks;
  size_t n = cuplug__ir_slice(m, f->fn->fn_attrs.start, f->fn->fn_attrs.end, &toks);
  const ir_item *sp = NULL;
  for (size_t i = 0; i + 1 < n; i++)
    if (cuplug__ir_tok_is(f->text, toks[i], "!dbg") && toks[i + 1].kind == IR_META)
      sp = find_meta(m, toks[i + 1]);
  if (!sp) return NULL;

  /* type: !M in the DISubprogram, types: !K in the DISubroutineType */
  n = cuplug__ir_slice(m, sp->start, sp->end, &toks);
  ir_tok type_ref = field_ref(f->text, toks, n, "type");
  const ir_item *st = type_ref.kind == IR_META ? find_meta(m, type_ref) : NULL;
  if (!st) return NULL;
  n = cuplug__ir_slice(m, st->start, st->end, &toks);
  ir_tok types_ref = field_ref(f->text, toks, n, "types");
  const ir_item *tl = types_ref.kind == IR_META ? find_meta(m, types_ref) : NULL;
  if (!tl) return NULL;

  const ir_tok *list;
  n = cuplug__ir_slice(m, tl->start, tl->end, &list);
  size_t open = 0;
  while (open < n && !cuplug__ir_tok_punct(f->text, list[open], '{')) open++;
  size_t second = cuplug__ir_operand_start(f->text, list, n, open + 1, 1);
  size_t close = n ? n - 1 : 0;
  bool has_first = open + 1 < close;
  if (has_first && meta_uses(m, st) == 1 && meta_uses(m, tl) == 1) {
    const ir_tok *last = &list[second < close ? second - 2 : close - 1];
    cuplug__ir_edit_replace(&f->rw->edits, list[open + 1].start, last->start + last->len, "null");
    return NULL;
  }
  new_debug_type(f, type_ref, st, types_ref, list, second, close);
  return NULL;
}

static bool has_numbered_types(const ir_module *m) {
  for (size_t i = 0; i < m->num_items; i++) {
    const ir_item *it = &m->items[i];
    if (it->kind == IR_ITEM_TYPE && it->name[0] >= '0' && it->name[0] <= '9') return true;
  }
  return false;
}

static ir_wordset kernel_removes = CUPLUG__IR_WORDSET("noinline");

/* Annotates the kernel, whose parameters are fn's from `first` on. */
static cuplug_error *mark_kernel(ir_rewrite *rw, const ir_function *fn, const char *text,
                                 const char *entry, size_t first,
                                 const cuplug__kernel_options *o) {
  cuplug__buf ty;
  cuplug__buf_init(&ty);
  cuplug__buf_puts(&ty, "void (");
  for (size_t i = first; i < fn->num_params; i++) {
    if (i > first) cuplug__buf_puts(&ty, ", ");
    cuplug__buf_append(&ty, text + fn->params[i].type.start,
                       fn->params[i].type.end - fn->params[i].type.start);
  }
  if (fn->varargs) cuplug__buf_puts(&ty, fn->num_params > first ? ", ..." : "...");
  cuplug__buf_puts(&ty, ")*");
  char *fnptr = cuplug__buf_take(&ty, NULL);
  if (!fnptr) return cuplug__error_oom();
  cuplug_error *e =
      cuplug__annotate_kernel(rw, entry, fnptr, o->launch_bounds, o->num_launch_bounds);
  free(fnptr);
  return e;
}

cuplug_error *cuplug__kernel_fixup(ir_rewrite *rw, const char *entry,
                                   const cuplug__kernel_options *o) {
  const char *text = rw->m.text;
  ir_function fn;
  bool found;
  CUPLUG__TRY(cuplug__find_define(&rw->m, entry, &fn, &found));
  if (!found)
    return cuplug__error(CUPLUG_ERR_ENTRY_NOT_FOUND, "%s: no definition of @%s", rw->m.name,
                         entry);
  cuplug_error *e = NULL;
  fixup f = {.rw = rw, .text = text, .entry = entry, .fn = &fn, .slot = {.kind = IR_EOF},
             .debug = o->debug};
  ir_tok ret = {.start = (uint32_t)fn.ret_type.start,
                .len = (uint32_t)(fn.ret_type.end - fn.ret_type.start),
                .kind = IR_WORD};

  if (o->c_entry) {
    /* Already `void k(args)`: only the marking is missing. */
    if (!cuplug__ir_tok_is(text, ret, "void")) {
      e = unsupported(&f, fn.item->start, "a C-ABI kernel returns void");
      goto done;
    }
    cuplug__fn_attrs_edit(rw, &fn, NULL, &kernel_removes);
    e = mark_kernel(rw, &fn, text, entry, 0, o);
    cuplug__ir_function_free(&fn);
    return e;
  }

  if (fn.num_params == 0 || text[fn.params[0].type.end - 1] != '*' ||
      !cuplug__ir_tok_is(text, ret, "i32")) {
    e = unsupported(&f, fn.item->start,
                    "a Numba-ABI function returns i32 and takes its return slot "
                    "pointer first");
    goto done;
  }
  f.slot = fn.params[0].name;
  if (f.slot.kind == IR_EOF || cuplug__ir_tok_numbered(text, f.slot, NULL)) {
    if (has_numbered_types(&rw->m)) {
      e = unsupported(&f, fn.item->start,
                      "its return slot is unnamed and the module numbers its types; "
                      "name the parameters");
      goto done;
    }
    f.renumber = true;
  } else if (!(f.slot_name = cuplug__ir_tok_name(text, f.slot))) {
    e = cuplug__error_oom();
    goto done;
  }

  if (o->debug) {
    cuplug__buf hb;
    cuplug__buf_init(&hb);
    cuplug__buf_printf(&hb, "%s__exc_helper__", entry);
    if (!(f.helper = cuplug__buf_take(&hb, NULL))) {
      e = cuplug__error_oom();
      goto done;
    }
  }

  /* The header: void return, no return slot, no noinline. */
  cuplug__ir_edit_replace(&rw->edits, fn.ret_attrs.start, fn.ret_type.end, "void");
  cuplug__drop_first_param(rw, &fn);
  for (size_t i = 1; i < fn.num_params; i++)
    if (fn.params[i].name.kind != IR_EOF) renumber(&f, &fn.params[i].name, 1, false);
  cuplug__fn_attrs_edit(rw, &fn, NULL, &kernel_removes);

  if ((e = fix_body(&f))) goto done;
  /* With debug info (debug or lineinfo), the subroutine type's return slot
   * becomes void, as in numba-cuda, whatever the debug option says. */
  if ((e = fix_debug_type(&f))) goto done;
  if (o->debug) cuplug__exc_store_add(rw, entry);

  e = mark_kernel(rw, &fn, text, entry, 1, o);

done:
  free(f.slot_name);
  free(f.helper);
  cuplug__ir_function_free(&fn);
  return e;
}
