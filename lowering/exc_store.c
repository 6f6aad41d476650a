/* exc_store.c - the debug exception store of a kernel.
 *
 * As numba-cuda's add_exception_store_helper: i32 globals
 * <k>__errcode__, <k>__tid{x,y,z}__ and <k>__ctaid{x,y,z}__, and a helper
 * void <k>__exc_helper__(i32 status) that the fixed-up kernel calls with the
 * status it would have returned.  The helper ignores success (0) and None
 * (-2), and a Python exception (-1), which a kernel cannot describe; for any
 * other status the first thread to swap the error code from 0 (a monotonic
 * cmpxchg) records its thread and block index.  The host clears the error
 * code before a launch and reads the globals after it. */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "lowering/lowering.h"

static void put_global(cuplug__buf *b, const char *kernel, const char *suffix) {
  cuplug__buf nb;
  cuplug__buf_init(&nb);
  cuplug__buf_printf(&nb, "%s%s", kernel, suffix);
  cuplug__ir_put_name(b, '@', nb.data ? nb.data : "");
  cuplug__buf_free(&nb);
}

static const char dims[] = "xyz";

void cuplug__exc_store_add(ir_rewrite *rw, const char *kernel) {
  cuplug__buf *b = &rw->tail;
  char suffix[32];

  put_global(b, kernel, "__errcode__");
  cuplug__buf_puts(b, " = global i32 0\n");
  for (int d = 0; d < 3; d++) {
    snprintf(suffix, sizeof suffix, "__tid%c__", dims[d]);
    put_global(b, kernel, suffix);
    cuplug__buf_puts(b, " = global i32 0\n");
    snprintf(suffix, sizeof suffix, "__ctaid%c__", dims[d]);
    put_global(b, kernel, suffix);
    cuplug__buf_puts(b, " = global i32 0\n");
  }

  cuplug__buf_puts(b, "\ndefine void ");
  put_global(b, kernel, "__exc_helper__");
  cuplug__buf_puts(b,
                   "(i32 %status) {\n"
                   "entry:\n"
                   "  %is_ok = icmp eq i32 %status, 0\n"
                   "  %is_none = icmp eq i32 %status, -2\n"
                   "  %ok = or i1 %is_ok, %is_none\n"
                   "  br i1 %ok, label %done, label %not_ok\n"
                   "not_ok:\n"
                   "  %is_python_exc = icmp eq i32 %status, -1\n"
                   "  br i1 %is_python_exc, label %done, label %store\n"
                   "store:\n"
                   "  %xchg = cmpxchg i32* ");
  put_global(b, kernel, "__errcode__");
  cuplug__buf_puts(b,
                   ", i32 0, i32 %status monotonic monotonic\n"
                   "  %changed = extractvalue { i32, i1 } %xchg, 1\n"
                   "  br i1 %changed, label %record, label %done\n"
                   "record:\n");
  static const char *const regs[] = {"tid", "ctaid"};
  for (int r = 0; r < 2; r++) {
    for (int d = 0; d < 3; d++) {
      cuplug__buf_printf(b,
                         "  %%%s.%c = call i32 @llvm.nvvm.read.ptx.sreg.%s.%c()\n"
                         "  store i32 %%%s.%c, i32* ",
                         regs[r], dims[d], regs[r], dims[d], regs[r], dims[d]);
      snprintf(suffix, sizeof suffix, "__%s%c__", regs[r], dims[d]);
      put_global(b, kernel, suffix);
      cuplug__buf_putc(b, '\n');
    }
  }
  cuplug__buf_puts(b, "  br label %done\ndone:\n  ret void\n}\n");

  /* the special-register intrinsics, unless the module declares them */
  for (int r = 0; r < 2; r++) {
    for (int d = 0; d < 3; d++) {
      char name[64];
      snprintf(name, sizeof name, "llvm.nvvm.read.ptx.sreg.%s.%c", regs[r], dims[d]);
      if (!cuplug__ir_module_find(&rw->m, IR_ITEM_DECLARE, name))
        cuplug__buf_printf(b, "declare i32 @%s()\n", name);
    }
  }
}
