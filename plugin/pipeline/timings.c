/* timings.c - where the time of a compile or a link goes. */
#include "plugin/pipeline/timings.h"

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"

void cuplug__timings_start(cuplug__timings *t) {
  t->n = 0;
  t->mark = cuplug__now_ns();
}

static void note(cuplug__timings *t, const char *name, uint64_t ns) {
  if (t->n < CUPLUG__MAX_TIMINGS) t->t[t->n++] = (cuplug__stage_time){name, ns};
}

void cuplug__timings_end(cuplug__timings *t, const char *name, const cuplug__tool_times *tool) {
  uint64_t start = t->mark, end = cuplug__now_ns();
  t->mark = end;
  /* stamps outside the stage (a job that did not run in it) do not split it */
  if (!tool || tool->started < start || tool->finished < tool->started || end < tool->finished) {
    note(t, name, end - start);
    return;
  }
  note(t, "hand_over", tool->started - start);
  note(t, name, tool->finished - tool->started);
  note(t, "hand_back", end - tool->finished);
}

void cuplug__timings_keep(const cuplug__timings *t, cuplug_artifact *art) {
  free(art->stages);
  art->stages = malloc((t->n ? t->n : 1) * sizeof *t->t);
  art->num_stages = art->stages ? t->n : 0;
  if (art->stages) memcpy(art->stages, t->t, t->n * sizeof *t->t);
}
