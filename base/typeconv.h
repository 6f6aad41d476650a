/* typeconv.h - numba's ranking of conversions between types. */
#ifndef CUPLUG__BASE_TYPECONV_H
#define CUPLUG__BASE_TYPECONV_H

#include "base/types.h"

/* Better conversions compare smaller. */
typedef enum cuplug__conversion {
  CUPLUG__CONV_EXACT = 0,
  CUPLUG__CONV_PROMOTE = 1,
  CUPLUG__CONV_SAFE = 2,
  CUPLUG__CONV_UNSAFE = 3,
  CUPLUG__CONV_NONE = 4
} cuplug__conversion;

/* How `from` converts to `to`; *distance (may be NULL) ranks conversions
 * of one kind: smaller is nearer. */
cuplug__conversion cuplug__convert(const cuplug_type *from, const cuplug_type *to,
                                   unsigned *distance);
const char *cuplug__conversion_name(cuplug__conversion c);

#endif
