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
 * And each inline asm's constraint string is read from the CONSTANTS
 * blocks (of the module and of each function), as asm_guard.h reads text:
 * LLVM's reader of those strings reads past their end on some of them.
 * The records are decoded as LLVM decodes them, down to its truncations;
 * bitcode the walk cannot read through is not `walked`, and is not handed
 * to LLVM (read.c): LLVM's own files always read through.  LLVM finds function
 * bodies through the module's symbol table (VALUE_SYMTAB, at the module's
 * VSTOFFSET: each FNENTRY's word offset): a body, or the table, that does
 * not begin where one of the module's blocks begins is reported, for a
 * crafted file can hide one in bytes the walk steps over.
 *
 * The bitstream format (llvm.org/docs/BitCodeFormat.html): 'BC' 0xC0DE,
 * then abbreviation ids of 2 bits at the top level; a block is
 * ENTER_SUBBLOCK (1), its id (vbr8), its abbreviation width (vbr4), a
 * 32-bit boundary and its length in 32-bit words.  Inside the
 * IDENTIFICATION block (id 13) the producer is record 1, its characters
 * in char6 under an abbreviation the block defines.  Records under an
 * abbreviation (DEFINE_ABBREV in the block, or for the block's id in the
 * BLOCKINFO block, id 0) take their ids from 4 on: BLOCKINFO's first. */
#include "plugin/llvm/bitcode.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/llvm/asm_guard.h"

enum { END_BLOCK = 0, ENTER_SUBBLOCK = 1, DEFINE_ABBREV = 2, UNABBREV_RECORD = 3 };
enum {
  BLOCKINFO_BLOCK = 0,
  MODULE_BLOCK = 8,
  CONSTANTS_BLOCK = 11,
  FUNCTION_BLOCK = 12,
  IDENTIFICATION_BLOCK = 13,
  VALUE_SYMTAB_BLOCK = 14,
  STRTAB_BLOCK = 23
};
enum { IDENTIFICATION_STRING = 1, BLOCKINFO_SETBID = 1, MODULE_VSTOFFSET = 13, VST_FNENTRY = 3 };
/* inline asm records: [fnty,] flags, asm size, asm..., constraints size, constraints... */
enum { INLINEASM_OLD = 18, INLINEASM_OLD2 = 23, INLINEASM_OLD3 = 28, INLINEASM = 30 };
enum { ENC_FIXED = 1, ENC_VBR = 2, ENC_ARRAY = 3, ENC_CHAR6 = 4, ENC_BLOB = 5 };
/* The blocks whose records are read (the others are stepped over by
 * their length, as LLVM steps over them). */
enum { READ_MODULE, READ_CONSTANTS, READ_FUNCTION, READ_IDENTIFICATION, READ_VST, NUM_READ };

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

/* A VBR field LLVM reads as 32 bits (ReadVBR): chunks past the 32nd bit
 * are dropped, and a field still going on after it is an error. */
static uint32_t vbr32(bits *b, unsigned n) {
  if (n < 2 || n > 32) {
    b->bad = true;
    return 0;
  }
  uint32_t v = 0, hi = 1u << (n - 1);
  for (unsigned shift = 0; !b->bad; shift += n - 1) {
    if (shift >= 32) break;
    uint32_t piece = (uint32_t)fixed(b, n);
    v |= (uint32_t)((uint64_t)(piece & (hi - 1)) << shift);
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

/* An abbreviation: ops[first, first + n) of the walk's pool. */
typedef struct abbrev {
  size_t first, n;
} abbrev;

typedef struct abbrevs {
  abbrev *v;
  size_t n, cap;
} abbrevs;

typedef struct positions {
  uint64_t *v;
  size_t n, cap;
} positions;

/* A walk through a module's blocks, decoding them as LLVM 22's reader
 * does (BitstreamReader.cpp, BitcodeReader.cpp): what LLVM reads is what
 * is checked.  It stops where the bits are not what LLVM writes, or memory
 * runs out; bitcode it stopped on is not `walked`. */
typedef struct walk {
  bits b;
  cuplug__bitcode_info *out;
  abbrev_op *ops; /* every abbreviation's operands */
  size_t num_ops, cap_ops;
  abbrevs info[NUM_READ]; /* BLOCKINFO's, by the block they are for */
  uint64_t *v;            /* the record being read: its code, then (if kept) its values */
  size_t n, cap;
  bool keep;              /* the record's values are kept (it is one the walk reads) */
  int in;                 /* the block being read (READ_*), or -1 */
  bool in_info;           /* ... or BLOCKINFO */
  bool stop, identified;
  /* Where LLVM finds function bodies: the module's symbol table (at its
   * VSTOFFSET, if it has one) gives each body's word offset from `base`,
   * the start of the module's IDENTIFICATION block or of the module. */
  size_t base, ident_at;
  bool ident_seen;
  bool function_table;         /* the VALUE_SYMTAB being read is a function's */
  positions functions, tables; /* the module's FUNCTION and VALUE_SYMTAB blocks, where they begin */
  positions bodies;            /* the word offsets its symbol tables give */
  positions table_offsets;     /* its VSTOFFSETs */
} walk;

/* v (holding n of *cap elements of `size` bytes) with room for one more:
 * grown, or v as it was (and w->stop) when memory runs out. */
static void *grow(walk *w, void *v, size_t n, size_t *cap, size_t size) {
  if (n < *cap) return v;
  size_t want = *cap ? *cap * 2 : 16;
  void *grown = realloc(v, want * size);
  if (!grown) {
    w->stop = true;
    return v;
  }
  *cap = want;
  return grown;
}

/* Is a record with this code one the walk reads? */
static bool wanted(const walk *w, uint32_t code) {
  if (w->in_info) return code == BLOCKINFO_SETBID;
  if (w->in == READ_IDENTIFICATION) return code == IDENTIFICATION_STRING;
  if (w->in == READ_MODULE) return code == MODULE_VSTOFFSET;
  if (w->in == READ_VST) return code == VST_FNENTRY;
  return w->in == READ_CONSTANTS && (code == INLINEASM_OLD || code == INLINEASM_OLD2 ||
                                     code == INLINEASM_OLD3 || code == INLINEASM);
}

static void note_position(walk *w, positions *p, uint64_t x) {
  p->v = grow(w, p->v, p->n, &p->cap, sizeof *p->v);
  if (p->n < p->cap) p->v[p->n++] = x;
}

/* A record's next value: the first is its code, which LLVM reads as 32
 * bits; the others are kept only for the records the walk reads, so that
 * a long record costs no memory. */
static void push_value(walk *w, uint64_t x) {
  if (w->n == 0) {
    x = (uint32_t)x;
    w->keep = wanted(w, (uint32_t)x);
  } else if (!w->keep) {
    return;
  }
  w->v = grow(w, w->v, w->n, &w->cap, sizeof *w->v);
  if (w->n < w->cap) w->v[w->n++] = x;
}

static int read_index(uint64_t block) {
  switch (block) {
    case MODULE_BLOCK: return READ_MODULE;
    case CONSTANTS_BLOCK: return READ_CONSTANTS;
    case FUNCTION_BLOCK: return READ_FUNCTION;
    case IDENTIFICATION_BLOCK: return READ_IDENTIFICATION;
    case VALUE_SYMTAB_BLOCK: return READ_VST;
    default: return -1;
  }
}

/* A DEFINE_ABBREV's operands, added to `into` (NULL: read and dropped).
 * As in LLVM, a fixed or VBR field of width 0 is the literal 0. */
static void define_abbrev(walk *w, abbrevs *into) {
  bits *b = &w->b;
  uint32_t n = vbr32(b, 5);
  if (n > b->nbits - b->pos) { /* each operand takes a bit at least */
    w->stop = true;
    return;
  }
  abbrev a = {w->num_ops, 0};
  for (uint32_t i = 0; i < n && !b->bad && !w->stop; i++) {
    abbrev_op op = {fixed(b, 1) != 0, 0, 0};
    if (op.literal) {
      op.value = vbr(b, 8);
    } else {
      op.enc = (unsigned)fixed(b, 3);
      if (op.enc == ENC_FIXED || op.enc == ENC_VBR) op.value = vbr(b, 5);
      if (op.enc < ENC_FIXED || op.enc > ENC_BLOB || op.value > 64) w->stop = true;
      if ((op.enc == ENC_FIXED || op.enc == ENC_VBR) && op.value == 0) op = (abbrev_op){true, 0, 0};
    }
    w->ops = grow(w, w->ops, w->num_ops, &w->cap_ops, sizeof *w->ops);
    if (w->num_ops < w->cap_ops) {
      w->ops[w->num_ops++] = op;
      a.n++;
    }
  }
  if (b->bad) w->stop = true;
  if (w->stop || !into) return;
  into->v = grow(w, into->v, into->n, &into->cap, sizeof *into->v);
  if (into->n < into->cap) into->v[into->n++] = a;
}

/* One scalar of an abbreviated record.  A VBR field of width 1 has no
 * value bits: LLVM reads its continuation bits up to a clear one. */
static uint64_t scalar(walk *w, const abbrev_op *op) {
  bits *b = &w->b;
  if (op->literal) return op->value;
  if (op->enc == ENC_FIXED) return fixed(b, (unsigned)op->value);
  if (op->enc == ENC_VBR && op->value == 1) {
    while (!b->bad && fixed(b, 1)) {
    }
    return 0;
  }
  if (op->enc == ENC_VBR) return vbr(b, (unsigned)op->value);
  if (op->enc == ENC_CHAR6) return (unsigned char)char6(fixed(b, 6));
  w->stop = true;
  return 0;
}

/* A record under abbreviation a, into w->v (its code first).  Its first
 * operand gives the code and may be no array or blob; an array is the
 * operand before last, its elements of the last, which must take bits
 * (LLVM refuses a literal one: with none, a short record could claim
 * elements without end); a blob's bytes are values. */
static void abbreviated(walk *w, abbrev a) {
  bits *b = &w->b;
  for (size_t i = 0; i < a.n && !b->bad && !w->stop; i++) {
    const abbrev_op *op = &w->ops[a.first + i];
    bool array = !op->literal && op->enc == ENC_ARRAY, blob = !op->literal && op->enc == ENC_BLOB;
    if (i == 0 && (array || blob)) {
      w->stop = true;
      return;
    }
    if (array) {
      const abbrev_op *elt = &w->ops[a.first + i + 1];
      if (i + 2 != a.n || elt->literal || elt->enc == ENC_ARRAY || elt->enc == ENC_BLOB) {
        w->stop = true;
        return;
      }
      uint32_t len = vbr32(b, 6);
      if (len > b->nbits - b->pos) w->stop = true; /* a bit each at least */
      for (uint64_t k = 0; k < len && !b->bad && !w->stop; k++) push_value(w, scalar(w, elt));
      return;
    }
    if (blob) {
      uint32_t len = vbr32(b, 6);
      align32(b);
      if (len > (b->nbits - b->pos) / 8) b->bad = true;
      for (uint64_t k = 0; k < len && !b->bad; k++) push_value(w, fixed(b, 8));
      align32(b);
      continue;
    }
    push_value(w, scalar(w, op));
  }
}

static void unabbreviated(walk *w) {
  bits *b = &w->b;
  uint32_t code = vbr32(b, 6), count = vbr32(b, 6);
  if (count > b->nbits - b->pos) w->stop = true; /* six bits each at least: LLVM refuses it */
  push_value(w, code);
  for (uint64_t k = 0; k < count && !b->bad && !w->stop; k++) push_value(w, vbr(b, 6));
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

/* An inline asm record (v[0] its code): the first whose constraint string
 * LLVM cannot be handed is noted.  LLVM reads the two sizes as 32 bits and
 * each character as a char. */
static void note_asm(const uint64_t *v, size_t n, cuplug__bitcode_info *out) {
  if (out->bad_asm) return;
  size_t k = v[0] == INLINEASM ? 3 : 2; /* past the code, [fnty,] flags */
  if (k >= n || (uint32_t)v[k] >= n - k - 1) return; /* LLVM refuses the record */
  k += 1 + (uint32_t)v[k];                              /* past the asm text */
  if (k >= n || (uint32_t)v[k] > n - k - 1) return;
  size_t len = (uint32_t)v[k++];
  char *text = malloc(len ? len : 1);
  if (!text) return;
  for (size_t i = 0; i < len; i++) text[i] = (char)v[k + i];
  char which;
  if (cuplug__asm_bad_constraint(text, text + len, false, &which)) {
    size_t kept = len < sizeof out->asm_constraints - 1 ? len : sizeof out->asm_constraints - 1;
    out->bad_asm = true;
    out->asm_code = which;
    memcpy(out->asm_constraints, text, kept);
    out->asm_constraints[kept] = '\0';
  }
  free(text);
}

/* What the walk reads from one record of the block. */
static void use_record(walk *w, uint64_t *blockinfo_for) {
  if (!w->n || !w->keep) return;
  uint64_t code = w->v[0];
  if (w->in_info) {
    if (w->n > 1) *blockinfo_for = (uint32_t)w->v[1];
  } else if (code == IDENTIFICATION_STRING && w->in == READ_IDENTIFICATION) {
    if (!w->identified) note_producer(w->v, w->n, w->out);
    w->identified = true;
  } else if (w->in == READ_MODULE) {
    if (w->n > 1) note_position(w, &w->table_offsets, w->v[1]);
  } else if (w->in == READ_VST) {
    /* LLVM writes a body's offset in the module's table only; one in a
     * function's table moves a body as well */
    if (w->function_table) w->out->hidden_body = true;
    if (w->n > 2) note_position(w, &w->bodies, w->v[2]);
  } else {
    note_asm(w->v, w->n, w->out);
  }
}

/* Does LLVM read the records of block `sub` found in block `id` (or at the
 * top level: id -1)?  The module's BLOCKINFO, CONSTANTS and FUNCTION blocks
 * and a function's CONSTANTS; it steps over the others by their length. */
static bool read_inside(int64_t id, uint64_t sub) {
  if (id == MODULE_BLOCK)
    return sub == BLOCKINFO_BLOCK || sub == CONSTANTS_BLOCK || sub == FUNCTION_BLOCK ||
           sub == VALUE_SYMTAB_BLOCK;
  if (id == FUNCTION_BLOCK) return sub == CONSTANTS_BLOCK || sub == VALUE_SYMTAB_BLOCK;
  if (id == -1) return sub == MODULE_BLOCK || sub == IDENTIFICATION_BLOCK;
  return false;
}

/* The contents of a block whose abbreviation ids are `width` bits wide:
 * its records and sub-blocks, up to its END_BLOCK (as LLVM reads an entered
 * block: its stated length only steps over it).  False when the walk
 * stopped. */
static bool walk_block(walk *w, uint64_t parent, uint64_t id, unsigned width) {
  bits *b = &w->b;
  if (id == BLOCKINFO_BLOCK) /* a module's BLOCKINFO replaces what came before */
    for (int i = 0; i < NUM_READ; i++) w->info[i].n = 0;
  uint64_t info_for = UINT64_MAX; /* BLOCKINFO: the block its abbreviations are for */
  abbrevs local = {0};
  bool ended = false;
  while (!b->bad && !w->stop) {
    size_t at = b->pos;
    uint64_t abbrev_id = fixed(b, width);
    if (b->bad) break;
    if (abbrev_id == END_BLOCK) {
      align32(b);
      ended = !b->bad;
      break;
    }
    if (abbrev_id == ENTER_SUBBLOCK) {
      uint32_t sub = vbr32(b, 8), sub_width = vbr32(b, 4);
      align32(b);
      uint64_t words = fixed(b, 32);
      uint64_t sub_end = (uint64_t)b->pos + words * 32;
      if (b->bad || sub_width < 1 || sub_width > 32) break;
      if (id == MODULE_BLOCK && sub == FUNCTION_BLOCK) note_position(w, &w->functions, at);
      if (id == MODULE_BLOCK && sub == VALUE_SYMTAB_BLOCK) note_position(w, &w->tables, at);
      if (read_inside((int64_t)id, sub)) {
        if (!walk_block(w, id, sub, sub_width)) break;
      } else if (sub_end > b->nbits) {
        break;
      } else {
        b->pos = (size_t)sub_end;
      }
      continue;
    }
    if (abbrev_id == DEFINE_ABBREV) {
      int for_index = id == BLOCKINFO_BLOCK ? read_index(info_for) : -1;
      define_abbrev(w, id == BLOCKINFO_BLOCK ? (for_index >= 0 ? &w->info[for_index] : NULL)
                                             : &local);
      continue;
    }
    w->n = 0;
    w->in = read_index(id);
    w->in_info = id == BLOCKINFO_BLOCK;
    w->function_table = id == VALUE_SYMTAB_BLOCK && parent == FUNCTION_BLOCK;
    if (abbrev_id == UNABBREV_RECORD) {
      unabbreviated(w);
    } else {
      size_t k = (size_t)abbrev_id - 4;
      const abbrevs *given = w->in >= 0 ? &w->info[w->in] : NULL;
      size_t num_given = given ? given->n : 0;
      if (k < num_given)
        abbreviated(w, given->v[k]);
      else if (k - num_given < local.n)
        abbreviated(w, local.v[k - num_given]);
      else
        w->stop = true;
    }
    if (!b->bad && !w->stop) use_record(w, &info_for);
  }
  free(local.v);
  if (!ended) w->stop = true;
  return ended;
}

/* The top-level blocks, from the bit after the magic number. */
/* Is x one of the positions?  They were noted as the walk went, so they
 * ascend: a module of many functions costs a binary search a body. */
static bool among(const positions *p, uint64_t x) {
  size_t lo = 0, hi = p->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p->v[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < p->n && p->v[lo] == x;
}

/* After a module's walk: does every body its symbol tables point LLVM at
 * (and the table its VSTOFFSET points at) begin where one of the module's
 * blocks begins?  A crafted file can hide a body elsewhere, in bytes the
 * walk stepped over; LLVM's own files never do. */
static void check_bodies(walk *w, cuplug__bitcode_info *out) {
  for (size_t i = 0; i < w->table_offsets.n; i++)
    if (!among(&w->tables, w->base + (uint64_t)((uint32_t)w->table_offsets.v[i] - 1u) * 32))
      out->hidden_body = true;
  for (size_t i = 0; i < w->bodies.n; i++)
    if (!among(&w->functions, w->base + (uint64_t)((uint32_t)w->bodies.v[i] - 1u) * 32))
      out->hidden_body = true;
  w->functions.n = w->tables.n = w->bodies.n = w->table_offsets.n = 0;
}

static void blocks(walk *w, size_t base, cuplug__bitcode_info *out) {
  bits *b = &w->b;
  while (b->pos < b->nbits) {
    size_t block_at = b->pos;
    uint64_t abbrev_id = fixed(b, 2);
    if (abbrev_id == DEFINE_ABBREV || abbrev_id == UNABBREV_RECORD) {
      /* LLVM reads (and drops) an abbreviation or a record between blocks */
      w->n = 0;
      w->in = -1;
      w->in_info = w->function_table = false;
      if (abbrev_id == DEFINE_ABBREV)
        define_abbrev(w, NULL);
      else
        unabbreviated(w);
      if (b->bad || w->stop) {
        w->stop = true;
        return;
      }
      continue;
    }
    if (abbrev_id != ENTER_SUBBLOCK) {
      /* LLVM takes fewer than 8 bytes left after a module for padding */
      if (b->nbits - block_at >= 64) w->stop = true;
      b->pos = b->nbits;
      return;
    }
    uint64_t id = vbr32(b, 8);
    unsigned width = vbr32(b, 4);
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
    if (id == IDENTIFICATION_BLOCK) {
      w->ident_at = block_at;
      w->ident_seen = true;
    }
    if (id == MODULE_BLOCK) {
      w->base = w->ident_seen ? w->ident_at : block_at;
      w->ident_seen = false;
    }
    if (!w->stop && width >= 1 && width <= 32 && read_inside(-1, id)) {
      size_t at = b->pos;
      walk_block(w, UINT64_MAX, id, width); /* as LLVM reads it: to its END_BLOCK */
      b->pos = at;
      b->bad = false;
      if (id == MODULE_BLOCK && !w->stop) check_bodies(w, out);
    }
    b->pos = (size_t)end; /* the extents are the stated lengths */
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
  walk w = {.b = {p, size * 8, 32, false}, .out = out};
  blocks(&w, base, out);
  out->walked = !w.stop && !out->truncated && w.b.pos == w.b.nbits;
  free(w.ops);
  free(w.v);
  for (int i = 0; i < NUM_READ; i++) free(w.info[i].v);
  free(w.functions.v);
  free(w.tables.v);
  free(w.bodies.v);
  free(w.table_offsets.v);
}
