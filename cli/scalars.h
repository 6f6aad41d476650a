/* scalars.h - a scalar's text as Python writes it, read and printed
 * (scalars.c), for `cuplug run`. */
#ifndef CUPLUG_CLI_SCALARS_H
#define CUPLUG_CLI_SCALARS_H

#include <stdbool.h>

#include "cuplug/cuplug.h"

/* Reads `text` as a value of kind k into `slot` (16 bytes); false when it
 * is none. */
bool cli_scalar_read(cuplug_type_kind k, const char *text, void *slot);
/* Prints the value of kind k at p, with no newline. */
void cli_scalar_print(cuplug_type_kind k, const void *p);

#endif
