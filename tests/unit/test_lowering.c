/* test_lowering.c - (being written) */
#include "support.h"

Suite *suite_lowering(void) { return suite_create("lowering"); }
