/* test_options.c - (being written) */
#include "support.h"

Suite *suite_options(void) { return suite_create("options"); }
