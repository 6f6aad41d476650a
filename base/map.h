/* map.h - a string-keyed hash table (open addressing, linear probing).
 * The table does not own its keys: each key lives in the value it maps to.
 * Not thread-safe: its owner locks. */
#ifndef CUPLUG__BASE_MAP_H
#define CUPLUG__BASE_MAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cuplug__map_slot {
  const char *key;
  void *value;
} cuplug__map_slot;

typedef struct cuplug__map {
  cuplug__map_slot *slots;
  size_t cap, count; /* cap: 0 or a power of two */
} cuplug__map;

/* The value of the key (its first len bytes), or NULL. */
void *cuplug__map_get(const cuplug__map *m, const char *key, size_t len);
/* Adds a key that is not in the map yet; false when memory runs out. */
bool cuplug__map_put(cuplug__map *m, const char *key, void *value);
void cuplug__map_free(cuplug__map *m);

#endif
