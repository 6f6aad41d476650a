/* ir.h - what the layers hand each other about NVVM IR: a module's text,
 * and the IR version libNVVM reads (which the text must declare). */
#ifndef CUPLUG__BASE_IR_H
#define CUPLUG__BASE_IR_H

#include <stddef.h>

/* A module: text[size] is NUL unless the holder says otherwise; the name
 * is for messages. */
typedef struct cuplug__text {
  const char *name;
  const char *text;
  size_t size;
} cuplug__text;

/* The NVVM IR version libNVVM reports: IR major/minor, debug major/minor. */
typedef struct cuplug__ir_version {
  int ir_major, ir_minor, dbg_major, dbg_minor;
} cuplug__ir_version;

#endif
