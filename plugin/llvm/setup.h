/* setup.h - LLVM's process-wide settings, made once for the plugin. */
#ifndef CUPLUG__PLUGIN_LLVM_SETUP_H
#define CUPLUG__PLUGIN_LLVM_SETUP_H

/* Sets LLVM's options before the first parse; any thread, any number of
 * times. */
void cuplug__llvm_setup(void);

#endif
