/* ptxsig.c - the return and parameter layout of a PTX function or kernel. */
#include "ptxsig.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* One ".param <type> <name>[N]" into "<type>[N]", the name dropped. */
static void param_type(const char *s, size_t n, char *out, size_t cap) {
  char buf[256];
  snprintf(buf, sizeof buf, "%.*s", (int)n, s);
  char *p = strstr(buf, ".param");
  p = p ? p + 6 : buf;
  /* words: types and .align N; the last word is the name (with [N]).  A
   * kernel's pointer parameter may say where it points (".ptr .global
   * .align 1", as LLVM's NVPTX backend writes): the layout is the .u64's,
   * so that goes. */
  char words[8][64];
  int nw = 0;
  bool ptr = false;
  for (char *tok = strtok(p, " \t\r\n"); tok && nw < 8; tok = strtok(NULL, " \t\r\n")) {
    if (!strcmp(tok, ".ptr")) {
      ptr = true;
      continue;
    }
    if (ptr && (!strcmp(tok, ".global") || !strcmp(tok, ".const") || !strcmp(tok, ".shared") ||
                !strcmp(tok, ".local")))
      continue;
    if (ptr && !strcmp(tok, ".align")) {
      strtok(NULL, " \t\r\n"); /* its N */
      continue;
    }
    snprintf(words[nw++], sizeof words[0], "%s", tok);
  }
  out[0] = '\0';
  size_t len = 0;
  for (int i = 0; i < nw - 1; i++)
    len += (size_t)snprintf(out + len, cap > len ? cap - len : 0, "%s%s", i ? " " : "", words[i]);
  if (nw) {
    const char *br = strchr(words[nw - 1], '[');
    if (br) snprintf(out + len, cap > len ? cap - len : 0, "%s", br);
  }
}

/* Splits a parenthesised list at commas into param types. */
static int read_list(const char *s, const char *end, char (*types)[64], int max) {
  int n = 0;
  while (s < end && n < max) {
    const char *comma = memchr(s, ',', (size_t)(end - s));
    const char *stop = comma ? comma : end;
    const char *p = s;
    while (p < stop && isspace((unsigned char)*p)) p++;
    if (p < stop) param_type(p, (size_t)(stop - p), types[n++], 64);
    s = stop + 1;
  }
  return n;
}

bool ptxsig_read(const char *ptx, const char *name, ptxsig *out) {
  memset(out, 0, sizeof *out);
  for (const char *p = ptx; (p = strstr(p, ".visible")) != NULL; p++) {
    const char *q = p + 8;
    while (*q == ' ' || *q == '\t') q++;
    bool entry = strncmp(q, ".entry", 6) == 0;
    bool func = strncmp(q, ".func", 5) == 0;
    if (!entry && !func) continue;
    if (!name && !entry) continue;
    q += entry ? 6 : 5;
    while (isspace((unsigned char)*q)) q++;
    char ret[64] = "";
    int nret = 0;
    if (*q == '(') { /* return parameter */
      const char *close = strchr(q, ')');
      if (!close) return false;
      char tmp[1][64];
      nret = read_list(q + 1, close, tmp, 1);
      if (nret) snprintf(ret, sizeof ret, "%s", tmp[0]);
      q = close + 1;
      while (isspace((unsigned char)*q)) q++;
    }
    size_t nlen = 0;
    while (q[nlen] && (isalnum((unsigned char)q[nlen]) || q[nlen] == '_' || q[nlen] == '$'))
      nlen++;
    if (name && (strlen(name) != nlen || strncmp(q, name, nlen) != 0)) continue;
    const char *open = q + nlen;
    while (isspace((unsigned char)*open)) open++;
    out->found = true;
    out->entry = entry;
    snprintf(out->name, sizeof out->name, "%.*s", (int)nlen, q);
    out->num_returns = nret;
    snprintf(out->ret, sizeof out->ret, "%s", ret);
    if (*open == '(') {
      const char *close = strchr(open, ')');
      if (!close) return false;
      out->num_params = read_list(open + 1, close, out->params, PTXSIG_MAX_PARAMS);
    }
    return true;
  }
  return false;
}

void ptxsig_format(const ptxsig *s, char *out, size_t cap) {
  size_t n = (size_t)snprintf(out, cap, "%s %s%s%s%s(", s->entry ? ".entry" : ".func",
                              s->num_returns ? "(" : "", s->num_returns ? s->ret : "",
                              s->num_returns ? ") " : "", s->name);
  for (int i = 0; i < s->num_params && n < cap; i++)
    n += (size_t)snprintf(out + n, cap - n, "%s%s", i ? ", " : "", s->params[i]);
  if (n < cap) snprintf(out + n, cap - n, ")");
}

bool ptxsig_same(const ptxsig *a, const ptxsig *b) {
  if (a->entry != b->entry || a->num_returns != b->num_returns ||
      a->num_params != b->num_params || strcmp(a->ret, b->ret) != 0)
    return false;
  for (int i = 0; i < a->num_params; i++)
    if (strcmp(a->params[i], b->params[i]) != 0) return false;
  return true;
}
