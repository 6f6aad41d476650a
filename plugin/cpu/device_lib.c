/* device_lib.c - CUDA's device library on the CPU, and what else of the
 * process JIT'd code may call.
 *
 * Device code calls three functions of CUDA's own that the host's C
 * library either lacks or has with another meaning:
 *
 *   vprintf(format, args)   printf on the GPU (numba-cuda's print, CUDA
 *                           C++'s printf, MLIR's gpu.printf): the arguments
 *                           are a buffer, each at an offset aligned to its
 *                           size, read as the format says.  glibc's
 *                           vprintf takes a va_list: called with CUDA's
 *                           buffer it crashed the host.
 *   __assertfail(...)       a failed assert() in CUDA C++, MLIR's cf.assert
 *   llvm.trap               __trap(), and what LLVM makes of unreachable
 *                           code with traps on (llvm.debugtrap and
 *                           llvm.ubsantrap likewise)
 *
 * retarget.c renames each call to the runtime's function below.  A failed
 * assert or a trap ends the launch (or the host's call) with
 * CUPLUG_ERR_KERNEL_FAULT and what the GPU prints, where on the GPU the
 * context would be lost (grid.c).
 *
 * Every other function the IR declares must be declare_device's
 * host_function, the runtime's, or one of the few of the process's that
 * mean on the host what they mean on the GPU (cuplug__cpu_process_may_call):
 * libm's and libgcc's (LLVM's code generator calls them too), the mem*
 * functions, and malloc and free (CUDA's device heap).  The rest of the C
 * library, and the host program's own symbols, are refused by name. */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/cpu/device_lib.h"
#include "plugin/cpu/worker.h"

/* ---- printf ---- */

/* The argument of `size` bytes at the next offset of args aligned to it. */
static const unsigned char *next_arg(const unsigned char *args, size_t *offset, size_t size) {
  *offset = (*offset + size - 1) / size * size;
  const unsigned char *p = args + *offset;
  *offset += size;
  return p;
}

/* One conversion: spec[0..len) is "%...c" (flags, width, precision,
 * length, conversion), formatted into out with its argument from args.
 * Returns the arguments it took (0 or 1). */
static int convert(FILE *out, const char *spec, size_t len, const unsigned char *args,
                   size_t *offset) {
  char c = spec[len - 1];
  if (!args || !strchr("diuoxXcfFeEgGaAsp", c)) { /* %n writes where it points: not done */
    fwrite(spec, 1, len, out);
    return 0;
  }
  /* the spec without its length modifier, the value passed at full width */
  char plain[64];
  size_t n = 0;
  int shorts = 0;    /* h: a short, hh: a char, both passed as 4 bytes */
  bool wide = false; /* l, ll, j, z, t, q: 8 bytes */
  bool huge = false; /* a width or precision past 4096 */
  for (size_t i = 0, digits = 0; i < len - 1 && n < sizeof plain - 4; i++) {
    digits = spec[i] >= '0' && spec[i] <= '9' ? digits + 1 : 0;
    huge |= digits > 4 || (digits == 4 && strtoul(spec + i - 3, NULL, 10) > 4096);
    if (spec[i] == 'h') shorts++;
    else if (strchr("lLjztq", spec[i])) wide |= spec[i] != 'L'; /* L: a double, as on the GPU */
    else plain[n++] = spec[i];
  }
  if (huge) { /* printed as it is, not padded: its argument is still taken */
    next_arg(args, offset, strchr("diuoxXc", c) && !wide ? 4 : 8);
    fwrite(spec, 1, len, out);
    return 1;
  }
  bool is_signed = c == 'd' || c == 'i';
  if (strchr("diuoxXc", c)) {
    long long v;
    if (wide) {
      memcpy(&v, next_arg(args, offset, 8), 8);
    } else {
      int32_t v32;
      memcpy(&v32, next_arg(args, offset, 4), 4);
      if (shorts >= 2) v = is_signed ? (signed char)v32 : (unsigned char)v32;
      else if (shorts == 1) v = is_signed ? (short)v32 : (unsigned short)v32;
      else v = is_signed ? (long long)v32 : (long long)(uint32_t)v32;
    }
    if (c == 'c') {
      memcpy(plain + n, "c", 2);
      fprintf(out, plain, (int)v);
    } else {
      plain[n++] = 'l';
      plain[n++] = 'l';
      plain[n++] = c;
      plain[n] = 0;
      fprintf(out, plain, v);
    }
  } else if (c == 's' || c == 'p') {
    const void *v;
    memcpy(&v, next_arg(args, offset, 8), 8);
    plain[n++] = c;
    plain[n] = 0;
    fprintf(out, plain, v);
  } else { /* a float is passed as a double */
    double v;
    memcpy(&v, next_arg(args, offset, 8), 8);
    plain[n++] = c;
    plain[n] = 0;
    fprintf(out, plain, v);
  }
  return 1;
}

/* CUDA's vprintf: the whole line written at once, as the GPU's buffer
 * hands lines to the host; returns how many arguments it took.  A
 * conversion with a width or precision past 4096 is printed as it is,
 * not padded: the GPU's buffer holds far less than a %999999999d. */
static int cuda_vprintf(const char *format, const void *args) {
  char *line = NULL;
  size_t size = 0, offset = 0;
  int taken = 0;
  FILE *out = open_memstream(&line, &size);
  if (!out || !format) {
    if (out) fclose(out);
    free(line);
    return -1;
  }
  for (const char *p = format; *p;) {
    if (*p != '%') {
      size_t run = strcspn(p, "%");
      fwrite(p, 1, run, out);
      p += run;
      continue;
    }
    if (p[1] == '%') {
      fputc('%', out);
      p += 2;
      continue;
    }
    size_t len = 1 + strspn(p + 1, "-+ #0123456789.hlLjztq");
    if (!p[len]) { /* a lone '%...' at the end */
      fputs(p, out);
      break;
    }
    len++;
    taken += convert(out, p, len, args, &offset);
    p += len;
  }
  fclose(out);
  fwrite(line, 1, size, stdout);
  fflush(stdout);
  free(line);
  return taken;
}

/* ---- assert and trap ---- */

/* "block: [x,y,z], thread: [x,y,z]" of the running thread, as CUDA says
 * it; a call from the host is thread 0 of block 0, as its registers read. */
static void whose(char *out, size_t cap) {
  static const cuplug__cpu_worker lone;
  const cuplug__cpu_worker *w = cuplug__cpu_current ? cuplug__cpu_current : &lone;
  snprintf(out, cap, "block: [%u,%u,%u], thread: [%u,%u,%u]", w->ctaid[0], w->ctaid[1],
           w->ctaid[2], w->tid[0], w->tid[1], w->tid[2]);
}

static void cuda_assertfail(const char *message, const char *file, unsigned line,
                            const char *function, size_t char_size) {
  (void)char_size;
  char who[96], *msg = NULL;
  whose(who, sizeof who);
  if (asprintf(&msg, "%s:%u: %s: %s Assertion `%s` failed.", file ? file : "?", line,
               function ? function : "?", who, message ? message : "?") < 0)
    msg = NULL;
  cuplug__cpu_fault(msg);
}

static void cuda_trap(void) {
  char who[96], *msg = NULL;
  whose(who, sizeof who);
  if (asprintf(&msg, "a trap (__trap() or llvm.trap) in %s", who) < 0) msg = NULL;
  cuplug__cpu_fault(msg);
}

/* ---- names ---- */

#define FN(f) ((void *)(uintptr_t)(f))

#define VPRINTF "__cuplug_cuda.vprintf"
#define ASSERTFAIL "__cuplug_cuda.__assertfail"
#define TRAP "__cuplug_cuda.trap"

/* The runtime's functions, by the names the JIT knows them by */
static const cuplug__cpu_symbol runtime[] = {
    {VPRINTF, FN(cuda_vprintf)}, {ASSERTFAIL, FN(cuda_assertfail)}, {TRAP, FN(cuda_trap)}};

/* ... and the names the IR declares that become them */
static const struct {
  const char *name, *runtime;
} renamed[] = {
    {"vprintf", VPRINTF},
    {"__assertfail", ASSERTFAIL},
    {"llvm.trap", TRAP},
    /* int3 and ud2 on the host, which would end its process */
    {"llvm.debugtrap", TRAP},
    {"llvm.ubsantrap", TRAP},
};

const char *cuplug__cpu_device_function(const char *name) {
  for (size_t i = 0; i < sizeof renamed / sizeof renamed[0]; i++)
    if (strcmp(renamed[i].name, name) == 0) return renamed[i].runtime;
  return NULL;
}

const cuplug__cpu_symbol *cuplug__cpu_device_symbol(size_t i) {
  return i < sizeof runtime / sizeof runtime[0] ? &runtime[i] : NULL;
}

bool cuplug__cpu_process_may_call(const char *name) {
  static const char *const libc[] = {"memcpy", "memmove", "memset", "memcmp", "bcmp",
                                     "malloc", "free"};
  for (size_t i = 0; i < sizeof libc / sizeof libc[0]; i++)
    if (strcmp(libc[i], name) == 0) return true;
  /* libm's (whose ldexp, frexp, modf, ... glibc also has in libc) and
   * libgcc's helpers (128-bit division, half conversions) */
  static const char *const libraries[] = {"libm.so.6", "libgcc_s.so.1"};
  for (size_t i = 0; i < sizeof libraries / sizeof libraries[0]; i++) {
    void *so = dlopen(libraries[i], RTLD_LAZY | RTLD_NOLOAD);
    if (!so) continue;
    void *p = dlsym(so, name); /* which searches what the library needs too: libc */
    Dl_info info;
    bool own = p && dladdr(p, &info) && info.dli_fname;
    if (own) {
      const char *base = strrchr(info.dli_fname, '/');
      own = strcmp(base ? base + 1 : info.dli_fname, libraries[i]) == 0;
    }
    dlclose(so);
    if (own) return true;
  }
  return false;
}
