/* test_irtext.c - (being written) */
#include "support.h"

Suite *suite_irtext(void) { return suite_create("irtext"); }
