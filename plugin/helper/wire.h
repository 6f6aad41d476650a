/* wire.h - toolkit jobs and their results as bytes, between cuplug and its
 * helper process.
 *
 * A message is a 16-byte header (magic, type, payload length) and a payload
 * of 64-bit numbers and length-prefixed byte strings, in the host's byte
 * order (both ends are the same build on the same machine).  Decoding
 * checks every length against what arrived: a short or garbled message is
 * an error, never a read past the end. */
#ifndef CUPLUG__PLUGIN_HELPER_WIRE_H
#define CUPLUG__PLUGIN_HELPER_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "cuplug/cuplug.h"
#include "plugin/toolkit/tool.h"

/* "CPL2": the second form (results carry clock stamps), so that a helper of
 * another build is told apart rather than misread */
#define CUPLUG__WIRE_MAGIC 0x324c5043u
#define CUPLUG__WIRE_HEADER 16
/* The largest payload either end accepts (a job holds a few modules of at
 * most CUPLUG_MAX_MODULE_SIZE each, or the code of one link). */
#define CUPLUG__WIRE_MAX_PAYLOAD ((uint64_t)1 << 32)

/* A job; its result; a wake-up: a job is coming, wait for it awake; a
 * result after which the helper goes, for an error it cannot outlive (an
 * LLVM fatal error: LLVM ends the process once it has reported it). */
enum {
  CUPLUG__WIRE_JOB = 1,
  CUPLUG__WIRE_RESULT = 2,
  CUPLUG__WIRE_WAKE = 3,
  CUPLUG__WIRE_FAREWELL = 4
};

/* Sends every byte on a socket; false when the other end is gone (no
 * SIGPIPE: neither end may die of the other's death). */
bool cuplug__wire_send(int fd, const void *data, size_t n);

/* Sends a wake-up note (a WAKE header, no payload): wakes the other end
 * that sleeps on the socket, to look at the shared memory (channel.h) or
 * to wait for a job awake; false when the other end is gone. */
bool cuplug__wire_send_wake(int fd);

/* Writes a message's header for a payload of `size` bytes. */
void cuplug__wire_header(unsigned char out[CUPLUG__WIRE_HEADER], uint32_t type, uint64_t size);
/* Reads a header: false when it is not one of ours. */
bool cuplug__wire_read_header(const unsigned char in[CUPLUG__WIRE_HEADER], uint32_t *type,
                              uint64_t *size);

/* A job: the library to run it with (its path), the CPU to run it on (-1:
 * any, see handoff.h), then the job itself. */
void cuplug__wire_put_job(cuplug__buf *b, const char *library, int cpu,
                          const cuplug__tool_job *job);
/* A job decoded in place: its strings and inputs point into `payload`,
 * which must outlive it; options and inputs are malloc'd arrays. */
typedef struct cuplug__wire_job {
  char *library;
  int cpu;
  cuplug__tool_job job;
  char **options;
  cuplug__tool_input *inputs;
} cuplug__wire_job;
bool cuplug__wire_get_job(char *payload, uint64_t size, cuplug__wire_job *out);
void cuplug__wire_job_free(cuplug__wire_job *j);

/* A result: the error (code 0 for none, message, log) or the output, and
 * when the library call started and finished (the output's times). */
void cuplug__wire_put_result(cuplug__buf *b, const cuplug_error *e,
                             const cuplug__tool_output *out);
/* Decodes a result into a new error (returned) or *out. */
cuplug_error *cuplug__wire_get_result(const char *payload, uint64_t size,
                                      cuplug__tool_output *out);

#endif
