/* sigint.h - Ctrl-C during a run on the CPU (sigint.c). */
#ifndef CUPLUG_CLI_SIGINT_H
#define CUPLUG_CLI_SIGINT_H

#include <stdint.h>

#include "cli.h"

/* The flag the run's launches and calls watch (their interrupt field): set
 * by SIGINT while cli_sigint_catch is in force. */
extern const volatile int32_t *const cli_sigint_flag;

/* From now until cli_sigint_release, SIGINT sets the flag rather than
 * ending the process (unless SIGINT is ignored, as in a background job). */
void cli_sigint_catch(void);
void cli_sigint_release(void);

/* The run's error printed (cli_fail); returns 130 when it is
 * CUPLUG_ERR_INTERRUPTED, as a shell reports a command SIGINT ended, else 1. */
int cli_run_fail(const cuplug_api *api, cuplug_error *e);

#endif
