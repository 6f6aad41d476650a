/* test_irtext.c - the IR text model (lowering/irlex.h, irparse.h and
 * irrewrite.h), used directly.
 *
 * Covers the lexer (token kinds, offsets, lengths), name decoding and
 * quoting, word sets, a module's top-level items (numba's layout, with '{'
 * on its own line, and clang's), function headers, body statements, edit
 * lists and rewrites, the quick cuplug__ir_text_defines scan, and the text
 * builder's own formatting (base/buf.h) against the C library's.  Spans are checked
 * as the exact text they cover. */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "base/error.h"
#include "lowering/irrewrite.h"
#include "support.h"

/* The text of [start, end), for ck_assert_str_eq. */
static const char *span(const char *text, size_t start, size_t end) {
  static char buf[1024];
  ck_assert_uint_le(start, end);
  ck_assert_uint_lt(end - start, sizeof buf);
  memcpy(buf, text + start, end - start);
  buf[end - start] = '\0';
  return buf;
}

#define ASSERT_SPAN(text, s, want) ck_assert_str_eq(span((text), (s).start, (s).end), (want))
#define ASSERT_TOK(text, t, k, want)                                           \
  do {                                                                         \
    ir_tok tok_ = (t); /* t may be a call to cuplug__ir_next */                        \
    ck_assert_int_eq(tok_.kind, (k));                                          \
    ck_assert_str_eq(span((text), tok_.start, tok_.start + tok_.len), (want)); \
  } while (0)

static ir_module parse_module(const char *name, const char *text) {
  ir_module m;
  T_ASSERT_OK(cuplug__ir_module_parse(&m, name, text, strlen(text), NULL));
  return m;
}

/* ---- lexer ---- */

static const char lex_text[] =
    "%\"quoted \\22 name\" = call @glob(i8* c\"str\\00\", ...) #0, !meta !\"md\" ; comment\n"
    "  -3 1.5e+2 0x3FF0000000000000 0xH3C00 !{ } # x\n";

static const struct {
  ir_tok_kind kind;
  uint32_t start, len;
  int depth;
  bool bol;
} lex_want[] = {
    {IR_LOCAL, 0, 18, 0, true},    {IR_PUNCT, 19, 1, 0, false},   {IR_WORD, 21, 4, 0, false},
    {IR_GLOBAL, 26, 5, 0, false},  {IR_PUNCT, 31, 1, 1, false},   {IR_WORD, 32, 2, 0, false},
    {IR_PUNCT, 34, 1, 0, false},   {IR_STRING, 36, 9, 0, false},  {IR_PUNCT, 45, 1, 0, false},
    {IR_PUNCT, 47, 3, 0, false},   {IR_PUNCT, 50, 1, -1, false},  {IR_ATTRGRP, 52, 2, 0, false},
    {IR_PUNCT, 54, 1, 0, false},   {IR_META, 56, 5, 0, false},    {IR_META, 62, 5, 0, false},
    {IR_NUMBER, 80, 2, 0, true},   {IR_NUMBER, 83, 6, 0, false},  {IR_NUMBER, 90, 18, 0, false},
    {IR_NUMBER, 109, 7, 0, false}, {IR_PUNCT, 117, 1, 0, false},  {IR_PUNCT, 118, 1, 1, false},
    {IR_PUNCT, 120, 1, -1, false}, {IR_PUNCT, 122, 1, 0, false},  {IR_WORD, 124, 1, 0, false},
    {IR_EOF, 126, 0, 0, true},     {IR_EOF, 126, 0, 0, true},
};

START_TEST(lexer_kinds_starts_lengths) {
  ir_lexer lx;
  cuplug__ir_lexer_init(&lx, lex_text, strlen(lex_text), 0);
  for (size_t i = 0; i < sizeof lex_want / sizeof lex_want[0]; i++) {
    ir_tok t = cuplug__ir_next(&lx);
    ck_assert_msg(t.kind == lex_want[i].kind, "token %zu: kind %d, expected %d", i,
                  (int)t.kind, (int)lex_want[i].kind);
    ck_assert_uint_eq(t.start, lex_want[i].start);
    ck_assert_uint_eq(t.len, lex_want[i].len);
    ck_assert_int_eq(t.depth, lex_want[i].depth);
    ck_assert_msg(t.bol == lex_want[i].bol, "token %zu: bol %d", i, (int)t.bol);
  }
}
END_TEST

START_TEST(lexer_token_texts) {
  static const char text[] = "%\"quoted \\22 name\" @glob c\"str\\00\" ... 0xH3C00 !\"md\"";
  ir_lexer lx;
  cuplug__ir_lexer_init(&lx, text, strlen(text), 0);
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_LOCAL, "%\"quoted \\22 name\"");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_GLOBAL, "@glob");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_STRING, "c\"str\\00\"");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_PUNCT, "...");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_NUMBER, "0xH3C00");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_META, "!\"md\"");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_EOF, "");
}
END_TEST

START_TEST(lexer_labels_numbers_and_sigils) {
  static const char text[] =
      "entry: 5: %12 @0 %.5 !12 !nvvm.annotations -x - 1e5 -0.25 call cc \"s\"\r\n; only\n"
      "next ;\n\n  last\n";
  ir_lexer lx;
  cuplug__ir_lexer_init(&lx, text, strlen(text), 0);
  ir_tok entry = cuplug__ir_next(&lx), colon = cuplug__ir_next(&lx);
  ASSERT_TOK(text, entry, IR_WORD, "entry");
  ck_assert(entry.bol);
  ASSERT_TOK(text, colon, IR_PUNCT, ":");
  ck_assert(!colon.bol);
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_NUMBER, "5");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_PUNCT, ":");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_LOCAL, "%12");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_GLOBAL, "@0");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_LOCAL, "%.5");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_META, "!12");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_META, "!nvvm.annotations");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_PUNCT, "-");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_WORD, "x");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_PUNCT, "-");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_NUMBER, "1e5");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_NUMBER, "-0.25");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_WORD, "call");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_WORD, "cc");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_STRING, "\"s\"");
  /* line breaks are no tokens: the next token begins a line ('\r' is a
   * blank, a comment runs to the line's end) */
  ir_tok next = cuplug__ir_next(&lx), last = cuplug__ir_next(&lx);
  ASSERT_TOK(text, next, IR_WORD, "next");
  ck_assert(next.bol);
  ASSERT_TOK(text, last, IR_WORD, "last");
  ck_assert(last.bol);
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_EOF, "");
}
END_TEST

START_TEST(lexer_unterminated_string_ends_at_the_end) {
  static const char text[] = "@\"open name";
  ir_lexer lx;
  cuplug__ir_lexer_init(&lx, text, strlen(text), 0);
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_GLOBAL, "@\"open name");
  ASSERT_TOK(text, cuplug__ir_next(&lx), IR_EOF, "");
  /* starting mid-text: mid-line, and after a line break and blanks */
  cuplug__ir_lexer_init(&lx, text, strlen(text), 7);
  ir_tok name = cuplug__ir_next(&lx);
  ASSERT_TOK(text, name, IR_WORD, "name");
  ck_assert(!name.bol);
  static const char lines[] = "a\n  b c";
  cuplug__ir_lexer_init(&lx, lines, strlen(lines), 3);
  ck_assert(cuplug__ir_next(&lx).bol);
  ck_assert(!cuplug__ir_next(&lx).bol);
}
END_TEST

START_TEST(tok_is_and_punct) {
  static const char text[] = "define ( i32";
  ir_lexer lx;
  cuplug__ir_lexer_init(&lx, text, strlen(text), 0);
  ir_tok def = cuplug__ir_next(&lx), open = cuplug__ir_next(&lx), i32 = cuplug__ir_next(&lx);
  ck_assert(cuplug__ir_tok_is(text, def, "define"));
  ck_assert(!cuplug__ir_tok_is(text, def, "def"));
  ck_assert(!cuplug__ir_tok_is(text, def, "defined"));
  ck_assert(cuplug__ir_tok_punct(text, open, '('));
  ck_assert(!cuplug__ir_tok_punct(text, open, ')'));
  ck_assert(!cuplug__ir_tok_punct(text, i32, 'i'));
}
END_TEST

/* ---- names ---- */

/* The first token of `text`. */
static ir_tok first_tok(const char *text) {
  ir_lexer lx;
  cuplug__ir_lexer_init(&lx, text, strlen(text), 0);
  return cuplug__ir_next(&lx);
}

static void assert_name(const char *text, const char *want) {
  char *name = cuplug__ir_tok_name(text, first_tok(text));
  ck_assert_str_eq(name, want);
  free(name);
  ck_assert(cuplug__ir_tok_names(text, first_tok(text), want));
}

START_TEST(tok_name_decodes) {
  assert_name("@glob", "glob");
  assert_name("%\"quoted \\22 name\"", "quoted \" name");
  assert_name("%\".ret\"", ".ret");
  assert_name("@\"a\\5cb\\5Cc\"", "a\\b\\c");
  assert_name("@\"a\\\\b\"", "a\\b");
  assert_name("@\"tab\\09end\\0A\"", "tab\tend\n");
  assert_name("!nvvm.annotations", "nvvm.annotations");
  assert_name("!\"kernel\"", "kernel");
  assert_name("!12", "12");
  assert_name("#3", "3");
  /* a backslash not followed by two hex digits stays, at the end too */
  assert_name("@\"a\\zz\"", "a\\zz");
  assert_name("@\"a\\\"", "a\\");
  assert_name("@\"a\\4\"", "a\\4");
  assert_name("@\"\\41\\\"", "A\\");
  assert_name("@\"\\41\"", "A");
}
END_TEST

START_TEST(tok_names_compares_decoded) {
  static const char text[] = "%\"quoted \\22 name\"";
  ir_tok t = first_tok(text);
  ck_assert(cuplug__ir_tok_names(text, t, "quoted \" name"));
  ck_assert(!cuplug__ir_tok_names(text, t, "quoted \\22 name"));
  ck_assert(!cuplug__ir_tok_names(text, t, "quoted \" nam"));
  ck_assert(!cuplug__ir_tok_names(text, t, "quoted \" names"));
  ck_assert(!cuplug__ir_tok_names(text, t, ""));
  ck_assert(cuplug__ir_tok_names("@f", first_tok("@f"), "f"));
  ck_assert(!cuplug__ir_tok_names("@f", first_tok("@f"), "fo"));
  ck_assert(!cuplug__ir_tok_names("@fo", first_tok("@fo"), "f"));
}
END_TEST

/* A name with an escaped NUL is not the C string before the NUL, and the
 * answer may not depend on the bytes after the string's terminator. */
START_TEST(tok_names_stops_at_the_callers_nul) {
  static const char text[] = "@\"a\\00b\"";
  static const char a_then_b[] = {'a', '\0', 'b', '\0'};
  static const char a_then_x[] = {'a', '\0', 'x', '\0'};
  ir_tok t = first_tok(text);
  ck_assert(!cuplug__ir_tok_names(text, t, a_then_x));
  ck_assert(!cuplug__ir_tok_names(text, t, a_then_b));
}
END_TEST

START_TEST(tok_numbered) {
  unsigned long n = 99;
  ck_assert(cuplug__ir_tok_numbered("%12", first_tok("%12"), &n));
  ck_assert_uint_eq(n, 12);
  ck_assert(cuplug__ir_tok_numbered("@0", first_tok("@0"), &n));
  ck_assert_uint_eq(n, 0);
  n = 99;
  ck_assert(!cuplug__ir_tok_numbered("%x1", first_tok("%x1"), &n));
  ck_assert(!cuplug__ir_tok_numbered("%\"12\"", first_tok("%\"12\""), &n));
  ck_assert(!cuplug__ir_tok_numbered("!12", first_tok("!12"), &n));
  ck_assert(!cuplug__ir_tok_numbered("%1a", first_tok("%1a"), &n));
  ck_assert_uint_eq(n, 99);
}
END_TEST

static const char *put_name(char sigil, const char *name) {
  static char out[256];
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__ir_put_name(&b, sigil, name);
  ck_assert(!b.oom);
  snprintf(out, sizeof out, "%s", b.data);
  cuplug__buf_free(&b);
  return out;
}

START_TEST(put_name_quotes_and_escapes) {
  ck_assert_str_eq(put_name('@', "f"), "@\"f\"");
  ck_assert_str_eq(put_name('%', ".ret"), "%\".ret\"");
  ck_assert_str_eq(put_name('@', "a\"b\\c\nd\x01"), "@\"a\\22b\\5Cc\\0Ad\\01\"");
  ck_assert_str_eq(put_name('@', "caf\xc3\xa9"), "@\"caf\xc3\xa9\"");
  ck_assert_str_eq(put_name('!', ""), "!\"\"");
}
END_TEST

START_TEST(put_name_round_trips) {
  static const char *const names[] = {"plain", "a\"b", "back\\slash", "nl\nx", "\x7f~"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char text[256];
    snprintf(text, sizeof text, "%s", put_name('@', names[i]));
    assert_name(text, names[i]);
    ck_assert_uint_eq(first_tok(text).len, strlen(text));
  }
}
END_TEST

/* ---- word sets ---- */

static ir_wordset arith = CUPLUG__IR_WORDSET("add", "sub", "mul", "fadd");

START_TEST(word_sets) {
  static const char text[] = "sub fadd add mul div ad addx %add";
  static const int want[] = {1, 3, 0, 2, -1, -1, -1, -1};
  ir_lexer lx;
  cuplug__ir_lexer_init(&lx, text, strlen(text), 0);
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    ir_tok t = cuplug__ir_next(&lx);
    ck_assert_int_eq(cuplug__ir_word_index(&arith, text, t), want[i]);
    ck_assert(cuplug__ir_word_in(&arith, text, t) == (want[i] >= 0));
  }
}
END_TEST

/* 128 words (the most a set holds) all land in their own slot. */
START_TEST(word_set_of_128) {
  static char store[128][8];
  static const char *words[129];
  for (int i = 0; i < 128; i++) {
    snprintf(store[i], sizeof store[i], "w%d", i);
    words[i] = store[i];
  }
  words[128] = NULL;
  ir_wordset set = {.words = words};
  for (int i = 0; i < 128; i++)
    ck_assert_int_eq(cuplug__ir_word_index(&set, store[i], first_tok(store[i])), i);
  ck_assert_int_eq(cuplug__ir_word_index(&set, "w128", first_tok("w128")), -1);
}
END_TEST

/* ---- modules ---- */

#define NUMBA_HEADER "define i32 @\"add\"(i64* %\".ret\", i32 %\"x\", i32 %\"y\")\n"
#define NUMBA_BODY                                                             \
  "{\n"                                                                        \
  "entry:\n"                                                                   \
  "  %\".5\" = add i32 %\"x\", %\"y\"\n"                                       \
  "  ret i32 0\n"                                                              \
  "}\n"

static const char numba_module[] =
    "; ModuleID = \"add$1\"\n"
    "source_filename = \"<string>\"\n"
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "\n"
    "@\"env\" = common global i8* null\n"
    NUMBA_HEADER NUMBA_BODY
    "\n"
    "!nvvmir.version = !{ !0 }\n"
    "!0 = !{ i32 2, i32 0, i32 3, i32 2 }";

static void assert_item(const ir_module *m, size_t i, ir_item_kind kind, const char *name,
                        const char *text) {
  ck_assert_uint_lt(i, m->num_items);
  ck_assert_int_eq(m->items[i].kind, kind);
  ck_assert_str_eq(m->items[i].name, name);
  ASSERT_SPAN(m->text, m->items[i], text);
}

START_TEST(module_numba_layout) {
  ir_module m = parse_module("add.ll", numba_module);
  ck_assert_uint_eq(m.num_items, 6);
  assert_item(&m, 0, IR_ITEM_OTHER, "", "source_filename = \"<string>\"\n");
  assert_item(&m, 1, IR_ITEM_TARGET, "", "target triple = \"nvptx64-nvidia-cuda\"\n");
  assert_item(&m, 2, IR_ITEM_GLOBAL, "env", "@\"env\" = common global i8* null\n");
  assert_item(&m, 3, IR_ITEM_DEFINE, "add", NUMBA_HEADER NUMBA_BODY);
  assert_item(&m, 4, IR_ITEM_NAMED_META, "nvvmir.version", "!nvvmir.version = !{ !0 }\n");
  assert_item(&m, 5, IR_ITEM_META, "0", "!0 = !{ i32 2, i32 0, i32 3, i32 2 }");
  ck_assert_int_eq(m.max_meta, 0);
  ck_assert_int_eq(m.max_attrs, -1);
  /* an item's tokens: the define runs from 'define' to '}' */
  ck_assert(cuplug__ir_tok_is(m.text, m.toks[m.items[3].first], "define"));
  ck_assert(cuplug__ir_tok_punct(m.text, m.toks[m.items[3].last - 1], '}'));
  ck_assert_uint_eq(m.items[4].first, m.items[3].last);
  ck_assert(m.toks[m.items[3].first].bol);
  ck_assert(!m.toks[m.items[3].first + 1].bol);
  ck_assert_ptr_eq(cuplug__ir_module_find(&m, IR_ITEM_DEFINE, "add"), &m.items[3]);
  ck_assert_ptr_null(cuplug__ir_module_find(&m, IR_ITEM_DECLARE, "add"));
  ck_assert_uint_eq(cuplug__ir_line_of(&m, m.items[3].start), 6);
  ck_assert_uint_eq(cuplug__ir_line_of(&m, 0), 1);
  cuplug__ir_module_free(&m);
}
END_TEST

#define CLANG_GLOBAL                                                           \
  "@g = internal addrspace(3) global [2 x i32] [\n"                            \
  "  i32 1,\n"                                                                 \
  "  i32 2\n"                                                                  \
  "], align 4\n"
#define CLANG_DEFINE                                                           \
  "define void @f() #0 {\n"                                                    \
  "entry:\n"                                                                   \
  "  ret void\n"                                                               \
  "}\n"

static const char clang_module[] =
    "source_filename = \"k.cu\"\n"
    "$c = comdat any\n"
    "%struct.T = type { i32, float }\n"
    CLANG_GLOBAL
    "@s = private constant [3 x i8] c\"hi\\00\" ; note\n"
    CLANG_DEFINE
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1\n"
    "attributes #0 = { nounwind }\n"
    "attributes #3 = { readnone \"x\"=\"{\" }\n"
    "!nvvm.annotations = !{!1}\n"
    "!1 = !{void ()* @f, !\"kernel\", i32 1}\n"
    "!12 = !{}\n"
    "!7 = !{}\n";

START_TEST(module_clang_layout) {
  ir_module m = parse_module("k.ll", clang_module);
  ck_assert_uint_eq(m.num_items, 13);
  assert_item(&m, 0, IR_ITEM_OTHER, "", "source_filename = \"k.cu\"\n");
  assert_item(&m, 1, IR_ITEM_OTHER, "", "$c = comdat any\n");
  assert_item(&m, 2, IR_ITEM_TYPE, "struct.T", "%struct.T = type { i32, float }\n");
  assert_item(&m, 3, IR_ITEM_GLOBAL, "g", CLANG_GLOBAL);
  assert_item(&m, 4, IR_ITEM_GLOBAL, "s", "@s = private constant [3 x i8] c\"hi\\00\" ; note\n");
  assert_item(&m, 5, IR_ITEM_DEFINE, "f", CLANG_DEFINE);
  assert_item(&m, 6, IR_ITEM_DECLARE, "llvm.nvvm.read.ptx.sreg.tid.x",
              "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1\n");
  assert_item(&m, 7, IR_ITEM_ATTRS, "0", "attributes #0 = { nounwind }\n");
  assert_item(&m, 8, IR_ITEM_ATTRS, "3", "attributes #3 = { readnone \"x\"=\"{\" }\n");
  assert_item(&m, 9, IR_ITEM_NAMED_META, "nvvm.annotations", "!nvvm.annotations = !{!1}\n");
  assert_item(&m, 10, IR_ITEM_META, "1", "!1 = !{void ()* @f, !\"kernel\", i32 1}\n");
  assert_item(&m, 11, IR_ITEM_META, "12", "!12 = !{}\n");
  assert_item(&m, 12, IR_ITEM_META, "7", "!7 = !{}\n");
  ck_assert_int_eq(m.max_meta, 12);
  ck_assert_int_eq(m.max_attrs, 3);
  ck_assert_ptr_eq(cuplug__ir_module_find(&m, IR_ITEM_ATTRS, "3"), &m.items[8]);
  ck_assert_uint_eq(cuplug__ir_line_of(&m, m.items[5].start), 9);
  /* the tokens of the define's body line "  ret void" */
  const ir_tok *toks;
  size_t at = (size_t)(strstr(clang_module, "  ret void") - clang_module);
  ck_assert_uint_eq(cuplug__ir_slice(&m, at, at + 10, &toks), 2);
  ASSERT_TOK(m.text, toks[0], IR_WORD, "ret");
  ASSERT_TOK(m.text, toks[1], IR_WORD, "void");
  ck_assert(toks[0].bol);
  cuplug__ir_module_free(&m);
}
END_TEST

START_TEST(module_unclosed_body) {
  ir_module m;
  static const char brace_line[] = "target triple = \"x\"\ndefine void @f() {\nentry:\n  ret void\n";
  T_ASSERT_ERROR(cuplug__ir_module_parse(&m, "u.ll", brace_line, strlen(brace_line), NULL),
                 CUPLUG_ERR_IR_PARSE,
                 "u.ll:2: unbalanced brackets: the item that starts here is never closed");
  ck_assert_uint_eq(m.num_items, 0);
  ck_assert_ptr_null(m.toks);
  static const char numba_style[] = "define void @f()\n{\n  ret void\n";
  T_ASSERT_ERROR(cuplug__ir_module_parse(&m, "v.ll", numba_style, strlen(numba_style), NULL),
                 CUPLUG_ERR_IR_PARSE,
                 "v.ll:1: unbalanced brackets: the item that starts here is never closed");
  static const char global[] = "@a = global [2 x i32] [i32 1,\n";
  T_ASSERT_ERROR(cuplug__ir_module_parse(&m, "w.ll", global, strlen(global), NULL), CUPLUG_ERR_IR_PARSE,
                 "w.ll:1: unbalanced brackets: the item that starts here is never closed");
}
END_TEST

/* Metadata and attribute-group numbers are LLVM's 32 bits: a larger one
 * (fuzzing found !0888...8) is refused before a rewrite numbers after it. */
START_TEST(module_numbers_beyond_32_bits) {
  ir_module m;
  static const char meta[] = "!0 = !{}\n!4294967296 = !{}\n";
  T_ASSERT_ERROR(cuplug__ir_module_parse(&m, "m.ll", meta, strlen(meta), NULL),
                 CUPLUG_ERR_IR_PARSE, "m.ll:2: !4294967296...: the number is beyond 32 bits");
  static const char attrs[] = "attributes #99999999999999999999999999 = { nounwind }\n";
  T_ASSERT_ERROR(cuplug__ir_module_parse(&m, "a.ll", attrs, strlen(attrs), NULL),
                 CUPLUG_ERR_IR_PARSE,
                 "a.ll:1: #999999999999999999999999...: the number is beyond 32 bits");
  m = parse_module("ok.ll", "!4294967295 = !{}\n");
  ck_assert_int_eq(m.max_meta, 4294967295L);
  cuplug__ir_module_free(&m);
}
END_TEST

START_TEST(module_empty) {
  ir_module m = parse_module("e.ll", "; nothing but a comment\n\n");
  ck_assert_uint_eq(m.num_items, 0);
  ck_assert_uint_eq(m.num_toks, 0);
  ck_assert_int_eq(m.max_meta, -1);
  ck_assert_int_eq(m.max_attrs, -1);
  cuplug__ir_module_free(&m);
}
END_TEST

/* ---- function headers ---- */

static const char headers[] =
    "define linkonce_odr zeroext i1 @\"f\\22q\"(i32 %\"x\", float* nocapture readonly %p, "
    "i8 signext, ...) unnamed_addr #0 !dbg !5 {\n"
    "  ret i1 0\n"
    "}\n"
    "define internal { float, float } @g({ float, float }* %a, <4 x float> %v, "
    "void (i32)* %fp) {\n"
    "  ret { float, float } zeroinitializer\n"
    "}\n"
    "declare i32 @d(i32, i8* nonnull) #1\n"
    "declare void @e()\n"
    "define dso_local noalias align 8 i8* @h() local_unnamed_addr {\n"
    "  ret i8* null\n"
    "}\n";

static ir_function parse_fn(const ir_module *m, size_t item) {
  ir_function fn;
  T_ASSERT_OK(cuplug__ir_function_parse(m, &m->items[item], &fn));
  return fn;
}

static void assert_param(const char *text, const ir_param *p, const char *all,
                         const char *type, const char *name) {
  ASSERT_SPAN(text, p->all, all);
  ASSERT_SPAN(text, p->type, type);
  if (name)
    ASSERT_TOK(text, p->name, IR_LOCAL, name);
  else
    ck_assert_int_eq(p->name.kind, IR_EOF);
}

START_TEST(header_with_attributes_and_varargs) {
  ir_module m = parse_module("h.ll", headers);
  ir_function fn = parse_fn(&m, 0);
  ASSERT_SPAN(headers, fn.linkage, "linkonce_odr");
  ASSERT_SPAN(headers, fn.ret_attrs, "zeroext ");
  ASSERT_SPAN(headers, fn.ret_type, "i1");
  ASSERT_TOK(headers, fn.name, IR_GLOBAL, "@\"f\\22q\"");
  ck_assert(cuplug__ir_tok_names(headers, fn.name, "f\"q"));
  ck_assert_uint_eq(fn.num_params, 3);
  assert_param(headers, &fn.params[0], "i32 %\"x\"", "i32", "%\"x\"");
  assert_param(headers, &fn.params[1], "float* nocapture readonly %p", "float*", "%p");
  assert_param(headers, &fn.params[2], "i8 signext", "i8", NULL);
  ck_assert(fn.varargs);
  ck_assert_uint_eq(fn.params_open, strchr(headers, '(') - headers);
  ck_assert_uint_eq(fn.params_close, strstr(headers, ") unnamed_addr") - headers);
  ASSERT_SPAN(headers, fn.fn_attrs, "unnamed_addr #0 !dbg !5 ");
  ck_assert_uint_eq(fn.body_open, strstr(headers, "!5 {") + 3 - headers);
  ck_assert_uint_eq(fn.body_close, strstr(headers, "}\n") - headers);
  ck_assert(cuplug__ir_tok_is(headers, m.toks[fn.body_first], "ret"));
  ck_assert_uint_eq(fn.body_last, m.items[0].last - 1);
  cuplug__ir_function_free(&fn);
  cuplug__ir_module_free(&m);
}
END_TEST

START_TEST(header_with_struct_return_and_type_params) {
  ir_module m = parse_module("h.ll", headers);
  ir_function fn = parse_fn(&m, 1);
  ASSERT_SPAN(headers, fn.linkage, "internal");
  ASSERT_SPAN(headers, fn.ret_attrs, "");
  ck_assert_uint_eq(fn.ret_attrs.start, fn.ret_type.start);
  ASSERT_SPAN(headers, fn.ret_type, "{ float, float }");
  ASSERT_TOK(headers, fn.name, IR_GLOBAL, "@g");
  ck_assert_uint_eq(fn.num_params, 3);
  assert_param(headers, &fn.params[0], "{ float, float }* %a", "{ float, float }*", "%a");
  assert_param(headers, &fn.params[1], "<4 x float> %v", "<4 x float>", "%v");
  assert_param(headers, &fn.params[2], "void (i32)* %fp", "void (i32)*", "%fp");
  ck_assert(!fn.varargs);
  ASSERT_SPAN(headers, fn.fn_attrs, "");
  ck_assert_uint_eq(fn.body_open, fn.fn_attrs.start);
  ck_assert_uint_eq(headers[fn.body_open], '{');
  ck_assert_uint_eq(headers[fn.body_close], '}');
  ASSERT_SPAN(headers, ((ir_span){fn.body_open, fn.body_close + 1}),
              "{\n  ret { float, float } zeroinitializer\n}");
  cuplug__ir_function_free(&fn);
  cuplug__ir_module_free(&m);
}
END_TEST

START_TEST(header_of_declares) {
  ir_module m = parse_module("h.ll", headers);
  ir_function d = parse_fn(&m, 2);
  ck_assert_uint_eq(d.linkage.start, d.linkage.end);
  ASSERT_SPAN(headers, d.ret_type, "i32");
  ck_assert_uint_eq(d.num_params, 2);
  assert_param(headers, &d.params[0], "i32", "i32", NULL);
  assert_param(headers, &d.params[1], "i8* nonnull", "i8*", NULL);
  ASSERT_SPAN(headers, d.fn_attrs, "#1");
  ck_assert_uint_eq(d.body_open, 0);
  ck_assert_uint_eq(d.body_close, 0);
  ir_stmt_cursor cursor = {0};
  ir_stmt s;
  ck_assert(!cuplug__ir_next_stmt(&m, &d, &cursor, &s));
  cuplug__ir_function_free(&d);

  ir_function e = parse_fn(&m, 3);
  ck_assert_uint_eq(e.num_params, 0);
  ck_assert(!e.varargs);
  ASSERT_SPAN(headers, e.fn_attrs, "");
  ASSERT_SPAN(headers, ((ir_span){e.params_open, e.params_close + 1}), "()");
  cuplug__ir_function_free(&e);
  cuplug__ir_module_free(&m);
}
END_TEST

START_TEST(header_with_prefix_words) {
  ir_module m = parse_module("h.ll", headers);
  ir_function fn = parse_fn(&m, 4);
  ck_assert_uint_eq(fn.linkage.start, fn.linkage.end);
  ASSERT_SPAN(headers, fn.ret_attrs, "noalias align 8 ");
  ASSERT_SPAN(headers, fn.ret_type, "i8*");
  ASSERT_TOK(headers, fn.name, IR_GLOBAL, "@h");
  ck_assert_uint_eq(fn.num_params, 0);
  ASSERT_SPAN(headers, fn.fn_attrs, "local_unnamed_addr ");
  cuplug__ir_function_free(&fn);
  cuplug__ir_module_free(&m);
}
END_TEST

START_TEST(header_of_numba_layout) {
  ir_module m = parse_module("add.ll", numba_module);
  ir_function fn = parse_fn(&m, 3);
  ASSERT_SPAN(numba_module, fn.ret_type, "i32");
  ck_assert_uint_eq(fn.num_params, 3);
  assert_param(numba_module, &fn.params[0], "i64* %\".ret\"", "i64*", "%\".ret\"");
  ASSERT_SPAN(numba_module, fn.fn_attrs, ""); /* nothing between ')' and '{' */
  ck_assert_uint_eq(fn.body_open, strstr(numba_module, ")\n{") + 2 - numba_module);
  ck_assert_uint_eq(fn.body_close, strstr(numba_module, "}\n") - numba_module);
  cuplug__ir_function_free(&fn);
  cuplug__ir_module_free(&m);
}
END_TEST

START_TEST(header_with_address_spaces) {
  static const char text[] =
      "define float addrspace(1)* @as(float addrspace(1)* %p, i8 addrspace(3)* nocapture) {\n"
      "  ret float addrspace(1)* %p\n"
      "}\n";
  ir_module m = parse_module("as.ll", text);
  ir_function fn = parse_fn(&m, 0);
  ASSERT_SPAN(text, fn.ret_type, "float addrspace(1)*");
  ASSERT_TOK(text, fn.name, IR_GLOBAL, "@as");
  ck_assert_uint_eq(fn.num_params, 2);
  assert_param(text, &fn.params[0], "float addrspace(1)* %p", "float addrspace(1)*", "%p");
  assert_param(text, &fn.params[1], "i8 addrspace(3)* nocapture", "i8 addrspace(3)*", NULL);
  cuplug__ir_function_free(&fn);
  cuplug__ir_module_free(&m);
}
END_TEST

static void assert_header_error(const char *text, const char *message) {
  ir_module m = parse_module("bad.ll", text);
  ir_function fn;
  T_ASSERT_ERROR(cuplug__ir_function_parse(&m, &m.items[0], &fn), CUPLUG_ERR_IR_PARSE, message);
  ck_assert_ptr_null(fn.params);
  cuplug__ir_module_free(&m);
}

START_TEST(header_errors) {
  assert_header_error("define void f() {\n}\n",
                      "bad.ll:1: function @: expected the function's @name after its return type");
  assert_header_error("define @f() {\n}\n", "bad.ll:1: function @f: cannot read the return type");
  assert_header_error("define void @f {\n}\n",
                      "bad.ll:1: function @f: expected '(' after the function's name");
  assert_header_error("define void @f()\n", "bad.ll:1: function @f: expected '{' opening the body");
  assert_header_error("define void @f(i32 %a, = ) {\n}\n",
                      "bad.ll:1: function @f: cannot read a parameter's type");
}
END_TEST

/* ---- statements ---- */

#define SWITCH_LINES                                                           \
  "  switch i32 %n, label %d [\n"                                              \
  "    i32 0, label %\"q\"\n"                                                  \
  "    i32 1, label %5\n"                                                      \
  "  ]  ; the switch\n"

static const char body_module[] =
    "define void @k(i32 %n) {\n"
    "entry:\n"
    SWITCH_LINES
    "5:                     ; preds = %entry\n"
    "  br label %d ; go\n"
    "\"q\":\n"
    "  %x = add i32 %n, 1\n"
    "  br label %d\n"
    "d:\n"
    "  ret void\n"
    "}\n";

START_TEST(statements_of_a_body) {
  static const struct {
    size_t n;
    const char *text, *line;
  } want[] = {
      {2, "entry:", "entry:\n"},
      {18,
       "switch i32 %n, label %d [\n    i32 0, label %\"q\"\n    i32 1, label %5\n  ]",
       SWITCH_LINES},
      {2, "5:", "5:                     ; preds = %entry\n"},
      {3, "br label %d", "  br label %d ; go\n"},
      {2, "\"q\":", "\"q\":\n"},
      {7, "%x = add i32 %n, 1", "  %x = add i32 %n, 1\n"},
      {3, "br label %d", "  br label %d\n"},
      {2, "d:", "d:\n"},
      {2, "ret void", "  ret void\n"},
  };
  ir_module m = parse_module("k.ll", body_module);
  ir_function fn = parse_fn(&m, 0);
  size_t count = 0;
  ir_stmt_cursor cursor = {0};
  ir_stmt s;
  while (cuplug__ir_next_stmt(&m, &fn, &cursor, &s)) {
    ck_assert_uint_lt(count, sizeof want / sizeof want[0]);
    ck_assert_uint_eq(s.n, want[count].n);
    if (count == 0) ck_assert_ptr_eq(s.toks, m.toks + fn.body_first);
    ck_assert_uint_eq(s.toks[0].start, s.start);
    ck_assert_str_eq(span(body_module, s.start, s.end), want[count].text);
    size_t line_start, line_end;
    cuplug__ir_stmt_lines(&m, &fn, &s, &line_start, &line_end);
    ck_assert_str_eq(span(body_module, line_start, line_end), want[count].line);
    count++;
  }
  ck_assert_uint_eq(count, sizeof want / sizeof want[0]);
  ck_assert(!cuplug__ir_next_stmt(&m, &fn, &cursor, &s));
  cuplug__ir_function_free(&fn);
  cuplug__ir_module_free(&m);
}
END_TEST

START_TEST(statement_on_the_brace_line) {
  static const char text[] = "define void @z() { ret void }\n";
  ir_module m = parse_module("z.ll", text);
  ir_function fn = parse_fn(&m, 0);
  ir_stmt_cursor cursor = {0};
  ir_stmt s;
  ck_assert(cuplug__ir_next_stmt(&m, &fn, &cursor, &s));
  ck_assert_uint_eq(s.n, 2);
  ck_assert_str_eq(span(text, s.start, s.end), "ret void");
  size_t line_start, line_end; /* deleting it leaves the header and the '}' */
  cuplug__ir_stmt_lines(&m, &fn, &s, &line_start, &line_end);
  ck_assert_str_eq(span(text, line_start, line_end), "ret void");
  ck_assert(!cuplug__ir_next_stmt(&m, &fn, &cursor, &s));
  cuplug__ir_function_free(&fn);
  cuplug__ir_module_free(&m);
}
END_TEST

/* A label and a statement on one line; the statement after the label's
 * line starts one; an unbalanced ')' closes nothing of the statement's. */
START_TEST(statements_after_labels_on_their_line) {
  static const char text[] =
      "define void @z(i32 %n) {\n"
      "L: %x = add i32 %n, 1\n"
      "  br label %M\n"
      "M: ret void )\n"
      "  unreachable\n"
      "}\n";
  static const char *const want[] = {"L:", "%x = add i32 %n, 1", "br label %M", "M:",
                                     "ret void )", "unreachable"};
  /* what deleting each deletes: a label before a statement stays */
  static const char *const lines[] = {"L:",            "%x = add i32 %n, 1\n",
                                      "  br label %M\n", "M:",
                                      "ret void )\n",   "  unreachable\n"};
  ir_module m = parse_module("z.ll", text);
  ir_function fn = parse_fn(&m, 0);
  ir_stmt_cursor cursor = {0};
  ir_stmt s;
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    ck_assert(cuplug__ir_next_stmt(&m, &fn, &cursor, &s));
    ck_assert_str_eq(span(text, s.start, s.end), want[i]);
    size_t line_start, line_end;
    cuplug__ir_stmt_lines(&m, &fn, &s, &line_start, &line_end);
    ck_assert_str_eq(span(text, line_start, line_end), lines[i]);
  }
  ck_assert(!cuplug__ir_next_stmt(&m, &fn, &cursor, &s));
  cuplug__ir_function_free(&fn);
  cuplug__ir_module_free(&m);
}
END_TEST

/* The lexer's lines: each line's first token and the depth before it. */
START_TEST(lines_of_a_text) {
  static const char text[] = "a (b\n c) d\n\n  e ; (\n{\n}\n[";
  ir_tokens t;
  T_ASSERT_OK(cuplug__ir_lex("l.ll", text, strlen(text), NULL, &t));
  ck_assert_uint_eq(t.num_toks, 10); /* a ( b c ) d e { } [ */
  static const ir_line want[] = {{0, 0}, {3, 1}, {6, 0}, {7, 0}, {8, 1}, {9, 0}};
  ck_assert_uint_eq(t.num_lines, 6);
  for (size_t i = 0; i < 6; i++) {
    ck_assert_uint_eq(t.lines[i].tok, want[i].tok);
    ck_assert_int_eq(t.lines[i].depth, want[i].depth);
  }
  ck_assert_int_eq(t.end_depth, 1);
  cuplug__ir_tokens_free(&t);
  ck_assert_ptr_null(t.lines);
}
END_TEST

/* The whole-text lexer (cuplug__ir_lex, which also notes lines, depths and
 * the nesting limit) and the one-token lexer (cuplug__ir_next) share
 * lex_token but not the loops around it: their tokens must agree, and the
 * lines must be those the tokens' bol flags and depths give, whatever the
 * text.  Returns whether the text kept to the nesting limit. */
static bool assert_lex_is_next(const char *text, size_t len) {
  ir_tokens got;
  cuplug_error *e = cuplug__ir_lex("d.ll", text, len, NULL, &got);
  cuplug_error *limits = cuplug__ir_check_limits("d.ll", text, len);
  ck_assert_msg(!e == !limits, "lex %s, the limits scan %s", e ? e->message : "ok",
                limits ? limits->message : "ok");
  cuplug__error_destroy(limits);
  if (e) {
    cuplug__error_destroy(e);
    return false;
  }
  ir_lexer lx;
  cuplug__ir_lexer_init(&lx, text, len, 0);
  size_t lines = 0;
  int32_t depth = 0;
  for (size_t i = 0;; i++) {
    ir_tok want = cuplug__ir_next(&lx);
    if (want.kind == IR_EOF) {
      ck_assert_uint_eq(got.num_toks, i);
      break;
    }
    /* Check's assertions each report to the test's parent when they
     * pass: a text's tokens are compared plainly, and fail through it */
    if (i >= got.num_toks) ck_abort_msg("token %zu at %u missing", i, want.start);
    ir_tok t = got.toks[i];
    if (t.start != want.start || t.len != want.len || t.kind != want.kind ||
        t.bol != want.bol || t.depth != want.depth)
      ck_abort_msg("token %zu: at %u, %u bytes, kind %d, bol %d, depth %d; the one-token "
                   "lexer's at %u, %u bytes, kind %d, bol %d, depth %d",
                   i, t.start, t.len, t.kind, t.bol, t.depth, want.start, want.len, want.kind,
                   want.bol, want.depth);
    if (t.bol) {
      if (lines >= got.num_lines || got.lines[lines].tok != i ||
          got.lines[lines].depth != depth)
        ck_abort_msg("line %zu (token %zu, depth %d): the lexer has %zu lines, this one at "
                     "token %u, depth %d",
                     lines, i, (int)depth, got.num_lines,
                     lines < got.num_lines ? got.lines[lines].tok : 0u,
                     lines < got.num_lines ? (int)got.lines[lines].depth : 0);
      lines++;
    }
    depth += t.depth;
  }
  ck_assert_uint_eq(got.num_lines, lines);
  ck_assert_int_eq(got.end_depth, depth);
  cuplug__ir_tokens_free(&got);
  return true;
}

/* Texts that take each branch of the lexer, joined in pairs, after a blank
 * or not, and cut short by up to 7 bytes. */
START_TEST(lex_matches_the_one_token_lexer) {
  static const char *const pieces[] = {
      "%\"a b\" c\"x\" !\"m\" \"s\" cc c d $x _y",
      "#1 #a #1a -1 -x +1 + - 1.5e+2 1.e 1e 1e+ 0x3FFK 0xH3C00 12abc 12.5.6 007 0 9",
      ". .. ... .x ....",
      "a;comment \" ( [\n b ; \n;\n\n  c",
      "!{!0, !\"x\"} ! !! !a.b\\c %12 @0 % @ %% @@ %\"\" @\"\"",
      "<{ i32, [2 x <4 x float>] }> ) ) ] } > > ( [ {",
      "\t\r\f\v x \x7f \x80\xff y * = , : | ^ & ' ?",
      "define void @k(float* %\"out.1\") {\nentry:\n  %\".5\" = fadd float 1.0, 2.0\n  ret void\n}\n",
      "averyveryveryveryveryveryveryveryveryveryveryveryveryveryverylongwordofninetybytesorso"
      "                                                                          x\n\n\n"
      "\n                                                                       y",
  };
  char text[1024];
  for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++)
    for (size_t j = 0; j < sizeof pieces / sizeof pieces[0]; j++)
      for (size_t at = 0; at < 2; at++) {
        int n = snprintf(text, sizeof text, "%*s%s\n%s", (int)at, "", pieces[i], pieces[j]);
        ck_assert_int_lt(n, (int)sizeof text);
        assert_lex_is_next(text, (size_t)n);
        for (int cut = 1; cut < 8 && cut < n; cut++) { /* ended mid-token */
          char c = text[n - cut];
          text[n - cut] = '\0';
          assert_lex_is_next(text, (size_t)(n - cut));
          text[n - cut] = c;
        }
      }
  /* unterminated quotes, a NUL inside the length, an empty text */
  static const char open[] = "x %\"a name left open, to the text's end";
  assert_lex_is_next(open, strlen(open));
  static const char nul[] = "a b\0c d";
  assert_lex_is_next(nul, sizeof nul - 1);
  assert_lex_is_next("", 0);
  /* brackets at the nesting limit and one past it, at once or only after
   * some have closed; both lexers must hold the same line */
  static char deep[4 * CUPLUG_MAX_IR_NESTING];
  for (int extra = 0; extra < 2; extra++) {
    size_t n = 0;
    for (int i = 0; i < CUPLUG_MAX_IR_NESTING + extra; i++) deep[n++] = "([{<"[i % 4];
    ck_assert(assert_lex_is_next(deep, n) == !extra);
    n = 0;
    for (int i = 0; i < CUPLUG_MAX_IR_NESTING - 1; i++) deep[n++] = '(';
    deep[n++] = ')';
    deep[n++] = '\n';
    deep[n++] = '[';
    deep[n++] = '['; /* at the limit */
    deep[n++] = ']';
    for (int i = 0; i < 1 + extra; i++) deep[n++] = '{';
    ck_assert(assert_lex_is_next(deep, n) == !extra);
  }
}
END_TEST

/* The same over the corpus, and over its texts mutated at random: bytes
 * swapped for the bytes the lexers branch on. */
START_TEST(lex_matches_the_one_token_lexer_on_the_corpus) {
  static const char *const cases[] = {"add_i32", "k_atomic", "k_reduce", "saxpy_kernel",
                                      "poly_f64", "dev_ext_i32"};
  static const char alphabet[] = "\"%@!c#-+.;0x1eE ()[]{}<>\n\t,=*\\_$a\x80";
  uint64_t seed = 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char path[128];
    snprintf(path, sizeof path, "conformance/numba/%s/input.ll", cases[i]);
    size_t size;
    char *text = t_read(t_path(path), &size);
    assert_lex_is_next(text, size);
    for (int round = 0; round < 40; round++) {
      for (int k = 0; k < 24; k++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        text[(seed >> 33) % size] = alphabet[(seed >> 17) % (sizeof alphabet - 1)];
      }
      assert_lex_is_next(text, size);
    }
    free(text);
  }
}
END_TEST

/* numba-cuda's own output for add_i32, from the conformance corpus. */
START_TEST(conformance_add_i32) {
  size_t size;
  char *text = t_read(t_path("conformance/numba/add_i32/input.ll"), &size);
  ir_module m;
  T_ASSERT_OK(cuplug__ir_module_parse(&m, "add_i32", text, size, NULL));
  ck_assert_uint_eq(m.num_items, 6);
  static const ir_item_kind kinds[] = {IR_ITEM_TARGET, IR_ITEM_TARGET, IR_ITEM_GLOBAL,
                                       IR_ITEM_DEFINE, IR_ITEM_NAMED_META, IR_ITEM_META};
  for (size_t i = 0; i < 6; i++) ck_assert_int_eq(m.items[i].kind, kinds[i]);
  const char *sym =
      "_ZN8__main__7add_i32B2v1B88cw51cXTLSUwv1sDUaKthqaNgoKmjgOR3W3CwAkMXLaJtQYkOIgxJU0gCqOkEJoHk"
      "bttqdSBL3UrBuFYTAA_3d_3dEii";
  ck_assert_str_eq(m.items[3].name, sym);
  ck_assert(cuplug__ir_text_defines(text, size, sym));
  ck_assert_int_eq(m.max_meta, 0);
  ir_function fn = parse_fn(&m, 3);
  ASSERT_SPAN(text, fn.ret_type, "i32");
  ck_assert_uint_eq(fn.num_params, 3);
  assert_param(text, &fn.params[2], "i32 %\"y\"", "i32", "%\"y\"");
  static const char *const firsts[] = {"entry", "br", "B0", "%\".5\"", "%\".6\"",
                                       "%\".7\"", "store", "ret"};
  size_t count = 0;
  ir_stmt_cursor cursor = {0};
  ir_stmt st;
  while (cuplug__ir_next_stmt(&m, &fn, &cursor, &st)) {
    ck_assert_uint_lt(count, 8);
    ck_assert_str_eq(span(text, st.toks[0].start, st.toks[0].start + st.toks[0].len),
                     firsts[count]);
    count++;
  }
  ck_assert_uint_eq(count, 8);
  cuplug__ir_function_free(&fn);
  cuplug__ir_module_free(&m);
  free(text);
}
END_TEST

/* ---- edits ---- */

static const char digits[] = "0123456789";

/* Applies e to digits; the result, or NULL with the error checked. */
static const char *apply(ir_edits *e) {
  static char out[256];
  cuplug__buf b;
  cuplug__buf_init(&b);
  T_ASSERT_OK(cuplug__ir_edits_apply(e, digits, strlen(digits), &b));
  snprintf(out, sizeof out, "%s", b.data ? b.data : "");
  cuplug__buf_free(&b);
  cuplug__ir_edits_free(e);
  return out;
}

START_TEST(edits_insert_replace_delete) {
  ir_edits e;
  cuplug__ir_edits_init(&e);
  cuplug__ir_edit_delete(&e, 8, 10);
  cuplug__ir_edit_replace(&e, 4, 6, "<r>");
  cuplug__ir_edit_insert(&e, 0, "^");
  cuplug__ir_edit_insert(&e, 2, "+");
  ck_assert_str_eq(apply(&e), "^01+23<r>67");
  ck_assert_uint_eq(e.n, 0);

  cuplug__ir_edits_init(&e);
  ck_assert_str_eq(apply(&e), "0123456789");

  cuplug__ir_edits_init(&e);
  cuplug__ir_edit_insert(&e, 10, "$");
  cuplug__ir_edit_replace(&e, 0, 10, NULL);
  ck_assert_str_eq(apply(&e), "$");
}
END_TEST

/* Edits made in any order apply in text order, for a short list (sorted by
 * insertion) and a long one (by qsort) alike: each of n edits replaces one
 * letter of the alphabet by its capital and inserts a '.' before it, made
 * forwards, backwards and interleaved. */
START_TEST(edits_in_any_order) {
  static const char letters[] = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz";
  const size_t counts[] = {5, 16, 17, 52}; /* 10, 32, 34 and 104 edits */
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
    size_t n = counts[c];
    char want[2 * sizeof letters];
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
      want[w++] = '.';
      want[w++] = (char)(letters[i] - 'a' + 'A');
    }
    strcpy(want + w, letters + n);
    for (int order = 0; order < 3; order++) {
      ir_edits e;
      cuplug__ir_edits_init(&e);
      for (size_t k = 0; k < n; k++) {
        size_t i = order == 0 ? k : order == 1 ? n - 1 - k : (k % 2 ? n - 1 - k / 2 : k / 2);
        char cap[2] = {(char)(letters[i] - 'a' + 'A'), '\0'};
        cuplug__ir_edit_replace(&e, i, i + 1, cap);
        cuplug__ir_edit_insert(&e, i, ".");
      }
      cuplug__buf b;
      cuplug__buf_init(&b);
      T_ASSERT_OK(cuplug__ir_edits_apply(&e, letters, strlen(letters), &b));
      ck_assert_msg(strcmp(b.data, want) == 0, "%zu edits, order %d: %s", n, order, b.data);
      cuplug__buf_free(&b);
      cuplug__ir_edits_free(&e);
    }
  }
}
END_TEST

START_TEST(edits_at_equal_offsets) {
  ir_edits e;
  cuplug__ir_edits_init(&e);
  /* insertions first, in the order they were made */
  cuplug__ir_edit_replace(&e, 2, 4, "R");
  cuplug__ir_edit_insert(&e, 2, "a");
  cuplug__ir_edit_insert(&e, 2, "b");
  ck_assert_str_eq(apply(&e), "01abR456789");

  /* of two replacements at one start the longer wins */
  cuplug__ir_edits_init(&e);
  cuplug__ir_edit_replace(&e, 2, 4, "short");
  cuplug__ir_edit_replace(&e, 2, 6, "LONG");
  ck_assert_str_eq(apply(&e), "01LONG6789");

  /* of two equal ones, the first made */
  cuplug__ir_edits_init(&e);
  cuplug__ir_edit_replace(&e, 2, 4, "first");
  cuplug__ir_edit_replace(&e, 2, 4, "second");
  ck_assert_str_eq(apply(&e), "01first456789");

  /* an insertion at the end of a replaced span is kept */
  cuplug__ir_edits_init(&e);
  cuplug__ir_edit_insert(&e, 4, "|");
  cuplug__ir_edit_replace(&e, 2, 4, "R");
  ck_assert_str_eq(apply(&e), "01R|456789");
}
END_TEST

START_TEST(edits_nested_are_dropped) {
  ir_edits e;
  cuplug__ir_edits_init(&e);
  cuplug__ir_edit_delete(&e, 3, 4);
  cuplug__ir_edit_insert(&e, 5, "x");
  cuplug__ir_edit_replace(&e, 1, 8, "Z");
  cuplug__ir_edit_replace(&e, 6, 8, "y");
  ck_assert_str_eq(apply(&e), "0Z89");
}
END_TEST

START_TEST(edits_overlapping_fail) {
  ir_edits e;
  cuplug__buf b;
  cuplug__ir_edits_init(&e);
  cuplug__buf_init(&b);
  cuplug__ir_edit_replace(&e, 2, 5, "A");
  cuplug__ir_edit_replace(&e, 4, 8, "B");
  T_ASSERT_ERROR(cuplug__ir_edits_apply(&e, digits, strlen(digits), &b), CUPLUG_ERR_IR_UNSUPPORTED,
                 "internal error: overlapping IR edits at byte 4");
  cuplug__ir_edits_free(&e);
  cuplug__buf_free(&b);

  cuplug__ir_edits_init(&e);
  cuplug__ir_edit_replace(&e, 8, 12, "past the end");
  T_ASSERT_ERROR(cuplug__ir_edits_apply(&e, digits, strlen(digits), &b), CUPLUG_ERR_IR_UNSUPPORTED,
                 "internal error: an IR edit of bytes 8..12 outside the text of 10 bytes");
  cuplug__ir_edits_free(&e);
  cuplug__buf_free(&b);
}
END_TEST

/* ---- rewrites ---- */

static char *finish(ir_rewrite *rw) {
  char *out = NULL;
  size_t len = 0;
  T_ASSERT_OK(cuplug__ir_rewrite_finish(rw, &out, &len));
  ck_assert_uint_eq(len, strlen(out));
  return out;
}

START_TEST(rewrite_fresh_ids) {
  ir_rewrite rw;
  T_ASSERT_OK(cuplug__ir_rewrite_begin(&rw, "k.ll", clang_module, strlen(clang_module), NULL));
  ck_assert_int_eq(cuplug__ir_rewrite_meta_id(&rw), 13);
  ck_assert_int_eq(cuplug__ir_rewrite_meta_id(&rw), 14);
  ck_assert_int_eq(cuplug__ir_rewrite_attrs_id(&rw), 4);
  cuplug__ir_rewrite_abort(&rw);

  static const char bare[] = "define void @f() {\n  ret void\n}\n";
  T_ASSERT_OK(cuplug__ir_rewrite_begin(&rw, "b.ll", bare, strlen(bare), NULL));
  ck_assert_int_eq(cuplug__ir_rewrite_meta_id(&rw), 0);
  ck_assert_int_eq(cuplug__ir_rewrite_attrs_id(&rw), 0);
  ck_assert_int_eq(cuplug__ir_rewrite_attrs_id(&rw), 1);
  cuplug__ir_rewrite_abort(&rw);
}
END_TEST

START_TEST(rewrite_appends_to_named_meta) {
  static const char text[] =
      "define void @f() {\n"
      "  ret void\n"
      "}\n"
      "!nvvm.annotations = !{!1}\n"
      "!1 = !{void ()* @f, !\"kernel\", i32 1}\n";
  ir_rewrite rw;
  T_ASSERT_OK(cuplug__ir_rewrite_begin(&rw, "a.ll", text, strlen(text), NULL));
  long a = cuplug__ir_rewrite_meta_id(&rw), b = cuplug__ir_rewrite_meta_id(&rw);
  cuplug__ir_rewrite_named_meta(&rw, "nvvm.annotations", a);
  cuplug__ir_rewrite_named_meta(&rw, "nvvm.annotations", b);
  cuplug__buf_printf(&rw.tail, "!%ld = !{}\n!%ld = !{}\n", a, b);
  const char *ret = strstr(text, "ret void");
  cuplug__ir_edit_insert(&rw.edits, (size_t)(ret - text) + 8, " ; done");
  char *out = finish(&rw);
  ck_assert_str_eq(out,
                   "define void @f() {\n"
                   "  ret void ; done\n"
                   "}\n"
                   "!nvvm.annotations = !{!1, !2, !3}\n"
                   "!1 = !{void ()* @f, !\"kernel\", i32 1}\n"
                   "!2 = !{}\n"
                   "!3 = !{}\n");
  free(out);
}
END_TEST

START_TEST(rewrite_creates_named_meta) {
  static const char text[] = "!0 = !{i32 2, i32 0}"; /* no final newline */
  ir_rewrite rw;
  T_ASSERT_OK(cuplug__ir_rewrite_begin(&rw, "c.ll", text, strlen(text), NULL));
  long id = cuplug__ir_rewrite_meta_id(&rw);
  ck_assert_int_eq(id, 1);
  cuplug__ir_rewrite_named_meta(&rw, "nvvmir.version", 0);
  cuplug__ir_rewrite_named_meta(&rw, "nvvm.annotations", id);
  char *out = finish(&rw);
  ck_assert_str_eq(out,
                   "!0 = !{i32 2, i32 0}\n"
                   "!nvvmir.version = !{!0}\n"
                   "!nvvm.annotations = !{!1}\n");
  free(out);
}
END_TEST

START_TEST(rewrite_fills_an_empty_named_meta) {
  static const char text[] = "!llvm.used.list = !{}\n!4 = !{}\n";
  ir_rewrite rw;
  T_ASSERT_OK(cuplug__ir_rewrite_begin(&rw, "d.ll", text, strlen(text), NULL));
  cuplug__ir_rewrite_named_meta(&rw, "llvm.used.list", cuplug__ir_rewrite_meta_id(&rw));
  cuplug__ir_rewrite_named_meta(&rw, "llvm.used.list", cuplug__ir_rewrite_meta_id(&rw));
  char *out = finish(&rw);
  ck_assert_str_eq(out, "!llvm.used.list = !{!5, !6}\n!4 = !{}\n");
  free(out);
}
END_TEST

/* An item keeps its trailing comment; the new ids go into the list, not
 * into the comment. */
START_TEST(rewrite_named_meta_with_trailing_comment) {
  static const char text[] = "!nvvm.annotations = !{!1} ; kernels: {k}\n!1 = !{}\n";
  ir_rewrite rw;
  T_ASSERT_OK(cuplug__ir_rewrite_begin(&rw, "t.ll", text, strlen(text), NULL));
  cuplug__ir_rewrite_named_meta(&rw, "nvvm.annotations", cuplug__ir_rewrite_meta_id(&rw));
  char *out = finish(&rw);
  ck_assert_str_eq(out, "!nvvm.annotations = !{!1, !2} ; kernels: {k}\n!1 = !{}\n");
  free(out);
}
END_TEST

START_TEST(rewrite_of_bad_text) {
  static const char text[] = "define void @f() {\n";
  ir_rewrite rw;
  T_ASSERT_ERROR(cuplug__ir_rewrite_begin(&rw, "r.ll", text, strlen(text), NULL), CUPLUG_ERR_IR_PARSE,
                 "r.ll:1: unbalanced brackets: the item that starts here is never closed");
}
END_TEST

START_TEST(rewrite_overlap_is_reported) {
  ir_rewrite rw;
  T_ASSERT_OK(cuplug__ir_rewrite_begin(&rw, "b.ll", digits, strlen(digits), NULL));
  cuplug__ir_edit_replace(&rw.edits, 0, 5, "a");
  cuplug__ir_edit_replace(&rw.edits, 3, 7, "b");
  char *out = NULL;
  T_ASSERT_ERROR(cuplug__ir_rewrite_finish(&rw, &out, NULL), CUPLUG_ERR_IR_UNSUPPORTED,
                 "internal error: overlapping IR edits at byte 3");
  ck_assert_ptr_null(out);
}
END_TEST

/* ---- the watch list ---- */

START_TEST(watch_list_notes_set_words_and_globals) {
  static const char text[] =
      "define i32 @f(i32 %x) {\n"
      "  %a = add i32 %x, 1\n"
      "  %b = call i32 @\"g\"(i32 %a) ; mul in a comment\n"
      "  %c = fadd float 1.0, 2.0\n"
      "  %addx = sub i32 %b, %c\n"
      "  ret i32 %addx\n"
      "}\n";
  ir_module m;
  T_ASSERT_OK(cuplug__ir_module_parse(&m, "w.ll", text, strlen(text), &arith));
  ck_assert_ptr_eq(m.watch, &arith);
  const char *want[] = {"@f", "add", "@\"g\"", "fadd", "sub"};
  ck_assert_uint_eq(m.num_watched, 5);
  for (size_t i = 0; i < m.num_watched; i++) {
    ir_tok t = m.toks[m.watched[i]];
    ck_assert_int_eq((int)(t.len), (int)strlen(want[i]));
    ck_assert_msg(memcmp(text + t.start, want[i], t.len) == 0, "watched %zu is %.*s", i,
                  (int)t.len, text + t.start);
    if (i) ck_assert_uint_lt(m.watched[i - 1], m.watched[i]);
  }
  cuplug__ir_module_free(&m);
  T_ASSERT_OK(cuplug__ir_module_parse(&m, "w.ll", text, strlen(text), NULL));
  ck_assert_ptr_null(m.watched);
  ck_assert_uint_eq(m.num_watched, 0);
  cuplug__ir_module_free(&m);
}
END_TEST

/* ---- cuplug__ir_text_defines ---- */

static bool defines(const char *text, const char *symbol) {
  return cuplug__ir_text_defines(text, strlen(text), symbol);
}

START_TEST(text_defines) {
  ck_assert(defines("define i32 @f(i32 %x) {\n}\n", "f"));
  ck_assert(defines("define internal fastcc void @\"f\"() {\n}\n", "f"));
  ck_assert(defines("  define void @f.x()\n{\n}\n", "f.x"));
  ck_assert(defines(numba_module, "add"));
  ck_assert(!defines("declare i32 @f(i32)\n", "f"));
  ck_assert(!defines("define void @g() {\n  call void @f()\n}\n", "f"));
  /* a prefix of the defined name, or a suffix */
  ck_assert(!defines("define void @foobar() {\n}\n", "foo"));
  ck_assert(!defines("define void @foobar() {\n}\n", "bar"));
  ck_assert(!defines("define void @f.x() {\n}\n", "f"));
  ck_assert(!defines("define void @\"f.x\"() {\n}\n", "f"));
  ck_assert(!defines("define void @g() {\n}\n", ""));
  /* found after a mention that is not a definition */
  ck_assert(defines("declare void @f()\ndefine void @g() {\n  call void @f()\n}\n"
                    "define void @f() {\n}\n",
                    "f"));
}
END_TEST

START_TEST(text_defines_respects_len) {
  static const char text[] = "define void @ff() {\n}\n";
  ck_assert(cuplug__ir_text_defines(text, strlen(text), "ff"));
  ck_assert(cuplug__ir_text_defines(text, 14, "f")); /* the text ends after "@f" */
  ck_assert(!cuplug__ir_text_defines(text, 13, "f"));
}
END_TEST

/* every declared function, as the cache's key finds them: at a line's
 * start or after blanks, quoted names unescaped; "decl" elsewhere, a
 * declaration cut short or one beyond len is not one */
static void collect(void *ctx, const char *name, size_t n) {
  char *out = ctx;
  strncat(out, name, n);
  strcat(out, "|");
}

START_TEST(text_each_declared) {
  const char *text =
      "; declare @in_a_comment(i32)\n"
      "declare i32 @f(i32)\n"
      "define void @g() {\n"
      "  %declared = add i32 1, 2\n"
      "  ret void\n"
      "}\n"
      "  declare float @__cuplug_math.sin_23b4(float)\n"
      "declare void @\"with space\\22q\"()\n"
      "declaration_is_not_a_keyword\n"
      "declare i64 @last";
  char out[256] = "";
  cuplug__ir_text_each_declared(text, strlen(text), collect, out);
  ck_assert_str_eq(out, "f|__cuplug_math.sin_23b4|with space\"q|last|");
  out[0] = '\0';
  cuplug__ir_text_each_declared(text, strlen(text) - 5, collect, out); /* "@last" cut off */
  ck_assert_str_eq(out, "f|__cuplug_math.sin_23b4|with space\"q|");
}
END_TEST

START_TEST(text_references) {
  static const char text[] =
      "declare void @f()\n"
      "define void @g() {\n  call void @f()\n  call void @\"f\"()\n  call void @fg()\n}\n"
      "@t = global [1 x void ()*] [void ()* @f]\n"
      "; a comment names f, @f.x and @\"f.y\", and then @f, which counts: the look errs\n"
      "; towards more\n";
  ck_assert_uint_eq(cuplug__ir_text_references(text, strlen(text), "f"), 5);
  ck_assert_uint_eq(cuplug__ir_text_references(text, strlen(text), "g"), 1);
  ck_assert_uint_eq(cuplug__ir_text_references(text, strlen(text), "fg"), 1);
  ck_assert_uint_eq(cuplug__ir_text_references(text, strlen(text), "f.x"), 1);
  ck_assert_uint_eq(cuplug__ir_text_references(text, strlen(text), "h"), 0);
  ck_assert_uint_eq(cuplug__ir_text_references(text, strlen(text), ""), 0);
  ck_assert_uint_eq(cuplug__ir_text_references(text, 19, "f"), 1); /* the declare only */
}
END_TEST

/* ---- text builders: the formatting every rewrite uses ---- */

/* buf_printf's text against the C library's, for one format and its
 * arguments; both ways, the buffer's length is the text's. */
#define ASSERT_FORMATS_AS_LIBC(...)                                           \
  do {                                                                        \
    char want[512];                                                           \
    int n = snprintf(want, sizeof want, __VA_ARGS__);                         \
    cuplug__buf b;                                                            \
    cuplug__buf_init(&b);                                                     \
    cuplug__buf_puts(&b, "<");                                                \
    cuplug__buf_printf(&b, __VA_ARGS__);                                      \
    ck_assert_int_eq((int)b.len, n + 1);                                      \
    ck_assert_str_eq(b.data + 1, want);                                       \
    cuplug__buf_free(&b);                                                     \
  } while (0)

START_TEST(buf_printf_writes_what_libc_writes) {
  /* the conversions cuplug writes itself */
  ASSERT_FORMATS_AS_LIBC("plain text, no conversion");
  ASSERT_FORMATS_AS_LIBC("%s", "");
  ASSERT_FORMATS_AS_LIBC("define %s @\"%s\"(%s)%%", "i32", "f.x", "i8* %\"a\"");
  ASSERT_FORMATS_AS_LIBC("[%.*s]", 3, "abcdef");
  ASSERT_FORMATS_AS_LIBC("[%.*s]", 9, "abc");
  ASSERT_FORMATS_AS_LIBC("[%.*s]", 0, "abc");
  ASSERT_FORMATS_AS_LIBC("[%.*s]", -1, "abc"); /* a negative precision is none */
  ASSERT_FORMATS_AS_LIBC("%c%c%c", 'a', '%', '\x7f');
  ASSERT_FORMATS_AS_LIBC("%d %i %d %d", 0, -1, INT_MAX, INT_MIN);
  ASSERT_FORMATS_AS_LIBC("%u %u", 0u, UINT_MAX);
  ASSERT_FORMATS_AS_LIBC("!%ld = !{i32 %ld} %li", LONG_MIN, LONG_MAX, -42L);
  ASSERT_FORMATS_AS_LIBC("%lu %lu", 0ul, ULONG_MAX);
  ASSERT_FORMATS_AS_LIBC("%lld %lli %lld", LLONG_MIN, LLONG_MAX, 7LL);
  ASSERT_FORMATS_AS_LIBC("%llu", ULLONG_MAX);
  ASSERT_FORMATS_AS_LIBC("%zu %zd %zd", SIZE_MAX, (ptrdiff_t)-5, PTRDIFF_MAX);
  ASSERT_FORMATS_AS_LIBC("%%d%%%s%%", "x");
  /* the others go to vsnprintf, before and after the quick ones */
  ASSERT_FORMATS_AS_LIBC("%s \\%02X %s", "a", 0x22, "b");
  ASSERT_FORMATS_AS_LIBC("%d %5d %-3u| %x %g %s", 1, 42, 7u, 255u, 0.5, "end");
  ASSERT_FORMATS_AS_LIBC("%09ld %016llX %hhd %hu", 12L, 0xABCull, (signed char)-3,
                         (unsigned short)65535);
  ASSERT_FORMATS_AS_LIBC("%ls|%lc", L"w", (wint_t)L'c');
  /* longer than the C library path's first try of 256 bytes */
  char long_text[400];
  memset(long_text, 'y', sizeof long_text - 1);
  long_text[sizeof long_text - 1] = '\0';
  ASSERT_FORMATS_AS_LIBC("%s|%d", long_text, 3);
  ASSERT_FORMATS_AS_LIBC("%s|%x", long_text, 3u);
}
END_TEST

START_TEST(buf_printf_appends_to_what_is_there) {
  cuplug__buf b;
  cuplug__buf_init(&b);
  for (int i = 0; i < 100; i++) cuplug__buf_printf(&b, "%d,", i - 50);
  cuplug__buf_printf(&b, "%s", "!");
  /* -50..-10 take 4 bytes with their comma, -9..-1 3, 0..9 2, 10..49 3 */
  ck_assert_int_eq((int)b.len, 41 * 4 + 9 * 3 + 10 * 2 + 40 * 3 + 1);
  ck_assert_int_eq(strncmp(b.data, "-50,-49,", 8), 0);
  ck_assert_str_eq(b.data + b.len - 7, "48,49,!");
  cuplug__buf_free(&b);
}
END_TEST

START_TEST(decimal_digits) {
  char d[CUPLUG__DECIMAL_MAX];
  ck_assert_int_eq((int)cuplug__decimal(d, 0, false), 1);
  ck_assert_str_eq(d, "0");
  ck_assert_int_eq((int)cuplug__decimal(d, 0, true), 2); /* as asked: "-0" */
  ck_assert_str_eq(d, "-0");
  ck_assert_int_eq((int)cuplug__decimal(d, ULLONG_MAX, true), 21);
  ck_assert_str_eq(d, "-18446744073709551615");
  ck_assert_int_eq((int)cuplug__decimal(d, 1000, false), 4);
  ck_assert_str_eq(d, "1000");
}
END_TEST

Suite *suite_irtext(void) {
  Suite *s = suite_create("irtext");
  TCase *lex = t_tcase(s, "lexer", 0, NULL, NULL, 0);
  tcase_add_test(lex, lexer_kinds_starts_lengths);
  tcase_add_test(lex, lexer_token_texts);
  tcase_add_test(lex, lexer_labels_numbers_and_sigils);
  tcase_add_test(lex, lexer_unterminated_string_ends_at_the_end);
  tcase_add_test(lex, tok_is_and_punct);
  tcase_add_test(lex, tok_name_decodes);
  tcase_add_test(lex, tok_names_compares_decoded);
  tcase_add_test(lex, tok_names_stops_at_the_callers_nul);
  tcase_add_test(lex, tok_numbered);
  tcase_add_test(lex, put_name_quotes_and_escapes);
  tcase_add_test(lex, put_name_round_trips);
  tcase_add_test(lex, word_sets);
  tcase_add_test(lex, word_set_of_128);
  tcase_add_test(lex, lex_matches_the_one_token_lexer);
  tcase_add_test(lex, lex_matches_the_one_token_lexer_on_the_corpus);

  TCase *mod = t_tcase(s, "module", 0, NULL, NULL, 0);
  tcase_add_test(mod, module_numba_layout);
  tcase_add_test(mod, module_clang_layout);
  tcase_add_test(mod, module_unclosed_body);
  tcase_add_test(mod, module_numbers_beyond_32_bits);
  tcase_add_test(mod, module_empty);
  tcase_add_test(mod, header_with_attributes_and_varargs);
  tcase_add_test(mod, header_with_struct_return_and_type_params);
  tcase_add_test(mod, header_of_declares);
  tcase_add_test(mod, header_with_prefix_words);
  tcase_add_test(mod, header_of_numba_layout);
  tcase_add_test(mod, header_with_address_spaces);
  tcase_add_test(mod, header_errors);
  tcase_add_test(mod, statements_of_a_body);
  tcase_add_test(mod, statement_on_the_brace_line);
  tcase_add_test(mod, statements_after_labels_on_their_line);
  tcase_add_test(mod, lines_of_a_text);
  tcase_add_test(mod, conformance_add_i32);

  TCase *ed = t_tcase(s, "edits", 0, NULL, NULL, 0);
  tcase_add_test(ed, edits_insert_replace_delete);
  tcase_add_test(ed, edits_at_equal_offsets);
  tcase_add_test(ed, edits_in_any_order);
  tcase_add_test(ed, edits_nested_are_dropped);
  tcase_add_test(ed, edits_overlapping_fail);
  tcase_add_test(ed, rewrite_fresh_ids);
  tcase_add_test(ed, rewrite_appends_to_named_meta);
  tcase_add_test(ed, rewrite_creates_named_meta);
  tcase_add_test(ed, rewrite_fills_an_empty_named_meta);
  tcase_add_test(ed, rewrite_named_meta_with_trailing_comment);
  tcase_add_test(ed, rewrite_of_bad_text);
  tcase_add_test(ed, rewrite_overlap_is_reported);
  tcase_add_test(ed, text_defines);
  tcase_add_test(ed, text_defines_respects_len);
  tcase_add_test(ed, text_references);
  tcase_add_test(ed, text_each_declared);
  tcase_add_test(ed, watch_list_notes_set_words_and_globals);

  TCase *fmt = t_tcase(s, "format", 0, NULL, NULL, 0);
  tcase_add_test(fmt, buf_printf_writes_what_libc_writes);
  tcase_add_test(fmt, buf_printf_appends_to_what_is_there);
  tcase_add_test(fmt, decimal_digits);
  return s;
}
