/* symbol.h - a function of the runtime the JIT'd code calls, by name. */
#ifndef CUPLUG__PLUGIN_CPU_SYMBOL_H
#define CUPLUG__PLUGIN_CPU_SYMBOL_H


typedef struct cuplug__cpu_symbol {
  const char *name;
  void *address;
} cuplug__cpu_symbol;

#endif
