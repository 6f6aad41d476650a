/* annotate.c - marking kernels for libNVVM and the linker.
 *
 * A kernel is a function listed in !nvvm.annotations with !"kernel"; launch
 * bounds are more entries (maxntidx, minctasm, cluster_max_blocks, the names
 * numba-cuda uses).  @llvm.used keeps the kernel alive through LTO: without
 * it nvJitLink drops a kernel it sees no caller of. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "lowering/lowering.h"

static const char *const bound_names[] = {"maxntidx", "minctasm", "cluster_max_blocks"};

static void put_ref(cuplug__buf *b, const char *fnptr_type, const char *kernel) {
  cuplug__buf_printf(b, "%s ", fnptr_type);
  cuplug__ir_put_name(b, '@', kernel);
}

static void annotation(ir_rewrite *rw, const char *kernel, const char *fnptr_type,
                       const char *key, uint32_t value) {
  long id = cuplug__ir_rewrite_meta_id(rw);
  cuplug__buf_printf(&rw->tail, "!%ld = !{", id);
  put_ref(&rw->tail, fnptr_type, kernel);
  cuplug__buf_printf(&rw->tail, ", !\"%s\", i32 %u}\n", key, value);
  cuplug__ir_rewrite_named_meta(rw, "nvvm.annotations", id);
}

/* Adds the kernel to an existing @llvm.used: [N x i8*] becomes [N+1 x i8*]
 * and the element joins the initializer. */
static cuplug_error *extend_used(ir_rewrite *rw, const ir_item *used,
                                 const char *element) {
  const ir_tok *toks;
  size_t n = cuplug__ir_slice(&rw->m, used->start, used->end, &toks);
  const char *t = rw->m.text;
  size_t count_tok = n, init_close = n;
  for (size_t i = 0; i + 2 < n; i++) {
    if (cuplug__ir_tok_punct(t, toks[i], '[') && toks[i + 1].kind == IR_NUMBER &&
        cuplug__ir_tok_is(t, toks[i + 2], "x")) {
      count_tok = i + 1;
      /* the initializer is the next [ ... ] group after the type's */
      int depth = 0;
      size_t j = i;
      for (; j < n; j++) {
        if (cuplug__ir_tok_punct(t, toks[j], '[')) depth++;
        if (cuplug__ir_tok_punct(t, toks[j], ']') && --depth == 0) break;
      }
      for (j++; j < n && !cuplug__ir_tok_punct(t, toks[j], '['); j++) {
      }
      depth = 0;
      for (; j < n; j++) {
        if (cuplug__ir_tok_punct(t, toks[j], '[')) depth++;
        if (cuplug__ir_tok_punct(t, toks[j], ']') && --depth == 0) {
          init_close = j;
          break;
        }
      }
      break;
    }
  }
  if (count_tok == n || init_close == n)
    return cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED,
                         "%s:%zu: cannot read @llvm.used to add a kernel to it", rw->m.name,
                         cuplug__ir_line_of(&rw->m, used->start));
  unsigned long count = strtoul(t + toks[count_tok].start, NULL, 10);
  char num[CUPLUG__DECIMAL_MAX];
  cuplug__decimal(num, count + 1, false);
  cuplug__ir_edit_replace(&rw->edits, toks[count_tok].start,
                  toks[count_tok].start + toks[count_tok].len, num);
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__buf_printf(&b, "%s%s", count ? ", " : "", element);
  char *ins = cuplug__buf_take(&b, NULL);
  if (!ins) return cuplug__error_oom();
  cuplug__ir_edit_insert(&rw->edits, toks[init_close].start, ins);
  free(ins);
  return NULL;
}

cuplug_error *cuplug__annotate_kernel(ir_rewrite *rw, const char *kernel,
                                      const char *fnptr_type,
                                      const uint32_t *launch_bounds,
                                      size_t num_launch_bounds) {
  annotation(rw, kernel, fnptr_type, "kernel", 1);
  for (size_t i = 0; i < num_launch_bounds && i < 3; i++)
    annotation(rw, kernel, fnptr_type, bound_names[i], launch_bounds[i]);

  cuplug__buf el;
  cuplug__buf_init(&el);
  cuplug__buf_puts(&el, "i8* bitcast (");
  put_ref(&el, fnptr_type, kernel);
  cuplug__buf_puts(&el, " to i8*)");
  char *element = cuplug__buf_take(&el, NULL);
  if (!element) return cuplug__error_oom();
  const ir_item *used = cuplug__ir_module_find(&rw->m, IR_ITEM_GLOBAL, "llvm.used");
  cuplug_error *e = NULL;
  if (used)
    e = extend_used(rw, used, element);
  else
    cuplug__buf_printf(&rw->tail,
                       "@llvm.used = appending global [1 x i8*] [%s], "
                       "section \"llvm.metadata\"\n",
                       element);
  free(element);
  return e;
}
