/* cmd_registry.c - `cuplug resolve` and `cuplug list`: the registry of
 * cuplug's CUDA library as a host front end sees it, a call's typing and
 * the keys it holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "io.h"
#include "options.h"

/* Parses "a, b" or "(a, b)" into types (through a signature). */
static cuplug_error *parse_argtypes(const cuplug_api *api, const char *text,
                                    const cuplug_type *const **args, size_t *n) {
  size_t len = strlen(text);
  while (len && (text[len - 1] == ' ')) len--;
  while (*text == ' ') text++, len--;
  /* a list in parentheses: the outer pair goes */
  bool wrapped = len >= 2 && text[0] == '(' && text[len - 1] == ')';
  if (wrapped) {
    int depth = 0;
    for (size_t i = 0; i < len; i++) {
      depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
      if (depth == 0 && i < len - 1) wrapped = false; /* "(...)...(...)" */
    }
  }
  char *list = cli_format("void(%.*s)", (int)(wrapped ? len - 2 : len), wrapped ? text + 1 : text);
  const cuplug_type *sig = NULL;
  cuplug_error *e = api->type_parse(list, &sig);
  free(list);
  if (e) return e;
  cuplug_type_info info = {.struct_size = sizeof info, .type = sig};
  e = api->type_info(&info);
  if (e) return e;
  *args = info.args;
  *n = info.num_args;
  return NULL;
}

/* The name of a type (it has one: types are interned and named). */
static const char *type_name(const cuplug_api *api, const cuplug_type *t) {
  cuplug_type_info info = {.struct_size = sizeof info, .type = t};
  cuplug_error *e = api->type_info(&info);
  api->error_destroy(e);
  return e ? "?" : info.name;
}

int cli_cmd_resolve(const cuplug_api *api, int argc, char **argv) {
  cli_request q = {0};
  int rc = cli_parse_all(CLI_RESOLVE, "resolve", argc, argv, &q);
  if (rc) return rc;
  if (q.num_files != 2) return cli_usage("%s", "resolve takes [--strict] a KEY and its 'ARGTYPES'");
  const cuplug_type *const *args;
  size_t n;
  cuplug_error *e = parse_argtypes(api, q.files[1], &args, &n);
  if (e) return cli_report(api, e);
  cuplug_registry *r;
  e = api->registry_create(NULL, &r);
  if (e) return cli_report(api, e);
  cuplug_conversion conv[CUPLUG_MAX_ARGS];
  cuplug_resolve_args a = {.struct_size = sizeof a, .registry = r, .key = q.files[0],
                           .argtypes = args, .nargs = n, .arg_conversions = conv,
                           .flags = q.strict ? CUPLUG_RESOLVE_STRICT : 0};
  e = api->resolve_call(&a);
  if (!e) {
    printf("%s %s %s\n", type_name(api, a.signature), a.symbol,
           a.abi == CUPLUG_ABI_C ? "c" : "numba");
    cuplug_type_info sig = {.struct_size = sizeof sig, .type = a.signature};
    api->error_destroy(api->type_info(&sig));
    for (size_t i = 0; i < n; i++)
      if (conv[i] == CUPLUG_CONV_UNSAFE)
        fprintf(stderr, "cuplug: warning: argument %zu converts unsafely, %s to %s\n", i,
                type_name(api, args[i]), type_name(api, sig.args[i]));
  }
  api->registry_destroy(r);
  return e ? cli_report(api, e) : 0;
}

static int print_listing(void *user, const cuplug_listing *l) {
  const cuplug_api *api = user;
  const char *what = l->description;
  if (l->signature) {
    cuplug_type_info info = {.struct_size = sizeof info, .type = l->signature};
    cuplug_error *e = api->type_info(&info);
    if (e) {
      api->error_destroy(e);
      return 1;
    }
    what = info.name;
  }
  if (*l->extension)
    printf("%-30s %s  [extension: %s]\n", l->key, what, l->extension);
  else
    printf("%-30s %s\n", l->key, what);
  return 0;
}

int cli_cmd_list(const cuplug_api *api, int argc, char **argv) {
  cli_request q = {0};
  int rc = cli_parse_all(CLI_LIST, "list", argc, argv, &q);
  if (rc) return rc;
  if (q.num_files > 1) return cli_usage("%s", "list takes at most one PREFIX");
  cuplug_registry *r;
  cuplug_error *e = api->registry_create(NULL, &r);
  if (e) return cli_report(api, e);
  e = api->registry_list(r, q.num_files ? q.files[0] : NULL, print_listing, (void *)api);
  api->registry_destroy(r);
  return e ? cli_report(api, e) : 0;
}
