/* worker.h - threads a session keeps to run tasks beside a compile.
 *
 * Starting a thread costs 40-90 us, as much as cuplug's whole share of a
 * small compile, so a session keeps the threads it has started and hands
 * each compile an idle one. */
#ifndef CUPLUG__BASE_WORKER_H
#define CUPLUG__BASE_WORKER_H

#include <pthread.h>
#include <stdbool.h>

typedef struct cuplug__worker cuplug__worker;

typedef struct cuplug__pool {
  pthread_mutex_t lock;
  cuplug__worker *idle; /* ready for a task */
  cuplug__worker *all;  /* every worker, for shutdown */
} cuplug__pool;

void cuplug__pool_init(cuplug__pool *p);
/* Stops and joins every worker; no task may be running. */
void cuplug__pool_release(cuplug__pool *p);
/* Runs task(arg) on an idle worker (starting one if none is idle).  NULL
 * when no thread can be had: the caller then runs the task itself. */
cuplug__worker *cuplug__pool_run(cuplug__pool *p, void (*task)(void *), void *arg);
/* Waits for the task to finish and gives the worker back to the pool. */
void cuplug__pool_wait(cuplug__pool *p, cuplug__worker *w);

#endif
