/* worker.c - threads a session keeps to run tasks beside a compile. */
#include "base/worker.h"

#include <stdlib.h>

struct cuplug__worker {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake; /* a task or quit arrived */
  pthread_cond_t done; /* the task finished */
  void (*task)(void *);
  void *arg;
  bool has_task, finished, quit;
  cuplug__worker *next_idle, *next_all;
};

static void *worker_main(void *arg) {
  cuplug__worker *w = arg;
  pthread_mutex_lock(&w->lock);
  for (;;) {
    while (!w->has_task && !w->quit) pthread_cond_wait(&w->wake, &w->lock);
    if (w->quit) break;
    w->has_task = false;
    pthread_mutex_unlock(&w->lock);
    w->task(w->arg);
    pthread_mutex_lock(&w->lock);
    w->finished = true;
    pthread_cond_signal(&w->done);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

void cuplug__pool_init(cuplug__pool *p) {
  pthread_mutex_init(&p->lock, NULL);
  p->idle = p->all = NULL;
}

void cuplug__pool_release(cuplug__pool *p) {
  cuplug__worker *w = p->all;
  while (w) {
    cuplug__worker *next = w->next_all;
    pthread_mutex_lock(&w->lock);
    w->quit = true;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->wake);
    pthread_cond_destroy(&w->done);
    free(w);
    w = next;
  }
  p->idle = p->all = NULL;
  pthread_mutex_destroy(&p->lock);
}

static cuplug__worker *start_worker(void) {
  cuplug__worker *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  pthread_mutex_init(&w->lock, NULL);
  pthread_cond_init(&w->wake, NULL);
  pthread_cond_init(&w->done, NULL);
  if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->wake);
    pthread_cond_destroy(&w->done);
    free(w);
    return NULL;
  }
  return w;
}

cuplug__worker *cuplug__pool_run(cuplug__pool *p, void (*task)(void *), void *arg) {
  pthread_mutex_lock(&p->lock);
  cuplug__worker *w = p->idle;
  if (w) p->idle = w->next_idle;
  pthread_mutex_unlock(&p->lock);
  if (!w) {
    if (!(w = start_worker())) return NULL;
    pthread_mutex_lock(&p->lock);
    w->next_all = p->all;
    p->all = w;
    pthread_mutex_unlock(&p->lock);
  }
  pthread_mutex_lock(&w->lock);
  w->task = task;
  w->arg = arg;
  w->has_task = true;
  w->finished = false;
  pthread_cond_signal(&w->wake);
  pthread_mutex_unlock(&w->lock);
  return w;
}

void cuplug__pool_wait(cuplug__pool *p, cuplug__worker *w) {
  pthread_mutex_lock(&w->lock);
  while (!w->finished) pthread_cond_wait(&w->done, &w->lock);
  pthread_mutex_unlock(&w->lock);
  pthread_mutex_lock(&p->lock);
  w->next_idle = p->idle;
  p->idle = w;
  pthread_mutex_unlock(&p->lock);
}
