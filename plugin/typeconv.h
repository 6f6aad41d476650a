/* typeconv.h - numba's ranking of conversions between types. */
#ifndef CUPLUG_TYPECONV_H
#define CUPLUG_TYPECONV_H

#include "types.h"

/* Better conversions compare smaller. */
typedef enum cuplug__conversion {
  CUPLUG_CONV_EXACT = 0,
  CUPLUG_CONV_PROMOTE = 1,
  CUPLUG_CONV_SAFE = 2,
  CUPLUG_CONV_UNSAFE = 3,
  CUPLUG_CONV_NONE = 4
} cuplug__conversion;

/* How `from` converts to `to`; *distance (may be NULL) ranks conversions
 * of one kind: smaller is nearer. */
cuplug__conversion cuplug__convert(const cuplug_type *from, const cuplug_type *to,
                                   unsigned *distance);
const char *cuplug__conversion_name(cuplug__conversion c);

#endif
