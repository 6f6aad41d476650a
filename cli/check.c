/* check.c - `case --check`: the result's PTX signature (return and
 * parameter layout, ptxsig.c) against the one numba-cuda's PTX has. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "io.h"
#include "ptxsig.h"

int cli_check_ptx(const cuplug_api *api, const cuplug_artifact_info *info,
                  const char *expected_path) {
  size_t size;
  char *expected = cli_read_file(expected_path, &size);
  if (!expected) return cli_io_error(api, "cannot read %s: %s", expected_path, strerror(errno));
  bool kernel = info->kind == CUPLUG_KERNEL;
  ptxsig want, got;
  char a[2048], b[2048];
  bool have_want = ptxsig_read(expected, kernel ? NULL : info->symbol, &want);
  bool have_got = ptxsig_read(info->data, kernel ? NULL : info->symbol, &got);
  free(expected);
  if (!have_want || !have_got) {
    fprintf(stderr, "cuplug: check: no visible %s %s in %s\n", kernel ? "kernel" : "function",
            kernel ? "" : info->symbol, have_want ? "cuplug's PTX" : expected_path);
    return 1;
  }
  ptxsig_format(&got, a, sizeof a);
  ptxsig_format(&want, b, sizeof b);
  if (!ptxsig_same(&got, &want)) {
    fprintf(stderr, "cuplug: check: layouts differ\n  cuplug:   %s\n  expected: %s\n", a, b);
    return 1;
  }
  fprintf(stderr, "cuplug: check: %s matches %s\n", a, expected_path);
  return 0;
}
