/* resolve.c - resolve_call: typing a call numba's way, the symbol of the
 * implementation it calls (an instance of a generic one, made on first
 * resolve), and the NVVM IR of an implementation, written on first need. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/typeconv.h"
#include "base/types.h"
#include "lowering/builtins.h"
#include "lowering/irlex.h"
#include "plugin/llvm/validate.h"
#include "plugin/registry/internal.h"

/* ---- resolve_call ---- */

/* How a candidate signature fits the call: numba counts conversions of
 * each kind and prefers fewer unsafe, then fewer safe, then fewer
 * promotions, and of equally good ones the first declared.  The strict
 * rule then prefers the nearer conversions (typeconv.c) and calls what is
 * still equal a tie. */
typedef struct candidate {
  const cuplug_type *sig;
  int unsafe, safe, promote;
  unsigned distance;
  bool base;    /* the built-ins' template gave it */
  bool vouched; /* a generic template gave it (see conversion) */
} candidate;

static int compare(const candidate *a, const candidate *b, bool strict) {
  if (a->unsafe != b->unsafe) return a->unsafe - b->unsafe;
  if (a->safe != b->safe) return a->safe - b->safe;
  if (a->promote != b->promote) return a->promote - b->promote;
  return strict ? (a->distance > b->distance) - (a->distance < b->distance) : 0;
}

/* How an argument converts to a parameter; `vouched`: a generic template
 * chose the signature, and numba takes its answer as it is, so a number
 * goes to any number (complex64 to an atomic's int32: unsafe). */
static cuplug__conversion conversion(const cuplug_type *from, const cuplug_type *to, bool vouched,
                                     unsigned *d) {
  cuplug__conversion c = cuplug__convert(from, to, d);
  if (c == CUPLUG__CONV_NONE && vouched && cuplug__type_is_number(from) &&
      cuplug__type_is_number(to))
    return CUPLUG__CONV_UNSAFE;
  return c;
}

/* Rates sig against the argument types; false when it does not fit.
 * `unsafe_ok`: any conversion between numbers may be asked for (numba's
 * rule; under the strict one, only when a generic template chose sig);
 * `vouched`: see conversion(). */
static bool rate(const cuplug_type *sig, const cuplug_type *const *args, size_t n,
                 bool unsafe_ok, bool vouched, candidate *c) {
  *c = (candidate){sig, 0, 0, 0, 0, false, vouched};
  if (sig->nargs != n) return false;
  for (size_t i = 0; i < n; i++) {
    unsigned d;
    cuplug__conversion conv = conversion(args[i], sig->args[i], vouched, &d);
    c->distance += d;
    switch (conv) {
      case CUPLUG__CONV_EXACT: break;
      case CUPLUG__CONV_PROMOTE: c->promote++; break;
      case CUPLUG__CONV_SAFE: c->safe++; break;
      case CUPLUG__CONV_UNSAFE:
        if (!unsafe_ok) return false;
        c->unsafe++;
        break;
      default: return false;
    }
  }
  return true;
}

typedef struct search {
  const char *key;
  const cuplug_type *const *args;
  size_t nargs;
  bool strict;
  candidate best;
  const cuplug_type *tied; /* a different signature as good as best */
  bool found;
} search;

/* Candidates come in declaration order: a later one must be better. */
static void consider(search *s, const candidate *c) {
  int order = s->found ? compare(c, &s->best, s->strict) : -1;
  if (order < 0) {
    s->best = *c;
    s->tied = NULL;
    s->found = true;
  } else if (order == 0 && s->strict && c->sig != s->best.sig) {
    s->tied = c->sig;
  }
}

/* The candidates of a call that did not resolve: every template of the
 * key, for the message (written only then, so a resolve pays nothing). */
static void put_candidates(cuplug__buf *b, const cuplug__key *const *keys, size_t n) {
  size_t shown = 0;
  for (size_t k = 0; k < n; k++)
    for (size_t i = 0; keys[k] && i < keys[k]->num_templates; i++) {
      const cuplug__template *t = &keys[k]->templates[i];
      const char *what = t->sig ? t->sig->name
                         : t->description && *t->description ? t->description
                                                             : "a generic template";
      cuplug__buf_printf(b, "%s%s", shown++ ? ", " : "", what);
    }
  if (!shown) cuplug__buf_puts(b, "none");
}

static cuplug_error *consult(search *s, const cuplug__key *k, bool base) {
  for (size_t i = 0; k && i < k->num_templates; i++) {
    const cuplug__template *t = &k->templates[i];
    const cuplug_type *sig = t->sig;
    if (!sig && t->builtin) {
      CUPLUG__TRY(t->builtin->type(t->builtin, s->args, s->nargs, &sig));
    } else if (!sig) {
      char message[512] = "";
      cuplug_callback_status st =
          t->typer(t->user_data, s->key, s->args, s->nargs, &sig, message, sizeof message);
      message[sizeof message - 1] = '\0';
      if (st == CUPLUG_CALLBACK_NO_MATCH) {
        sig = NULL;
      } else if (st != CUPLUG_CALLBACK_OK) {
        return cuplug__error(CUPLUG_ERR_CALLBACK, "the typing template of %s failed%s%s",
                             s->key, *message ? ": " : "", message);
      } else if (!sig || sig->kind != CUPLUG_TYPE_SIGNATURE) {
        return cuplug__error(CUPLUG_ERR_CALLBACK,
                             "the typing template of %s answered OK without a signature",
                             s->key);
      } else if (sig->nargs != s->nargs) {
        return cuplug__error(CUPLUG_ERR_CALLBACK,
                             "the typing template of %s answered %s for a call with %zu "
                             "arguments",
                             s->key, sig->name, s->nargs);
      }
    }
    candidate c;
    if (sig && rate(sig, s->args, s->nargs, !s->strict || !t->sig, !s->strict && !t->sig, &c)) {
      c.base = base;
      consider(s, &c);
    }
  }
  return NULL;
}

/* "(int32, float32)" */
static void put_args(cuplug__buf *b, const cuplug_type *const *args, size_t n) {
  cuplug__buf_putc(b, '(');
  for (size_t i = 0; i < n; i++) cuplug__buf_printf(b, "%s%s", i ? ", " : "", args[i]->name);
  cuplug__buf_putc(b, ')');
}

/* "__cuplug_cuda_atomic_add_5d1c0e2a9b3f4471": the key made a C name,
 * and a hash of the key and signature.  The same in every registry, so
 * that code compiled with one links with code compiled with another. */
static size_t format_symbol(char *out, size_t cap, const char *key, const cuplug_type *sig,
                            unsigned long serial) {
  uint64_t h = 1469598103934665603ull;
  for (const char *p = key; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  h = (h ^ '|') * 1099511628211ull;
  for (const char *p = sig->name; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  size_t n = strlen("__cuplug_") + strlen(key);
  if (n + 40 > cap) return n + 40; /* room for the hash and a serial */
  char *p = stpcpy(out, "__cuplug_");
  for (const char *k = key; *k; k++) *p++ = isalnum((unsigned char)*k) ? *k : '_';
  p += sprintf(p, "_%016llx", (unsigned long long)h);
  if (serial) p += sprintf(p, "_%lu", serial);
  return (size_t)(p - out);
}

char *cuplug__symbol_for(const char *key, const cuplug_type *sig, unsigned long serial) {
  size_t need = format_symbol(NULL, 0, key, sig, serial);
  char *s = malloc(need);
  if (s) format_symbol(s, need, key, sig, serial);
  return s;
}

/* The symbol of the generic implementation `g` for sig: an instance made
 * now, or the one an earlier resolve made. */
static cuplug_error *instantiate(cuplug_registry *r, const cuplug__impl *g, const char *key,
                                 const cuplug_type *sig, const cuplug__impl **out) {
  bool unique = g->builtin && g->builtin->unique;
  unsigned long serial = unique ? atomic_fetch_add(&r->serial, 1) + 1 : 0;
  /* the common case: an earlier resolve made it (no allocation) */
  char local[192];
  if (format_symbol(local, sizeof local, key, sig, serial) < sizeof local && !unique) {
    pthread_rwlock_rdlock(&r->lock);
    cuplug__impl *m = cuplug__map_get(&r->symbols, local, strlen(local));
    pthread_rwlock_unlock(&r->lock);
    if (m && m->sig == sig && strcmp(m->key, key) == 0) {
      *out = m;
      return NULL;
    }
  }
  char *symbol = cuplug__symbol_for(key, sig, serial);
  if (!symbol) return cuplug__error_oom();
  pthread_rwlock_wrlock(&r->lock);
  cuplug__impl *m = cuplug__map_get(&r->symbols, symbol, strlen(symbol));
  cuplug_error *e = NULL;
  if (m && (m->sig != sig || strcmp(m->key, key) != 0)) {
    e = cuplug__error(CUPLUG_ERR_DUPLICATE,
                      "the symbol %s of %s(%s) is taken by %s (%s): hash collision", symbol,
                      key, sig->name, m->key, m->sig ? m->sig->name : "generic");
  } else if (!m) {
    cuplug__impl **v = realloc(r->instances, (r->num_instances + 1) * sizeof *v);
    m = calloc(1, sizeof *m);
    if (v) r->instances = v;
    if (!v || !m || !cuplug__map_put(&r->symbols, symbol, m)) {
      free(m);
      m = NULL;
      e = cuplug__error_oom();
    } else {
      m->kind = g->kind;
      m->key = g->key;
      m->sig = sig;
      m->symbol = symbol;
      symbol = NULL;
      m->abi = g->abi;
      m->lowerer = g->lowerer;
      m->user_data = g->user_data;
      m->builtin = g->builtin;
      m->generic = g;
      r->instances[r->num_instances++] = m;
    }
  }
  pthread_rwlock_unlock(&r->lock);
  free(symbol);
  *out = m;
  return e;
}

/* Sets *slot to text made once: the first caller's text wins, the rest
 * free theirs.  Returns what is in the slot (NULL when text was). */
static const char *publish(_Atomic(char *) *slot, char *text) {
  char *expected = NULL;
  if (!text) return atomic_load_explicit(slot, memory_order_acquire);
  if (!atomic_compare_exchange_strong_explicit(slot, &expected, text, memory_order_acq_rel,
                                               memory_order_acquire)) {
    free(text);
    return expected;
  }
  return text;
}

/* "declare float @sym(float)": the signature's function type under the
 * implementation's ABI, with the symbol put in. */
const char *cuplug__declaration_of(cuplug__impl *m) {
  const char *d = atomic_load_explicit(&m->declaration, memory_order_acquire);
  if (d) return d;
  const char *ft = cuplug__type_lowered(m->sig, m->abi, CUPLUG_POSITION_ARGUMENT)->ir_type;
  const char *params = strstr(ft, " (");
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__buf_printf(&b, "declare %.*s @%s%s", (int)(params - ft), ft, m->symbol, params + 1);
  return publish(&m->declaration, cuplug__buf_take(&b, NULL));
}

static cuplug_error *check_call(const cuplug_resolve_args *a) {
  if (!a->registry)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "resolve_call: registry is NULL");
  if (!a->key) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "resolve_call: key is NULL");
  if (a->nargs && !a->argtypes)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "resolve_call %s: nargs is %zu but argtypes is NULL", a->key, a->nargs);
  for (size_t i = 0; i < a->nargs; i++)
    if (!a->argtypes[i] || a->argtypes[i]->kind == CUPLUG_TYPE_SIGNATURE ||
        a->argtypes[i]->kind == CUPLUG_TYPE_VOID)
      return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                           "resolve_call %s: argument type %zu is %s", a->key, i,
                           a->argtypes[i] ? a->argtypes[i]->name : "NULL");
  return NULL;
}

/* A call that did not resolve: no candidate fits, or two tie. */
static cuplug_error *unresolved(const cuplug_resolve_args *a, const search *s,
                                const char *candidates) {
  cuplug__buf b;
  cuplug__buf_init(&b);
  put_args(&b, a->argtypes, a->nargs);
  cuplug_error *e =
      !s->found
          ? cuplug__error(CUPLUG_ERR_NO_MATCH, "no signature of %s takes %s; it has: %s", a->key,
                          b.data ? b.data : "()", candidates ? candidates : "none")
          : cuplug__error(CUPLUG_ERR_AMBIGUOUS,
                          "ambiguous call %s%s: %s and %s match equally well (candidates: %s)",
                          a->key, b.data ? b.data : "()", s->best.sig->name, s->tied->name,
                          candidates ? candidates : "");
  cuplug__buf_free(&b);
  return e;
}

cuplug_error *cuplug__resolve_call(cuplug_resolve_args *a) {
  CUPLUG__TRY(check_call(a));
  cuplug_registry *r = a->registry;
  if (a->flags & ~CUPLUG_RESOLVE_STRICT)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "resolve_call %s: unknown flags 0x%x",
                         a->key, a->flags & ~CUPLUG_RESOLVE_STRICT);
  search s = {.key = a->key, .args = a->argtypes, .nargs = a->nargs,
              .strict = (a->flags & CUPLUG_RESOLVE_STRICT) != 0};
  pthread_rwlock_rdlock(&r->lock);
  const cuplug__key *own = cuplug__registry_own_key(r, a->key),
                    *base = cuplug__registry_base_key(r, a->key);
  cuplug_error *e = NULL;
  if (!own && !base)
    e = cuplug__error(CUPLUG_ERR_UNKNOWN_KEY, "nothing is registered under the key '%s'",
                      a->key);
  if (!e) e = consult(&s, own, false);
  if (!e) e = consult(&s, base, true);
  cuplug__buf candidates; /* for a message, while the templates cannot move */
  cuplug__buf_init(&candidates);
  if (!e && (!s.found || s.tied)) {
    const cuplug__key *keys[] = {own, base};
    put_candidates(&candidates, keys, 2);
  }
  const cuplug__impl *m = NULL, *g = NULL;
  if (!e && s.found && !s.tied) {
    /* a signature is lowered by the registry whose template gave it: the
     * built-in lowering is not for signatures a host added to its key */
    const cuplug__key *k = s.best.base ? base : own;
    m = cuplug__key_impl(k, s.best.sig);
    if (!m) g = cuplug__key_impl(k, NULL);
  }
  pthread_rwlock_unlock(&r->lock);

  if (!e && (!s.found || s.tied)) {
    e = unresolved(a, &s, candidates.data);
  } else if (!e && !m && !g) {
    e = cuplug__error(CUPLUG_ERR_NO_LOWERING, "%s types as %s, but has no lowering for it",
                      a->key, s.best.sig->name);
  } else if (!e && g) {
    e = instantiate(s.best.base ? r->base : r, g, g->key, s.best.sig, &m);
  }
  cuplug__buf_free(&candidates);
  if (e) return e;
  a->declaration = cuplug__declaration_of((cuplug__impl *)m);
  if (!a->declaration) return cuplug__error_oom();
  a->signature = s.best.sig;
  a->symbol = m->symbol;
  a->abi = m->abi;
  a->conversion = CUPLUG_CONV_EXACT;
  for (size_t i = 0; i < a->nargs; i++) {
    cuplug_conversion c =
        (cuplug_conversion)conversion(a->argtypes[i], s.best.sig->args[i], s.best.vouched, NULL);
    if (c > a->conversion) a->conversion = c;
    if (a->arg_conversions) a->arg_conversions[i] = c;
  }
  return NULL;
}

/* ---- lowering on demand ---- */

cuplug_error *cuplug__impl_ir(cuplug__impl *m, const char **text) {
  char *ir = atomic_load_explicit(&m->ir, memory_order_acquire);
  if (ir) {
    *text = ir;
    return NULL;
  }
  cuplug__buf b;
  cuplug__buf_init(&b);
  if (m->kind == CUPLUG__IMPL_BUILTIN) {
    cuplug_error *e = m->builtin->lower(m->builtin, m->sig, m->symbol, &b);
    if (e) {
      cuplug__buf_free(&b);
      return e;
    }
  } else if (m->kind == CUPLUG__IMPL_CALLBACK) {
    const char *out = NULL;
    size_t size = 0;
    char message[512] = "";
    cuplug_callback_status st = m->lowerer(m->user_data, m->key, m->sig, m->symbol, m->abi,
                                           &out, &size, message, sizeof message);
    message[sizeof message - 1] = '\0';
    if (st != CUPLUG_CALLBACK_OK)
      return cuplug__error(CUPLUG_ERR_CALLBACK, "the lowering of %s for %s failed%s%s", m->key,
                           m->sig->name, *message ? ": " : "", message);
    if (!out)
      return cuplug__error(CUPLUG_ERR_CALLBACK,
                           "the lowering of %s for %s answered OK without IR", m->key,
                           m->sig->name);
    cuplug__buf_append(&b, out, size ? size : strlen(out));
    if (b.oom) return cuplug__error_oom();
    cuplug_error *limit = cuplug__ir_check_limits(m->key, b.data, b.len);
    if (limit) {
      cuplug__buf_free(&b);
      return limit;
    }
    cuplug__text t = {m->key, b.data, b.len};
    cuplug_error *e = cuplug__validate_lowering(&t, m->key, m->symbol, m->sig, m->abi);
    if (e) {
      cuplug__buf_free(&b);
      return e;
    }
  } else {
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "%s: %s has no IR", m->key, m->symbol);
  }
  if (b.oom) return cuplug__error_oom();
  /* another thread may have been quicker: its text is as good */
  *text = publish(&m->ir, cuplug__buf_take(&b, NULL));
  return *text ? NULL : cuplug__error_oom();
}
