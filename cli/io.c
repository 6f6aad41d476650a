/* io.c - files read and written, text formatted, and the plugin's errors
 * printed, for every command alike. */
#include "io.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *cli_format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s;
  int n = vasprintf(&s, fmt, ap);
  va_end(ap);
  if (n < 0) {
    fputs("cuplug: out of memory\n", stderr);
    exit(1);
  }
  return s;
}

char *cli_read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *data = NULL;
  size_t len = 0, cap = 0, n;
  do {
    if (cap - len < 65536) {
      char *grown = realloc(data, cap = cap * 2 + 65536);
      if (!grown) {
        free(data);
        fclose(f);
        errno = ENOMEM;
        return NULL;
      }
      data = grown;
    }
    n = fread(data + len, 1, cap - len - 1, f);
    len += n;
  } while (n);
  int failed = ferror(f);
  fclose(f);
  if (failed) {
    free(data);
    errno = EIO;
    return NULL;
  }
  data[len] = '\0';
  *size = len;
  return data;
}

bool cli_write_file(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok;
}

int cli_write_output(const char *path, const void *data, size_t size) {
  if (cli_write_file(path, data, size)) return 0;
  fprintf(stderr, "cuplug: error: cannot write %s: %s\n", path, strerror(errno));
  return 1;
}

int cli_read_modules(const cli_request *r, cuplug_module *mods, const cuplug_module **ptrs,
                     char **texts) {
  for (size_t i = 0; i < r->num_files; i++) {
    size_t size;
    if (!(texts[i] = cli_read_file(r->files[i], &size))) {
      fprintf(stderr, "cuplug: error: cannot read %s: %s\n", r->files[i], strerror(errno));
      return 1;
    }
    mods[i] = (cuplug_module){sizeof(cuplug_module), r->files[i], texts[i], size};
    ptrs[i] = &mods[i];
  }
  return 0;
}

int cli_report(const cuplug_api *api, cuplug_error *e) {
  fprintf(stderr, "cuplug: error: %s: %s\n", api->status_name(api->error_code(e)),
          api->error_message(e));
  const char *log = api->error_log(e);
  if (*log) fprintf(stderr, "%s\n", log);
  api->error_destroy(e);
  return 1;
}

int cli_fail(const cuplug_api *api, cuplug_error *e) {
  fprintf(stderr, "cuplug: error: %s: %s\n", api->status_name(api->error_code(e)),
          api->error_message(e));
  api->error_destroy(e);
  return 1;
}
