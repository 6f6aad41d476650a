/* test_compile.c - (being written) */
#include "support.h"

Suite *suite_compile(void) { return suite_create("compile"); }
