/* fuzz_case_json.c - the CLI's case.json reader. */
#include "cli.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_string(data, size);
  cli_request r;
  memset(&r, 0, sizeof r);
  char err[512];
  err[0] = '\0';
  if (!cli_case_parse(text, "case", &r, err, sizeof err) && !err[0]) abort();
  cli_request_free(&r);
  free(text);
  return 0;
}
