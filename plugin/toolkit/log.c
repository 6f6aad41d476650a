/* log.c - the toolkit libraries' logs, read one way. */
#include "plugin/toolkit/log.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

char *cuplug__log_finish(char *log, size_t size) {
  if (!log) return NULL;
  log[size] = '\0';
  size_t len = strlen(log);
  while (len && (log[len - 1] == '\n' || log[len - 1] == '\r')) log[--len] = '\0';
  return log;
}

static bool says_error(const char *line, size_t n) {
  for (size_t i = 0; i + 5 <= n; i++)
    if (strncasecmp(line + i, "error", 5) == 0) return true;
  return false;
}

void cuplug__log_first_error(const char *log, char *out, size_t cap) {
  const char *found = NULL, *first = NULL;
  for (const char *line = log; *line && !found;) {
    size_t n = strcspn(line, "\n");
    if (!first && strspn(line, " \t\r") < n) first = line;
    if (says_error(line, n)) found = line;
    line += n + (line[n] == '\n');
  }
  const char *start = found ? found : first ? first : log;
  start += strspn(start, " \t");
  snprintf(out, cap, "%.*s", (int)strcspn(start, "\r\n"), start);
}
