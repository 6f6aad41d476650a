/* json.h - a small JSON reader for case.json files. */
#ifndef CUPLUG_CLI_JSON_H
#define CUPLUG_CLI_JSON_H

#include <stdbool.h>
#include <stddef.h>

typedef enum json_kind { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_kind;

typedef struct json {
  json_kind kind;
  bool boolean;
  double number;
  char *string;        /* JSON_STRING */
  struct json **items; /* JSON_ARRAY values, JSON_OBJECT values */
  char **keys;         /* JSON_OBJECT keys */
  size_t count;
} json;

/* Parses text; NULL on a syntax error, with a message in err. */
json *json_parse(const char *text, char *err, size_t errcap);
void json_free(json *j);
/* The member `key` of an object, or NULL. */
const json *json_get(const json *obj, const char *key);
/* The string member `key`, or NULL when absent or not a string. */
const char *json_string(const json *obj, const char *key);

#endif
