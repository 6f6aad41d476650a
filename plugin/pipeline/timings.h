/* timings.h - where the time of a compile or a link goes: each stage
 * timed as it ends, for the result to tell (artifact_stage).  A stage that
 * ran a toolkit job is split where the library call started and finished:
 * "hand_over" (the job built and sent, and in a helper process read),
 * the stage's own name for the library's time, and "hand_back" (the result
 * sent, read and taken in). */
#ifndef CUPLUG__PLUGIN_PIPELINE_TIMINGS_H
#define CUPLUG__PLUGIN_PIPELINE_TIMINGS_H

#include <stddef.h>
#include <stdint.h>

#include "cuplug/cuplug.h"
#include "plugin/session/artifact.h"
#include "plugin/toolkit/tool.h"

/* The most timings one result keeps. */
#define CUPLUG__MAX_TIMINGS 48

typedef struct cuplug__timings {
  cuplug__stage_time t[CUPLUG__MAX_TIMINGS];
  size_t n;
  uint64_t mark; /* when the stage under way began (base/clock.h) */
} cuplug__timings;

/* Begins the first stage now. */
void cuplug__timings_start(cuplug__timings *t);
/* Ends the stage under way, `name` (static), and begins the next; `tool`:
 * the toolkit job it ran, or NULL. */
void cuplug__timings_end(cuplug__timings *t, const char *name, const cuplug__tool_times *tool);
/* Hands the timings to the result (which keeps none when memory is out:
 * they only inform). */
void cuplug__timings_keep(const cuplug__timings *t, cuplug_artifact *art);

#endif
