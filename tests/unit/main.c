/* main.c - runs a unit suite, or one case of it, by name:
 * cuplug_unit SUITE[.CASE] (cuplug_unit --list names them all).  What each
 * case needs is the suite's to say (t_tcase): a case that needs the CUDA
 * toolkit or a GPU is skipped where it is missing, the others run. */
#include "support.h"

Suite *suite_types(void);
Suite *suite_irtext(void);
Suite *suite_lowering(void);
Suite *suite_legalize(void);
Suite *suite_options(void);
Suite *suite_compile(void);
Suite *suite_link(void);
Suite *suite_registry(void);
Suite *suite_builtins(void);
Suite *suite_nogpu(void);
Suite *suite_safety(void);
Suite *suite_limits(void);
Suite *suite_handoff(void);
Suite *suite_cache(void);
Suite *suite_sigcheck(void);
Suite *suite_backends(void);
Suite *suite_modern(void);
Suite *suite_dialect(void);
Suite *suite_nvptx(void);
Suite *suite_remote(void);

static const t_suite_def suites[] = {
    {"types", suite_types},       {"irtext", suite_irtext},   {"lowering", suite_lowering},
    {"legalize", suite_legalize}, {"options", suite_options}, {"compile", suite_compile},
    {"link", suite_link},         {"registry", suite_registry}, {"builtins", suite_builtins},
    {"nogpu", suite_nogpu},       {"safety", suite_safety},   {"limits", suite_limits},
    {"handoff", suite_handoff},   {"cache", suite_cache},
    {"sigcheck", suite_sigcheck}, {"backends", suite_backends},
    {"modern", suite_modern},     {"dialect", suite_dialect},
    {"nvptx", suite_nvptx},       {"remote", suite_remote},
};

int main(int argc, char **argv) {
  return t_main(argc, argv, suites, sizeof suites / sizeof suites[0]);
}
