/* sigint.c - Ctrl-C during a run on the CPU.  The plugin installs no
 * signal handler (it is a library): the tool does, around its runs, and
 * hands the flag it sets to each launch and call, which then stop and
 * return CUPLUG_ERR_INTERRUPTED.  A kernel that spins for ever ends this
 * way, and the tool exits 130. */
#include "sigint.h"

#include <signal.h>
#include <stddef.h>

#include "io.h"

_Static_assert(sizeof(sig_atomic_t) == sizeof(int32_t), "the flag is the plugin's int32_t");

static volatile sig_atomic_t interrupted;
const volatile int32_t *const cli_sigint_flag = (const volatile int32_t *)&interrupted;
static struct sigaction saved;
static int caught;

static void on_sigint(int sig) {
  (void)sig;
  interrupted = 1;
}

void cli_sigint_catch(void) {
  if (caught++ || sigaction(SIGINT, NULL, &saved) != 0 || saved.sa_handler == SIG_IGN) return;
  struct sigaction a = {0};
  a.sa_handler = on_sigint;
  sigemptyset(&a.sa_mask);
  sigaction(SIGINT, &a, NULL);
}

void cli_sigint_release(void) {
  if (--caught == 0 && saved.sa_handler != SIG_IGN) sigaction(SIGINT, &saved, NULL);
}

int cli_run_fail(const cuplug_api *api, cuplug_error *e) {
  bool stopped = api->error_code(e) == CUPLUG_ERR_INTERRUPTED;
  cli_fail(api, e);
  return stopped ? 130 : 1;
}
