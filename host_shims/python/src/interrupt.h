/* interrupt.h - Ctrl-C during a launch or a call on the CPU (interrupt.c). */
#ifndef CUPLUG_PY_INTERRUPT_H
#define CUPLUG_PY_INTERRUPT_H

#include "shim.h"

/* With the GIL, before the GIL is released for the launch or call: the
 * flag to hand it (its interrupt field), or NULL off the main thread. */
const volatile int32_t *shim_interrupt_begin(void);

/* With the GIL again, after it: Python's SIGINT handler back, and a
 * Ctrl-C that came meanwhile handed to it.  When the plugin's error *e
 * says the flag stopped the launch and the handler raised (as its default,
 * KeyboardInterrupt), *e is destroyed and -1 returned; else 0. */
int shim_interrupt_end(shim_state *st, const volatile int32_t *flag, cuplug_error **e);

#endif
