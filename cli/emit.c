/* emit.c - an artifact's by-products written beside its result: the IR
 * handed to libNVVM (--emit-ir) and the PTX a link made (--ptx). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "build.h"
#include "io.h"

int cli_emit_ir(const cuplug_api *api, const cuplug_artifact *art, const char *dir, size_t n) {
  mkdir(dir, 0777);
  for (size_t i = 0; i < n; i++) {
    cuplug_ir_view v = {.struct_size = sizeof v};
    cuplug_error *e = api->artifact_ir(art, i, &v);
    if (e) return cli_report(api, e);
    /* DIR/<index>-<the module's file name>.ll */
    const char *base = strrchr(v.name, '/');
    base = base ? base + 1 : v.name;
    size_t len = strlen(base);
    bool ll = len >= 3 && strcmp(base + len - 3, ".ll") == 0;
    char *path = cli_format("%s/%zu-%s%s", dir, i, base, ll ? "" : ".ll");
    int rc = cli_write_output(api, path, v.text, v.size);
    free(path);
    if (rc) return rc;
  }
  return 0;
}

int cli_write_linked_ptx(const cuplug_api *api, const cuplug_artifact *art, const char *path) {
  for (size_t i = 1;; i++) {
    cuplug_part p = {.struct_size = sizeof p};
    cuplug_error *e = api->artifact_part(art, i, &p);
    if (e) {
      api->error_destroy(e);
      fprintf(stderr, "cuplug: error: no linked PTX to write (it needs a cubin with LTO)\n");
      return 1;
    }
    if (p.kind == CUPLUG_CODE_PTX) return cli_write_output(api, path, p.data, p.size);
  }
}
