/* wire.c - toolkit jobs and their results as bytes.
 *
 * Payload fields: a number is 8 bytes; a string is its length (8 bytes),
 * its bytes and a NUL, so that a decoded string can point into the payload
 * and still be a C string (binary data keeps its length). */
#include "plugin/helper/wire.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/error.h"

bool cuplug__wire_send(int fd, const void *data, size_t n) {
  const char *p = data;
  while (n) {
    ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= (size_t)k;
  }
  return true;
}

void cuplug__wire_header(unsigned char out[CUPLUG__WIRE_HEADER], uint32_t type, uint64_t size) {
  uint32_t magic = CUPLUG__WIRE_MAGIC;
  memcpy(out, &magic, 4);
  memcpy(out + 4, &type, 4);
  memcpy(out + 8, &size, 8);
}

bool cuplug__wire_send_wake(int fd) {
  unsigned char note[CUPLUG__WIRE_HEADER];
  cuplug__wire_header(note, CUPLUG__WIRE_WAKE, 0);
  return cuplug__wire_send(fd, note, sizeof note);
}

bool cuplug__wire_read_header(const unsigned char in[CUPLUG__WIRE_HEADER], uint32_t *type,
                              uint64_t *size) {
  uint32_t magic;
  memcpy(&magic, in, 4);
  memcpy(type, in + 4, 4);
  memcpy(size, in + 8, 8);
  return magic == CUPLUG__WIRE_MAGIC && *size <= CUPLUG__WIRE_MAX_PAYLOAD;
}

/* ---- writing ---- */

static void put_u64(cuplug__buf *b, uint64_t v) { cuplug__buf_append(b, (const char *)&v, 8); }

static void put_string(cuplug__buf *b, const char *s, size_t n) {
  put_u64(b, n);
  cuplug__buf_append(b, s ? s : "", s ? n : 0);
  cuplug__buf_append(b, "", 1);
}

static void put_cstring(cuplug__buf *b, const char *s) { put_string(b, s, s ? strlen(s) : 0); }

/* The bytes a string takes: its length, itself and a NUL. */
static size_t string_size(size_t n) { return 8 + n + 1; }

void cuplug__wire_put_job(cuplug__buf *b, const char *library, int cpu,
                          const cuplug__tool_job *job) {
  /* room for it all at once: a module is copied once, not regrown */
  size_t need = 6 * 8 + string_size(library ? strlen(library) : 0);
  for (size_t i = 0; i < job->num_options; i++) need += string_size(strlen(job->options[i]));
  for (size_t i = 0; i < job->num_inputs; i++)
    need += 8 + string_size(job->inputs[i].name ? strlen(job->inputs[i].name) : 0) +
            string_size(job->inputs[i].size);
  cuplug__buf_reserve(b, need);
  put_u64(b, job->tool);
  put_u64(b, (job->libdevice ? 1u : 0u) | (job->ptx ? 2u : 0u));
  put_cstring(b, library);
  put_u64(b, cpu < 0 ? 0 : (uint64_t)cpu + 1); /* 0: any CPU */
  put_u64(b, job->num_options);
  for (size_t i = 0; i < job->num_options; i++) put_cstring(b, job->options[i]);
  put_u64(b, job->num_inputs);
  for (size_t i = 0; i < job->num_inputs; i++) {
    const cuplug__tool_input *in = &job->inputs[i];
    put_u64(b, in->kind);
    put_cstring(b, in->name);
    put_string(b, in->data, in->size);
  }
}

void cuplug__wire_put_result(cuplug__buf *b, const cuplug_error *e,
                             const cuplug__tool_output *out) {
  const char *log = e ? e->log : out->log;
  cuplug__buf_reserve(b, 4 * 8 + string_size(e && e->message ? strlen(e->message) : 0) +
                             string_size(log ? strlen(log) : 0) + string_size(e ? 0 : out->size));
  put_u64(b, e ? (uint64_t)e->code : 0);
  put_cstring(b, e ? e->message : NULL);
  put_cstring(b, e ? e->log : out->log);
  put_string(b, e ? NULL : out->data, e ? 0 : out->size);
  put_u64(b, out->times.started);
  put_u64(b, out->times.finished);
}

/* ---- reading: every length is checked against what is left ---- */

typedef struct reader {
  const char *p;
  uint64_t left;
  bool ok;
} reader;

static uint64_t get_u64(reader *r) {
  uint64_t v = 0;
  if (r->left < 8) {
    r->ok = false;
    return 0;
  }
  memcpy(&v, r->p, 8);
  r->p += 8;
  r->left -= 8;
  return v;
}

static const char *get_string(reader *r, size_t *len) {
  uint64_t n = get_u64(r);
  if (!r->ok || n >= r->left || r->p[n] != '\0') {
    r->ok = false;
    *len = 0;
    return "";
  }
  const char *s = r->p;
  r->p += n + 1;
  r->left -= n + 1;
  *len = (size_t)n;
  return s;
}

/* A count of things that each take at least `each` bytes: never more than
 * could fit in what is left. */
static size_t get_count(reader *r, uint64_t each) {
  uint64_t n = get_u64(r);
  if (!r->ok || n > r->left / each) {
    r->ok = false;
    return 0;
  }
  return (size_t)n;
}

bool cuplug__wire_get_job(char *payload, uint64_t size, cuplug__wire_job *out) {
  memset(out, 0, sizeof *out);
  reader r = {payload, size, true};
  size_t len;
  out->job.tool = (cuplug__tool)get_u64(&r);
  uint64_t flags = get_u64(&r);
  out->job.libdevice = flags & 1;
  out->job.ptx = flags & 2;
  out->library = (char *)get_string(&r, &len);
  uint64_t cpu = get_u64(&r);
  out->cpu = cpu && cpu <= CPU_SETSIZE ? (int)(cpu - 1) : -1;
  out->job.num_options = get_count(&r, 9);
  out->options = calloc(out->job.num_options + 1, sizeof *out->options);
  for (size_t i = 0; r.ok && out->options && i < out->job.num_options; i++)
    out->options[i] = (char *)get_string(&r, &len);
  out->job.num_inputs = get_count(&r, 26);
  out->inputs = calloc(out->job.num_inputs + 1, sizeof *out->inputs);
  for (size_t i = 0; r.ok && out->inputs && i < out->job.num_inputs; i++) {
    cuplug__tool_input *in = &out->inputs[i];
    in->kind = (uint32_t)get_u64(&r);
    in->name = get_string(&r, &len);
    in->data = get_string(&r, &in->size);
  }
  out->job.options = (const char *const *)out->options;
  out->job.inputs = out->inputs;
  if (!r.ok || r.left || !out->options || !out->inputs) {
    cuplug__wire_job_free(out);
    return false;
  }
  return true;
}

void cuplug__wire_job_free(cuplug__wire_job *j) {
  free(j->options);
  free(j->inputs);
  memset(j, 0, sizeof *j);
}

cuplug_error *cuplug__wire_get_result(const char *payload, uint64_t size,
                                      cuplug__tool_output *out) {
  memset(out, 0, sizeof *out);
  reader r = {payload, size, true};
  size_t message_len, log_len, data_len;
  uint64_t code = get_u64(&r);
  const char *message = get_string(&r, &message_len);
  const char *log = get_string(&r, &log_len);
  const char *data = get_string(&r, &data_len);
  uint64_t started = get_u64(&r), finished = get_u64(&r);
  if (!r.ok || r.left)
    return cuplug__error(CUPLUG_ERR_TOOLKIT_CRASH, "the helper process answered garbled bytes");
  if (code) return cuplug__error_log((cuplug_status)code, log, "%s", message);
  out->log = cuplug__strndup(log, log_len);
  out->data = malloc(data_len + 1);
  if (!out->log || !out->data) {
    cuplug__tool_output_free(out);
    return cuplug__error_oom();
  }
  memcpy(out->data, data, data_len);
  out->data[data_len] = '\0';
  out->size = data_len;
  out->times.started = started;
  out->times.finished = finished;
  return NULL;
}
