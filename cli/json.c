/* json.c - a small JSON reader (RFC 8259, UTF-8, no surrogate pairs). */
#include "json.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
  const char *s;
  size_t pos;
  char *err;
  size_t errcap;
} reader;

static json *fail(reader *r, const char *what) {
  if (r->err && !r->err[0]) snprintf(r->err, r->errcap, "%s at byte %zu", what, r->pos);
  return NULL;
}

static void ws(reader *r) {
  while (isspace((unsigned char)r->s[r->pos])) r->pos++;
}

static json *node(json_kind k) {
  json *j = calloc(1, sizeof *j);
  if (j) j->kind = k;
  return j;
}

static void put_utf8(char *out, size_t *n, unsigned cp) {
  if (cp < 0x80) {
    out[(*n)++] = (char)cp;
  } else if (cp < 0x800) {
    out[(*n)++] = (char)(0xC0 | (cp >> 6));
    out[(*n)++] = (char)(0x80 | (cp & 0x3F));
  } else {
    out[(*n)++] = (char)(0xE0 | (cp >> 12));
    out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[(*n)++] = (char)(0x80 | (cp & 0x3F));
  }
}

static char *read_string(reader *r) {
  if (r->s[r->pos] != '"') return NULL;
  size_t start = ++r->pos, end = start;
  while (r->s[end] && r->s[end] != '"') end += r->s[end] == '\\' && r->s[end + 1] ? 2 : 1;
  if (!r->s[end]) return NULL;
  char *out = malloc(end - start + 1);
  if (!out) return NULL;
  size_t n = 0;
  for (size_t i = start; i < end; i++) {
    char c = r->s[i];
    if (c != '\\') {
      out[n++] = c;
      continue;
    }
    c = r->s[++i];
    switch (c) {
      case 'n': out[n++] = '\n'; break;
      case 't': out[n++] = '\t'; break;
      case 'r': out[n++] = '\r'; break;
      case 'b': out[n++] = '\b'; break;
      case 'f': out[n++] = '\f'; break;
      case 'u': {
        unsigned cp = 0;
        for (int k = 0; k < 4 && isxdigit((unsigned char)r->s[i + 1]); k++) {
          char h = r->s[++i];
          cp = cp * 16 + (unsigned)(isdigit((unsigned char)h) ? h - '0' : (tolower(h) - 'a' + 10));
        }
        put_utf8(out, &n, cp);
        break;
      }
      default: out[n++] = c; break;
    }
  }
  out[n] = '\0';
  r->pos = end + 1;
  return out;
}

static json *value(reader *r, int depth);

static bool push(json *j, json *v, char *key) {
  json **items = realloc(j->items, (j->count + 1) * sizeof *items);
  if (!items) return false;
  j->items = items;
  if (j->kind == JSON_OBJECT) {
    char **keys = realloc(j->keys, (j->count + 1) * sizeof *keys);
    if (!keys) return false;
    j->keys = keys;
    keys[j->count] = key;
  }
  items[j->count++] = v;
  return true;
}

static json *container(reader *r, int depth, bool object) {
  json *j = node(object ? JSON_OBJECT : JSON_ARRAY);
  if (!j) return fail(r, "out of memory");
  r->pos++;
  ws(r);
  if (r->s[r->pos] == (object ? '}' : ']')) {
    r->pos++;
    return j;
  }
  for (;;) {
    char *key = NULL;
    ws(r);
    if (object) {
      key = read_string(r);
      ws(r);
      if (!key || r->s[r->pos] != ':') {
        free(key);
        json_free(j);
        return fail(r, "expected a \"key\":");
      }
      r->pos++;
    }
    json *v = value(r, depth + 1);
    if (!v || !push(j, v, key)) {
      free(key);
      json_free(v);
      json_free(j);
      return fail(r, "bad value");
    }
    ws(r);
    char c = r->s[r->pos];
    if (c == ',') {
      r->pos++;
      continue;
    }
    if (c == (object ? '}' : ']')) {
      r->pos++;
      return j;
    }
    json_free(j);
    return fail(r, object ? "expected ',' or '}'" : "expected ',' or ']'");
  }
}

static json *value(reader *r, int depth) {
  if (depth > 64) return fail(r, "nested too deeply");
  ws(r);
  const char *s = r->s + r->pos;
  if (*s == '{') return container(r, depth, true);
  if (*s == '[') return container(r, depth, false);
  if (*s == '"') {
    json *j = node(JSON_STRING);
    if (!j || !(j->string = read_string(r))) {
      json_free(j);
      return fail(r, "bad string");
    }
    return j;
  }
  if (!strncmp(s, "true", 4) || !strncmp(s, "false", 5)) {
    json *j = node(JSON_BOOL);
    if (!j) return fail(r, "out of memory");
    j->boolean = *s == 't';
    r->pos += j->boolean ? 4 : 5;
    return j;
  }
  if (!strncmp(s, "null", 4)) {
    r->pos += 4;
    return node(JSON_NULL);
  }
  char *end;
  double d = strtod(s, &end);
  if (end == s) return fail(r, "unexpected character");
  json *j = node(JSON_NUMBER);
  if (!j) return fail(r, "out of memory");
  j->number = d;
  r->pos += (size_t)(end - s);
  return j;
}

json *json_parse(const char *text, char *err, size_t errcap) {
  reader r = {text, 0, err, errcap};
  if (err && errcap) err[0] = '\0';
  json *j = value(&r, 0);
  ws(&r);
  if (j && r.s[r.pos]) {
    json_free(j);
    return fail(&r, "trailing text");
  }
  return j;
}

void json_free(json *j) {
  if (!j) return;
  for (size_t i = 0; i < j->count; i++) {
    json_free(j->items[i]);
    if (j->keys) free(j->keys[i]);
  }
  free(j->items);
  free(j->keys);
  free(j->string);
  free(j);
}

const json *json_get(const json *obj, const char *key) {
  if (!obj || obj->kind != JSON_OBJECT) return NULL;
  for (size_t i = 0; i < obj->count; i++)
    if (strcmp(obj->keys[i], key) == 0) return obj->items[i];
  return NULL;
}

const char *json_string(const json *obj, const char *key) {
  const json *v = json_get(obj, key);
  return v && v->kind == JSON_STRING ? v->string : NULL;
}
