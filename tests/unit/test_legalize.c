/* test_legalize.c - (being written) */
#include "support.h"

Suite *suite_legalize(void) { return suite_create("legalize"); }
