/* find.h - a short byte string (up to four bytes) in a long one, sixteen
 * bytes at a time: the quick looks at a module's text (irscan.c: the
 * symbols it defines, names and declares) look for words rare in it,
 * and memmem looks at one byte at a time (x86-64 always has SSE2; other
 * machines take memmem). */
#ifndef CUPLUG__BASE_FIND_H
#define CUPLUG__BASE_FIND_H

#include <stddef.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The first place in [p, end) where the n bytes of `needle` (1 to 4)
 * begin, or NULL.  Each sixteen bytes are compared with the needle's first
 * and last byte, the two broadcast once; the bytes between are compared
 * where both match. */
static inline const char *cuplug__find(const char *p, const char *end, const char *needle,
                                       size_t n) {
#if defined(__SSE2__)
  if (n >= 1 && n <= 4) {
    const __m128i first = _mm_set1_epi8(needle[0]), last = _mm_set1_epi8(needle[n - 1]);
    for (; end - p >= (ptrdiff_t)(15 + n); p += 16) {
      __m128i a = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), first);
      __m128i b = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + n - 1)), last);
      for (unsigned bits = (unsigned)_mm_movemask_epi8(_mm_and_si128(a, b)); bits;
           bits &= bits - 1) {
        const char *at = p + __builtin_ctz(bits);
        if (n < 3 || memcmp(at + 1, needle + 1, n - 2) == 0) return at;
      }
    }
  }
#endif
  return p < end ? memmem(p, (size_t)(end - p), needle, n) : NULL;
}

#endif
