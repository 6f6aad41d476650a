/* worker.c - a host thread running a block: the waits of its threads at
 * barriers and warp collectives, and what each gets when they resolve.
 * The block's scheduler (grid.c) settles them when every thread waits;
 * outside a launch, a lone thread's wait settles at once. */
#include "plugin/cpu/worker.h"

#include <stdbool.h>

__thread cuplug__cpu_worker *cuplug__cpu_current __attribute__((tls_model("initial-exec")));

/* PTX's shfl.sync: the source lane for each mode, within the segment
 * that c's upper bits give, else the lane's own value. */
static void settle_shfl(cuplug__fiber *lanes, uint32_t n, uint32_t l) {
  cuplug__fiber *f = &lanes[l];
  uint32_t cval = f->c & 0x1f, segmask = (f->c >> 8) & 0x1f;
  uint32_t max_lane = (l & segmask) | (cval & ~segmask), min_lane = l & segmask;
  int32_t j;
  bool ok;
  switch (f->mode) {
    case 1: j = (int32_t)l - (int32_t)f->b; ok = j >= (int32_t)max_lane; break; /* up */
    case 2: j = (int32_t)(l + f->b); ok = j <= (int32_t)max_lane; break;       /* down */
    case 3: j = (int32_t)(l ^ f->b); ok = j <= (int32_t)max_lane; break;       /* bfly */
    default: j = (int32_t)(min_lane | (f->b & ~segmask)); ok = j <= (int32_t)max_lane; break;
  }
  if (!ok || j < 0 || (uint32_t)j >= n || lanes[j].state == CUPLUG__DONE) j = (int32_t)l;
  f->result = lanes[j].value;
  f->result_pred = ok;
}

void cuplug__cpu_settle_warp(cuplug__fiber *lanes, uint32_t n) {
  uint32_t live = 0, ballot = 0;
  for (uint32_t l = 0; l < n; l++) {
    if (lanes[l].state == CUPLUG__DONE) continue;
    live |= 1u << l;
    if (lanes[l].op == CUPLUG__VOTE && lanes[l].pred) ballot |= 1u << l;
  }
  for (uint32_t l = 0; l < n; l++) {
    cuplug__fiber *f = &lanes[l];
    if (f->state != CUPLUG__WARP) continue;
    if (f->op == CUPLUG__SHFL) {
      settle_shfl(lanes, n, l);
    } else if (f->op == CUPLUG__VOTE) {
      uint32_t in = ballot & f->mask & live, members = f->mask & live;
      f->result = in; /* ballot */
      switch (f->mode) {
        case 0: f->result_pred = in == members; break;          /* all */
        case 1: f->result_pred = in != 0; break;                /* any */
        case 2: f->result_pred = in == 0 || in == members; break; /* uni */
        default: f->result_pred = 0; break;
      }
    }
  }
  for (uint32_t l = 0; l < n; l++)
    if (lanes[l].state == CUPLUG__WARP) lanes[l].state = CUPLUG__READY;
}

void cuplug__cpu_settle_barrier(cuplug__fiber *fibers, uint32_t n) {
  uint32_t count = 0;
  for (uint32_t t = 0; t < n; t++) count += fibers[t].pred != 0;
  for (uint32_t t = 0; t < n; t++) {
    cuplug__fiber *f = &fibers[t];
    f->result = f->mode == 0 ? count : f->mode == 1 ? count == n : count != 0;
    f->state = CUPLUG__READY;
  }
}

void cuplug__cpu_yield(cuplug__fiber *f, cuplug__fiber_state state) {
  cuplug__cpu_worker *w = cuplug__cpu_current;
  f->state = state;
  if (w && w->fibers) {
    CUPLUG__TSAN_SWITCH(w->sched_tsan);
    cuplug__fiber_switch(&f->sp, w->sched_sp);
  } else if (state == CUPLUG__WARP) { /* one thread, outside a launch */
    cuplug__cpu_settle_warp(f, 1);
  } else {
    cuplug__cpu_settle_barrier(f, 1);
  }
}

