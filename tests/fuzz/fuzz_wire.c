/* fuzz_wire.c - what the host and its helper process read from each other
 * (plugin/helper/wire.h): a job, which the helper decodes in place, and a
 * result, which the host decodes into a new output.  Either end may be
 * handed anything (a helper that crashed mid-answer, a stray process on
 * the socket): a decode must succeed or refuse, never read past the bytes.
 *
 * The first byte chooses: 0, the bytes as a job's payload; 1, as a
 * result's; 2, a job made of the bytes (options and inputs cut at NULs),
 * which must survive its encoding; 3, a result made of them, likewise. */
#include "base/buf.h"
#include "base/error.h"
#include "fuzz.h"
#include "plugin/helper/wire.h"

/* The bytes cut at NULs, at most `max` pieces. */
static size_t pieces(const uint8_t *data, size_t size, const char **out, size_t *len,
                     size_t max) {
  size_t n = 0, start = 0;
  for (size_t i = 0; i <= size && n < max; i++) {
    if (i == size || data[i] == 0) {
      out[n] = (const char *)data + start;
      len[n++] = i - start;
      start = i + 1;
    }
  }
  return n;
}

static void job_round_trip(const uint8_t *data, size_t size) {
  const char *piece[16];
  size_t len[16];
  size_t n = pieces(data, size, piece, len, 16);
  /* the first half are options (strings), the rest inputs (bytes) */
  char *opts[8];
  size_t num_options = n / 2;
  for (size_t i = 0; i < num_options; i++) opts[i] = fuzz_string((const uint8_t *)piece[i], len[i]);
  cuplug__tool_input in[16];
  size_t num_inputs = n - num_options;
  for (size_t i = 0; i < num_inputs; i++)
    in[i] = (cuplug__tool_input){(uint32_t)i, "m", piece[num_options + i], len[num_options + i]};
  cuplug__tool_job job = {.tool = CUPLUG__TOOL_NVVM, .options = (const char *const *)opts,
                          .num_options = num_options, .inputs = in, .num_inputs = num_inputs,
                          .libdevice = size & 1, .ptx = size & 2};
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__wire_put_job(&b, "/lib/libnvvm.so", (int)(size % 5) - 1, &job);
  if (b.oom) abort();
  cuplug__wire_job got;
  if (!cuplug__wire_get_job(b.data, b.len, &got)) abort();
  if (got.job.num_options != num_options || got.job.num_inputs != num_inputs ||
      got.job.libdevice != job.libdevice || got.job.ptx != job.ptx ||
      strcmp(got.library, "/lib/libnvvm.so") != 0)
    abort();
  for (size_t i = 0; i < num_options; i++)
    if (strcmp(got.job.options[i], opts[i]) != 0) abort();
  for (size_t i = 0; i < num_inputs; i++)
    if (got.job.inputs[i].size != in[i].size || got.job.inputs[i].kind != in[i].kind ||
        memcmp(got.job.inputs[i].data, in[i].data, in[i].size) != 0)
      abort();
  cuplug__wire_job_free(&got);
  cuplug__buf_free(&b);
  for (size_t i = 0; i < num_options; i++) free(opts[i]);
}

static void result_round_trip(const uint8_t *data, size_t size) {
  const char *piece[2];
  size_t len[2];
  size_t n = pieces(data, size, piece, len, 2);
  char *log = fuzz_string((const uint8_t *)piece[0], len[0]);
  cuplug__tool_output out = {.data = n > 1 ? (char *)piece[1] : "", .size = n > 1 ? len[1] : 0,
                             .log = log, .times = {.started = size, .finished = size * 3}};
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__wire_put_result(&b, NULL, &out);
  if (b.oom) abort();
  cuplug__tool_output got;
  cuplug_error *e = cuplug__wire_get_result(b.data, b.len, &got);
  if (e || got.size != out.size || memcmp(got.data, out.data, out.size) != 0 ||
      got.data[got.size] != '\0' || strcmp(got.log, log) != 0 || got.times.started != size ||
      got.times.finished != size * 3)
    abort();
  cuplug__tool_output_free(&got);
  cuplug__buf_free(&b);
  free(log);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  switch (fuzz_choose(&data, &size, 4)) {
    case 0: { /* decoded in place: a copy the decoder may keep pointers into */
      char *payload = fuzz_string(data, size);
      cuplug__wire_job job;
      if (cuplug__wire_get_job(payload, size, &job)) {
        for (size_t i = 0; i < job.job.num_options; i++) (void)strlen(job.job.options[i]);
        for (size_t i = 0; i < job.job.num_inputs; i++)
          if (job.job.inputs[i].size && job.job.inputs[i].data[job.job.inputs[i].size] != '\0')
            abort();
        cuplug__wire_job_free(&job);
      }
      free(payload);
      break;
    }
    case 1: {
      char *payload = fuzz_string(data, size);
      cuplug__tool_output out;
      cuplug_error *e = cuplug__wire_get_result(payload, size, &out);
      if (e) {
        cuplug__error_destroy(e);
      } else {
        if (out.data[out.size] != '\0') abort();
        cuplug__tool_output_free(&out);
      }
      free(payload);
      break;
    }
    case 2: job_round_trip(data, size); break;
    default: result_round_trip(data, size); break;
  }
  return 0;
}
