/* bitcode.c - what a bitcode file says of itself, read before LLVM reads it.
 *
 * LLVM 22 reads bitcode from older LLVMs, but bitcode from a newer one
 * fails in ways that name no version ("Invalid record", "Unknown attribute
 * kind (105)"), or, worse, reads: so the producer is read first, from the
 * IDENTIFICATION block that every LLVM since 3.8 writes before the module.
 * Bitcode cut short fails in LLVM with a message about a malformed block
 * or an invalid record; the extents of the top-level blocks tell
 * truncation plainly, and so does a module without the string table that
 * follows it.
 *
 * The bitstream format (llvm.org/docs/BitCodeFormat.html): 'BC' 0xC0DE,
 * then abbreviation ids of 2 bits at the top level; a block is
 * ENTER_SUBBLOCK (1), its id (vbr8), its abbreviation width (vbr4), a
 * 32-bit boundary and its length in 32-bit words.  Inside the
 * IDENTIFICATION block (id 13) the producer is record 1, its characters
 * in char6 under an abbreviation the block defines. */
#include "plugin/llvm/bitcode.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { END_BLOCK = 0, ENTER_SUBBLOCK = 1, DEFINE_ABBREV = 2, UNABBREV_RECORD = 3 };
enum { MODULE_BLOCK = 8, IDENTIFICATION_BLOCK = 13, STRTAB_BLOCK = 23 };
enum { IDENTIFICATION_STRING = 1 };
enum { ENC_FIXED = 1, ENC_VBR = 2, ENC_ARRAY = 3, ENC_CHAR6 = 4, ENC_BLOB = 5 };
enum { MAX_OPS = 8, MAX_ABBREVS = 8, MAX_VALUES = 64 };

typedef struct bits {
  const unsigned char *p;
  size_t nbits, pos;
  bool bad; /* read past the end */
} bits;

static uint64_t fixed(bits *b, unsigned n) {
  if (n > 64 || b->nbits - b->pos < n) {
    b->bad = true;
    b->pos = b->nbits;
    return 0;
  }
  uint64_t v = 0;
  for (unsigned i = 0; i < n; i++, b->pos++)
    v |= (uint64_t)((b->p[b->pos >> 3] >> (b->pos & 7)) & 1) << i;
  return v;
}

static uint64_t vbr(bits *b, unsigned n) {
  if (n < 2 || n > 32) {
    b->bad = true;
    return 0;
  }
  uint64_t v = 0, hi = 1ull << (n - 1);
  for (unsigned shift = 0; shift < 64 && !b->bad; shift += n - 1) {
    uint64_t piece = fixed(b, n);
    v |= (piece & (hi - 1)) << shift;
    if (!(piece & hi)) return v;
  }
  b->bad = true;
  return 0;
}

static void align32(bits *b) {
  size_t to = (b->pos + 31) & ~(size_t)31;
  if (to > b->nbits) {
    b->bad = true;
    to = b->nbits;
  }
  b->pos = to;
}

static char char6(uint64_t v) {
  static const char table[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._";
  return table[v & 63];
}

typedef struct abbrev_op {
  bool literal;
  unsigned enc;
  uint64_t value; /* the literal, or the width */
} abbrev_op;

typedef struct abbrev {
  unsigned n;
  abbrev_op ops[MAX_OPS];
} abbrev;

static bool define_abbrev(bits *b, abbrev *a) {
  uint64_t n = vbr(b, 5);
  if (n > MAX_OPS) return false;
  a->n = (unsigned)n;
  for (unsigned i = 0; i < a->n && !b->bad; i++) {
    abbrev_op *op = &a->ops[i];
    op->literal = fixed(b, 1);
    op->enc = 0;
    if (op->literal) {
      op->value = vbr(b, 8);
      continue;
    }
    op->enc = (unsigned)fixed(b, 3);
    if (op->enc == ENC_FIXED || op->enc == ENC_VBR) op->value = vbr(b, 5);
  }
  return !b->bad;
}

/* One scalar of an abbreviated record. */
static uint64_t scalar(bits *b, const abbrev_op *op) {
  if (op->literal) return op->value;
  if (op->enc == ENC_FIXED) return fixed(b, (unsigned)op->value);
  if (op->enc == ENC_VBR) return vbr(b, (unsigned)op->value);
  if (op->enc == ENC_CHAR6) return (unsigned char)char6(fixed(b, 6));
  b->bad = true;
  return 0;
}

/* A record under abbreviation a: its code and values (as many as fit). */
static size_t abbreviated(bits *b, const abbrev *a, uint64_t *v) {
  size_t n = 0;
  for (unsigned i = 0; i < a->n && !b->bad; i++) {
    const abbrev_op *op = &a->ops[i];
    if (!op->literal && op->enc == ENC_ARRAY) {
      if (i + 1 >= a->n) b->bad = true;
      /* an element may take no bits (a literal, a 0-bit field): the
       * length alone bounds the loop, and a producer is short */
      uint64_t len = vbr(b, 6);
      if (len > MAX_VALUES - n) b->bad = true;
      for (uint64_t k = 0; k < len && !b->bad; k++) v[n++] = scalar(b, &a->ops[i + 1]);
      return n;
    }
    if (!op->literal && op->enc == ENC_BLOB) {
      uint64_t len = vbr(b, 6);
      align32(b);
      if (len > (b->nbits - b->pos) / 8) b->bad = true;
      b->pos += b->bad ? 0 : len * 8;
      align32(b);
      return n;
    }
    uint64_t x = scalar(b, op);
    if (n < MAX_VALUES) v[n++] = x;
  }
  return n;
}

static size_t unabbreviated(bits *b, uint64_t *v) {
  size_t n = 0;
  v[n++] = vbr(b, 6);
  uint64_t count = vbr(b, 6);
  if (count > MAX_VALUES - n) b->bad = true;
  for (uint64_t k = 0; k < count && !b->bad; k++) v[n++] = vbr(b, 6);
  return n;
}

static void note_producer(const uint64_t *v, size_t n, cuplug__bitcode_info *out) {
  size_t len = 0;
  for (size_t i = 1; i < n && len + 1 < sizeof out->producer; i++)
    out->producer[len++] = v[i] >= 32 && v[i] < 127 ? (char)v[i] : '?';
  out->producer[len] = '\0';
  if (strncmp(out->producer, "LLVM", 4) != 0) return;
  char *end;
  long major = strtol(out->producer + 4, &end, 10);
  if (end == out->producer + 4) return;
  out->major = (int)major;
  out->minor = out->patch = 0;
  if (*end == '.') out->minor = (int)strtol(end + 1, &end, 10);
  if (*end == '.') out->patch = (int)strtol(end + 1, &end, 10);
}

/* The records of the IDENTIFICATION block, whose contents are b (from its
 * first abbreviation id to its end). */
static void identification(bits *b, unsigned width, cuplug__bitcode_info *out) {
  abbrev abbrevs[MAX_ABBREVS];
  unsigned num_abbrevs = 0;
  uint64_t v[MAX_VALUES];
  for (int guard = 0; guard < 64 && !b->bad; guard++) {
    uint64_t id = fixed(b, width);
    size_t n = 0;
    if (id == END_BLOCK) return;
    if (id == ENTER_SUBBLOCK) return; /* none is defined here */
    if (id == DEFINE_ABBREV) {
      if (num_abbrevs == MAX_ABBREVS || !define_abbrev(b, &abbrevs[num_abbrevs])) return;
      num_abbrevs++;
      continue;
    }
    if (id == UNABBREV_RECORD)
      n = unabbreviated(b, v);
    else if (id - 4 < num_abbrevs)
      n = abbreviated(b, &abbrevs[id - 4], v);
    else
      return;
    if (!b->bad && n && v[0] == IDENTIFICATION_STRING) {
      note_producer(v, n, out);
      return;
    }
  }
}

/* The top-level blocks, from the bit after the magic number. */
static void blocks(bits *b, size_t base, cuplug__bitcode_info *out) {
  bool identified = false;
  while (b->pos < b->nbits) {
    if (fixed(b, 2) != ENTER_SUBBLOCK) return;
    uint64_t id = vbr(b, 8);
    unsigned width = (unsigned)vbr(b, 4);
    align32(b);
    uint64_t words = fixed(b, 32);
    if (b->bad) {
      /* the header ran past the end (else it is malformed: LLVM's to say) */
      out->truncated = b->pos >= b->nbits;
      return;
    }
    uint64_t end = (uint64_t)b->pos + words * 32; /* words < 2^32: no overflow */
    if (end > b->nbits) {
      out->truncated = true;
      out->needed = base + (size_t)(end / 8);
      return;
    }
    out->num_blocks++;
    out->has_module |= id == MODULE_BLOCK;
    out->has_strtab |= id == STRTAB_BLOCK;
    if (id == IDENTIFICATION_BLOCK && !identified) {
      bits inner = {b->p, (size_t)end, b->pos, false};
      identification(&inner, width, out);
      identified = true;
    }
    b->pos = (size_t)end;
  }
}

static uint32_t le32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bool cuplug__is_bitcode(const void *bytes, size_t size) {
  static const unsigned char magic[4] = {'B', 'C', 0xC0, 0xDE};
  return size >= 4 && (memcmp(bytes, magic, 4) == 0 || le32(bytes) == 0x0B17C0DEu);
}

void cuplug__bitcode_scan(const void *bytes, size_t size, cuplug__bitcode_info *out) {
  memset(out, 0, sizeof *out);
  out->major = out->minor = out->patch = -1;
  const unsigned char *p = bytes;
  size_t base = 0;
  if (size >= 4 && le32(p) == 0x0B17C0DEu) {
    /* the wrapper: magic, version, offset, size, cpu type */
    if (size < 20) {
      out->truncated = true;
      out->needed = 20;
      return;
    }
    uint64_t offset = le32(p + 8), length = le32(p + 12);
    if (offset + length > size) {
      out->truncated = true;
      out->needed = (size_t)(offset + length);
      return;
    }
    base = (size_t)offset;
    p += offset;
    size = (size_t)length;
  }
  static const unsigned char magic[4] = {'B', 'C', 0xC0, 0xDE};
  if (size < 4 || memcmp(p, magic, 4) != 0) return;
  bits b = {p, size * 8, 32, false};
  blocks(&b, base, out);
}
