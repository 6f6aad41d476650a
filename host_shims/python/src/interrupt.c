/* interrupt.c - Ctrl-C during a launch or a call on the CPU.
 *
 * Python's SIGINT handler only notes the signal: the interpreter acts on
 * it between bytecodes, which a launch with the GIL released never
 * reaches, so a kernel that spins would hold the process for ever.  Around
 * such a launch, on the main thread (where Python handles signals), a C
 * handler sets the flag that the launch watches (cuplug_launch_args'
 * interrupt), and the plugin stops it.  Python's handler comes back after,
 * and the signal is handed to it (PyErr_SetInterrupt): KeyboardInterrupt,
 * as Ctrl-C raises anywhere else.  The GIL keeps begin and end in order. */
#include "interrupt.h"

#include <signal.h>

_Static_assert(sizeof(sig_atomic_t) == sizeof(int32_t), "the flag is the plugin's int32_t");

static volatile sig_atomic_t flag;
static struct sigaction saved;
static bool installed;
static unsigned long main_ident; /* threading.main_thread().ident, 0: not known yet */

static void on_sigint(int sig) {
  (void)sig;
  flag = 1;
}

static bool on_main_thread(void) {
  if (!main_ident) {
    PyObject *threading = PyImport_ImportModule("threading");
    PyObject *main = threading ? PyObject_CallMethod(threading, "main_thread", NULL) : NULL;
    PyObject *ident = main ? PyObject_GetAttrString(main, "ident") : NULL;
    if (ident) main_ident = PyLong_AsUnsignedLong(ident);
    Py_XDECREF(ident);
    Py_XDECREF(main);
    Py_XDECREF(threading);
    if (PyErr_Occurred()) {
      PyErr_Clear();
      main_ident = 0;
    }
  }
  return main_ident && PyThread_get_thread_ident() == main_ident;
}

const volatile int32_t *shim_interrupt_begin(void) {
  if (installed || !on_main_thread() || sigaction(SIGINT, NULL, &saved) != 0 ||
      saved.sa_handler == SIG_IGN)
    return NULL;
  struct sigaction a = {0};
  a.sa_handler = on_sigint;
  sigemptyset(&a.sa_mask);
  if (sigaction(SIGINT, &a, NULL) != 0) return NULL;
  installed = true;
  flag = 0;
  return (const volatile int32_t *)&flag;
}

int shim_interrupt_end(shim_state *st, const volatile int32_t *watched, cuplug_error **e) {
  if (!watched) return 0;
  sigaction(SIGINT, &saved, NULL);
  installed = false;
  if (!flag) return 0;
  flag = 0;
  PyErr_SetInterrupt();
  if (!*e || st->api->error_code(*e) != CUPLUG_ERR_INTERRUPTED) return 0;
  if (PyErr_CheckSignals() == 0) return 0; /* a handler of the host's let it pass */
  st->api->error_destroy(*e);
  *e = NULL;
  return -1;
}
