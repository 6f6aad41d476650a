/* map.c - a string-keyed hash table. */
#include "base/map.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

/* The slot of the key: its own, or the empty one it would take. */
static size_t find(const cuplug__map *m, const char *key, size_t len) {
  size_t i = hash(key, len) & (m->cap - 1);
  while (m->slots[i].key &&
         !(strncmp(m->slots[i].key, key, len) == 0 && m->slots[i].key[len] == '\0'))
    i = (i + 1) & (m->cap - 1);
  return i;
}

void *cuplug__map_get(const cuplug__map *m, const char *key, size_t len) {
  return m->cap ? m->slots[find(m, key, len)].value : NULL;
}

static bool grow(cuplug__map *m) {
  cuplug__map old = *m;
  m->cap = old.cap ? old.cap * 2 : 16;
  m->slots = calloc(m->cap, sizeof *m->slots);
  if (!m->slots) {
    *m = old;
    return false;
  }
  for (size_t i = 0; i < old.cap; i++)
    if (old.slots[i].key) m->slots[find(m, old.slots[i].key, strlen(old.slots[i].key))] = old.slots[i];
  free(old.slots);
  return true;
}

bool cuplug__map_put(cuplug__map *m, const char *key, void *value) {
  if ((m->count + 1) * 2 > m->cap && !grow(m)) return false;
  m->slots[find(m, key, strlen(key))] = (cuplug__map_slot){key, value};
  m->count++;
  return true;
}

void cuplug__map_free(cuplug__map *m) {
  free(m->slots);
  *m = (cuplug__map){0};
}
