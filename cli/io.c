/* io.c - files read and written, text formatted, and the plugin's errors
 * printed, for every command alike. */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Reads fd to its end, or to one byte past cuplug's limit (EFBIG). */
static char *read_fd(int fd, size_t *size) {
  char *data = NULL;
  size_t len = 0, cap = 0;
  ssize_t n;
  do {
    if (cap - len < 65536) {
      char *grown = realloc(data, cap = cap * 2 + 65536);
      if (!grown) {
        free(data);
        errno = ENOMEM;
        return NULL;
      }
      data = grown;
    }
    size_t want = cap - len - 1, left = CUPLUG_MAX_MODULE_SIZE + 1 - len;
    n = read(fd, data + len, want < left ? want : left);
    if (n > 0) len += (size_t)n;
  } while ((n > 0 && len <= CUPLUG_MAX_MODULE_SIZE) || (n < 0 && errno == EINTR));
  if (n < 0 || len > CUPLUG_MAX_MODULE_SIZE) {
    int err = n < 0 ? errno : EFBIG;
    free(data);
    errno = err;
    return NULL;
  }
  data[len] = '\0';
  *size = len;
  return data;
}

char *cli_read_file(const char *path, size_t *size) {
  *size = 0;
  bool from_stdin = !strcmp(path, "-");
  int fd = from_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  char *data = NULL;
  if (fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      errno = EISDIR; /* which read() says only on some systems */
    } else if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > CUPLUG_MAX_MODULE_SIZE) {
      *size = (size_t)st.st_size; /* refused before a byte is read */
      errno = EFBIG;
    } else {
      data = read_fd(fd, size);
    }
  }
  int err = errno;
  if (!from_stdin) close(fd);
  errno = err;
  return data;
}

bool cli_write_file(const char *path, const void *data, size_t size) {
  if (!strcmp(path, "-")) return fwrite(data, 1, size, stdout) == size && fflush(stdout) == 0;
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok;
}

int cli_io_error(const cuplug_api *api, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "cuplug: error: %s: ", api->status_name(CUPLUG_ERR_IO));
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 1;
}

int cli_write_output(const cuplug_api *api, const char *path, const void *data, size_t size) {
  if (cli_write_file(path, data, size)) return 0;
  return cli_io_error(api, "cannot write %s: %s", path, strerror(errno));
}

bool cli_binary_to_terminal(const char *path, const char *what, size_t size, const char *symbol) {
  if (strcmp(path, "-") || !isatty(STDOUT_FILENO)) return false;
  fprintf(stderr, "cuplug: the %s is binary: give -o FILE (%zu bytes%s%s)\n", what, size,
          symbol ? " for " : "", symbol ? symbol : "");
  return true;
}

/* A module that cannot be read: its size past the limit, as the plugin
 * says it of a module it is given, or the system's reason. */
static int read_error(const cuplug_api *api, const char *path, const char *name, size_t size) {
  if (errno != EFBIG) return cli_io_error(api, "cannot read %s: %s", path, strerror(errno));
  fprintf(stderr, "cuplug: error: %s: IR module %s is ", api->status_name(CUPLUG_ERR_LIMIT), name);
  if (size)
    fprintf(stderr, "%zu bytes", size);
  else
    fprintf(stderr, "more than %u bytes", CUPLUG_MAX_MODULE_SIZE);
  fprintf(stderr, ": modules hold at most %u\n", CUPLUG_MAX_MODULE_SIZE);
  return 1;
}

int cli_read_modules(const cuplug_api *api, const cli_request *r, cuplug_module *mods,
                     const cuplug_module **ptrs, char **texts) {
  for (size_t i = 0; i < r->num_files; i++) {
    const char *name = strcmp(r->files[i], "-") ? r->files[i] : "<stdin>";
    size_t size;
    if (!(texts[i] = cli_read_file(r->files[i], &size)))
      return read_error(api, r->files[i], name, size);
    mods[i] = (cuplug_module){sizeof(cuplug_module), name, texts[i], size};
    ptrs[i] = &mods[i];
  }
  return 0;
}

/* Whether the message ends with ": " and the line (the first error of a
 * parse, NVRTC or nvJitLink, which the plugin quotes from the log). */
static bool quotes(const char *message, size_t mlen, const char *line, size_t len) {
  return len && len + 2 <= mlen && !memcmp(message + mlen - len - 2, ": ", 2) &&
         !memcmp(message + mlen - len, line, len);
}

/* Text as whole lines. */
static void put_lines(const char *text) {
  size_t n = strlen(text);
  if (n) fprintf(stderr, "%s%s", text, text[n - 1] == '\n' ? "" : "\n");
}

/* The log, without the line the message quotes: that is printed once. */
static void print_log(const char *log, const char *message) {
  size_t mlen = strlen(message);
  for (const char *line = log; *line;) {
    size_t n = strcspn(line, "\n");
    size_t lead = strspn(line, " \t"), len = n - (n > lead && line[n - 1] == '\r') - lead;
    if (quotes(message, mlen, line + lead, len)) {
      fprintf(stderr, "%.*s", (int)(line - log), log);
      put_lines(line + n + (line[n] == '\n'));
      return;
    }
    line += n + (line[n] == '\n');
  }
  put_lines(log);
}

int cli_report(const cuplug_api *api, cuplug_error *e) {
  const char *message = api->error_message(e), *log = api->error_log(e);
  fprintf(stderr, "cuplug: error: %s: %s\n", api->status_name(api->error_code(e)), message);
  if (*log) print_log(log, message);
  api->error_destroy(e);
  return 1;
}

int cli_fail(const cuplug_api *api, cuplug_error *e) {
  fprintf(stderr, "cuplug: error: %s: %s\n", api->status_name(api->error_code(e)),
          api->error_message(e));
  api->error_destroy(e);
  return 1;
}
