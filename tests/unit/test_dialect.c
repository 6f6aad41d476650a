/* test_dialect.c - cuplug__ir_dialect: bitcode by its magic numbers (raw
 * and wrapped), typed text by a typed pointer, modern text by a `ptr` type,
 * a debug record or what LLVM 7 cannot read, and typed text otherwise,
 * across the places `ptr` may appear without being the type (names,
 * labels, strings, comments, longer words) and the edges of the bytes
 * (cut short, no NUL, at the very end, binary junk). */
#include <stdlib.h>
#include <string.h>

#include "base/find.h"
#include "lowering/dialect.h"
#include "support.h"

static cuplug__dialect of(const char *s) { return cuplug__ir_dialect(s, strlen(s)); }

START_TEST(dialect_bitcode_magic) {
  static const char raw[] = {'B', 'C', (char)0xC0, (char)0xDE, 0x35, 0x14};
  static const char wrapped[] = {(char)0xDE, (char)0xC0, 0x17, 0x0B, 0, 0, 0, 0};
  ck_assert_int_eq(cuplug__ir_dialect(raw, sizeof raw), CUPLUG__DIALECT_BITCODE);
  ck_assert_int_eq(cuplug__ir_dialect(raw, 4), CUPLUG__DIALECT_BITCODE);
  ck_assert_int_eq(cuplug__ir_dialect(wrapped, sizeof wrapped), CUPLUG__DIALECT_BITCODE);
  /* three bytes of the magic are not bitcode; nor is the magic later on */
  ck_assert_int_eq(cuplug__ir_dialect(raw, 3), CUPLUG__DIALECT_TYPED);
  ck_assert_int_eq(of("; BC\xC0\xDE\n"), CUPLUG__DIALECT_TYPED);
  ck_assert_int_eq(cuplug__ir_dialect("", 0), CUPLUG__DIALECT_TYPED);
}
END_TEST

START_TEST(dialect_modern_ptr_spellings) {
  static const char *const modern[] = {
      "define void @f(ptr %p) {\n  ret void\n}\n",
      "define void @f(ptr addrspace(1) %p) {\n  ret void\n}\n",
      "@g = global [4 x ptr] zeroinitializer\n",
      "declare ptr @f()\n",
      "  %v = load ptr, ptr %p\n",
      "{ptr}",          /* next to punctuation */
      "ptr",            /* the whole text, at its very end */
      "x\tptr\n",       /* tabs */
      "%\"a\" = load i8, ptr %\"b\"\n", /* after quoted names */
      "; a comment\nptr",
      /* clang -g's device function of no pointer: a debug record */
      "define float @f(float %x) !dbg !4 {\n    #dbg_value(float %x, !9, !DIExpression(), !10)\n"
      "  ret float %x, !dbg !10\n}\n",
      "#dbg_declare",
      "#dbg_label(!3, !4)",
      /* no pointer, and what LLVM 7 cannot read: a numbered parameter */
      "define i32 @f(i32 noundef %0, i32 %1) {\n  ret i32 %0\n}\n",
      "define dso_local range(i32 0, 5) i32 @f(i32 %a, i32 %0) #0 {\n  ret i32 %a\n}\n",
      "; a*b in a comment, \"a*b\" in a string\ndefine i32 @f(i32 %0) {\n  ret i32 %0\n}\n",
      /* flags and an instruction newer than LLVM 7 */
      "  %7 = or disjoint i32 %5, %6\n",
      "  %2 = zext nneg i32 %1 to i64\n",
      "  %3 = icmp samesign ult i32 %1, %2\n",
      "  %f = freeze i32 %x\n",
      /* LLVM 12's integer intrinsics, as clang calls them for min, max, abs */
      "  %4 = tail call i32 @llvm.smax.i32(i32 %1, i32 0)\n",
      "  %4 = call i64 @llvm.umin.i64(i64 %a, i64 %b)\n",
      "declare i32 @llvm.abs.i32(i32, i1 immarg)\n",
      "call i32 @\"llvm.smin.i32\"(i32 1, i32 2)\n",
  };
  for (size_t i = 0; i < sizeof modern / sizeof modern[0]; i++)
    ck_assert_msg(of(modern[i]) == CUPLUG__DIALECT_MODERN, "case %zu: %s", i, modern[i]);
}
END_TEST

START_TEST(dialect_typed_lookalikes) {
  static const char *const typed[] = {
      "define void @f(float* %p) {\n  ret void\n}\n",
      "%ptr = alloca i8*\n",                 /* a local named ptr */
      "@ptr_x = global i32 0\n",             /* globals */
      "@ptr = global i32 0\n",
      "@\"ptr\" = global i32 0\n",           /* quoted */
      "%\"a ptr b\" = add i32 1, 2\n",
      "!ptr = !{}\n",                        /* named metadata */
      "$ptr = comdat any\n",                 /* a comdat */
      "#ptr\n^ptr\n",
      "ptr:\n  ret void\n",                  /* a label */
      "; ptr in a comment\n",
      "!0 = !{!\"ptr\"}\n",                  /* strings */
      "@s = constant [4 x i8] c\"ptr\\00\"\n",
      "%x = ptrtoint i8* %p to i64\n",       /* longer words */
      "%y = inttoptr i64 %x to i8*\n",
      "%z = getelementptr inbounds i8, i8* %p, i64 1\n", /* numba-cuda's */
      "ptr2 ptr.x ptr_ xptr ptr-1 $ptr\n",
      "!DIBasicType(name: \"ptr\", encoding: DW_ATE_address)\n",
      "%v = load i32, i32 addrspace(1)* %p\n",
      "\"unterminated ptr",                  /* a string cut short */
      "; no newline at the end ptr",         /* a comment cut short */
      "%",                                   /* a sigil at the end */
      "%\"",
      "define i32 @f() {\n  ret i32 0\n}\n", /* no pointer at all */
      "attributes #0 = { nounwind }\ndefine void @f() #0 {\n  ret void\n}\n",
      "; #dbg_value in a comment\n",         /* debug records' lookalikes */
      "!0 = !{!\"#dbg_value\"}\n",
      "#dbg\n#dbgx_value\n@\"#dbg_\"\n#db",
      /* LLVM 7 text of no pointer: unnamed parameters, numbered values */
      "define i32 @f(i32, i32) {\n  %3 = add i32 %0, %1\n  ret i32 %3\n}\n",
      "declare i32 @g(i32 %0)\n",           /* a declaration's names are not read */
      "define i32 @f(i32 %x) {\n  %0 = add i32 %x, 1\n  ret i32 %0\n}\n",
      /* the newer words where they are no flags: names, labels, comments,
       * strings, and longer words */
      "%disjoint = or i32 %a, %b\n@nneg = global i32 0\n",
      "freeze:\n  ret void\n",
      "; or disjoint, zext nneg, @llvm.smax.i32\n",
      "!0 = !{!\"samesign\", !\"@llvm.abs.i32\"}\n",
      "%x = add i32 %disjointed, %nneg2\n",
      "call i32 @llvm.smaxx(i32 1)\ncall i32 @llvm.smax(i32 1)\n",
      /* with typed pointers, the text is numba-cuda's dialect whatever else
       * it holds (legalisation and libNVVM have their say) */
      "define i32 @f(i32* %0) {\n  %2 = or disjoint i32 1, 2\n  ret i32 0\n}\n",
      "%r = call i32 @llvm.smax.i32(i32 %a, i32 %b)\nstore i32 %r, i32* %p\n",
      "%v = load ptr, i8** %p\n", /* legalisation names the `ptr` line */
  };
  for (size_t i = 0; i < sizeof typed / sizeof typed[0]; i++)
    ck_assert_msg(of(typed[i]) == CUPLUG__DIALECT_TYPED, "case %zu: %s", i, typed[i]);
}
END_TEST

/* The scan reads `size` bytes and no more: no NUL is needed, and what lies
 * beyond is not read. */
START_TEST(dialect_reads_only_size_bytes) {
  const char text[] = "i8 %p, ptr %q i8*";
  ck_assert_int_eq(cuplug__ir_dialect(text, 7), CUPLUG__DIALECT_TYPED);
  ck_assert_int_eq(cuplug__ir_dialect(text, 11), CUPLUG__DIALECT_MODERN);
  /* "pt" cut from "ptr" is no ptr; an exact cut after "ptr" is */
  ck_assert_int_eq(cuplug__ir_dialect(text, 9), CUPLUG__DIALECT_TYPED);
  ck_assert_int_eq(cuplug__ir_dialect(text, 10), CUPLUG__DIALECT_MODERN);
  /* the typed pointer at the end decides, once it is read */
  ck_assert_int_eq(cuplug__ir_dialect(text, sizeof text - 1), CUPLUG__DIALECT_TYPED);
  char *heap = malloc(3);
  memcpy(heap, "ptr", 3);
  ck_assert_int_eq(cuplug__ir_dialect(heap, 3), CUPLUG__DIALECT_MODERN);
  ck_assert_int_eq(cuplug__ir_dialect(heap, 2), CUPLUG__DIALECT_TYPED);
  free(heap);
  /* NUL bytes inside the text are bytes like others */
  const char nul[] = "i8\0ptr";
  ck_assert_int_eq(cuplug__ir_dialect(nul, sizeof nul - 1), CUPLUG__DIALECT_MODERN);
}
END_TEST

/* Every byte string of a small alphabet that spells the hard parts, up to
 * five bytes: the scan ends, and calls modern exactly what a plain reading
 * of the rules calls modern. */
START_TEST(dialect_exhaustive_small_inputs) {
  static const char alphabet[] = "ptr%\";:\n ";
  const size_t k = sizeof alphabet - 1;
  char s[6];
  size_t total = 0, modern = 0;
  for (size_t len = 0; len <= 5; len++) {
    size_t count = 1;
    for (size_t i = 0; i < len; i++) count *= k;
    for (size_t n = 0; n < count; n++, total++) {
      size_t x = n;
      for (size_t i = 0; i < len; i++, x /= k) s[i] = alphabet[x % k];
      bool expect = false;
      /* "ptr" as a whole word, not after % or inside "...", not before ':' or
       * after ';' on its line: with these few bytes, checked directly */
      for (size_t i = 0; i + 3 <= len && !expect; i++) {
        if (memcmp(s + i, "ptr", 3) != 0) continue;
        if (i > 0 && strchr("ptr%", s[i - 1])) continue;
        if (i + 3 < len && strchr("ptr:", s[i + 3])) continue;
        bool quoted = false, commented = false;
        for (size_t j = 0; j < i; j++) {
          if (commented) {
            if (s[j] == '\n') commented = false;
          } else if (quoted) {
            if (s[j] == '"') quoted = false;
          } else if (s[j] == '"') {
            quoted = true;
          } else if (s[j] == ';') {
            commented = true;
          }
        }
        expect = !quoted && !commented;
      }
      bool got = cuplug__ir_dialect(s, len) == CUPLUG__DIALECT_MODERN;
      ck_assert_msg(got == expect, "'%.*s': %d, expected %d", (int)len, s, got, expect);
      modern += got;
    }
  }
  ck_assert_uint_eq(total, 66430);
  ck_assert_uint_gt(modern, 0);
}
END_TEST

/* base/find.h, which the quick looks at a module's text (irscan.c) and the
 * cache key's declaration scan
 * use, finds what memmem finds: every needle of 1 to 4 bytes at every
 * place in buffers long enough for its sixteen-byte steps, next to partial
 * matches, at the very end, and in random text of a small alphabet. */
START_TEST(find_agrees_with_memmem) {
  char buf[80];
  static const char *const needles[] = {"p", "pt", "ptr", "decl"};
  for (size_t k = 0; k < 4; k++) {
    const char *nd = needles[k];
    size_t n = strlen(nd);
    for (size_t at = 0; at + n <= sizeof buf; at++) {
      memset(buf, 'x', sizeof buf);
      if (n > 1) memcpy(buf + (at + 17) % (sizeof buf - n), nd, n - 1); /* a partial match */
      memcpy(buf + at, nd, n);
      for (size_t len = at + n; len <= sizeof buf; len += 7) {
        const char *want = memmem(buf, len, nd, n);
        ck_assert_ptr_eq(cuplug__find(buf, buf + len, nd, n), want);
        ck_assert_ptr_eq(cuplug__find(buf, buf + at + n - 1, nd, n),
                         memmem(buf, at + n - 1, nd, n)); /* cut one short */
      }
    }
  }
  unsigned seed = 7;
  for (int round = 0; round < 2000; round++) {
    size_t len = (size_t)round % sizeof buf;
    for (size_t i = 0; i < len; i++) {
      seed = seed * 1103515245u + 12345u;
      buf[i] = "ptrdecl"[(seed >> 16) % 7];
    }
    for (size_t k = 0; k < 4; k++) {
      size_t n = strlen(needles[k]);
      ck_assert_ptr_eq(cuplug__find(buf, buf + len, needles[k], n),
                       memmem(buf, len, needles[k], n));
    }
  }
}
END_TEST

Suite *suite_dialect(void) {
  Suite *s = suite_create("dialect");
  TCase *tc = t_tcase(s, "dialect", 0, NULL, NULL, 0);
  tcase_add_test(tc, dialect_bitcode_magic);
  tcase_add_test(tc, dialect_modern_ptr_spellings);
  tcase_add_test(tc, dialect_typed_lookalikes);
  tcase_add_test(tc, dialect_reads_only_size_bytes);
  tcase_add_test(tc, dialect_exhaustive_small_inputs);
  tcase_add_test(tc, find_agrees_with_memmem);
  return s;
}
