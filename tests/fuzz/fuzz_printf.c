/* fuzz_printf.c - CUDA's vprintf on the CPU target (plugin/cpu/device_lib.c):
 * the bytes as a kernel's format string, read against an argument buffer
 * large enough for every conversion it can hold.  Each 8-byte word of the
 * buffer holds the address of a string, so that a %s (always a whole,
 * aligned word) prints it and a %d or %f prints some of its bits; what a
 * kernel's own pointers point at is the kernel's doing, as on the GPU.
 * Nothing a format says may crash, hang, or print without bound. */
#include <stdio.h>
#include <unistd.h>

#include "fuzz.h"
#include "plugin/cpu/device_lib.h"
#include "plugin/cpu/worker.h"

/* What device_lib.c needs of the rest of the CPU target: no launch runs here. */
__thread cuplug__cpu_worker *cuplug__cpu_current;
void cuplug__cpu_fault(char *msg) {
  (void)msg;
  abort();
}

typedef int (*vprintf_fn)(const char *format, const void *args);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static vprintf_fn cuda_vprintf;
  static const char word[] = "fuzz";
  if (!cuda_vprintf) {
    if (!freopen("/dev/null", "w", stdout)) abort(); /* what it prints goes nowhere */
    const cuplug__cpu_symbol *s = cuplug__cpu_device_symbol(0);
    if (!s || strcmp(s->name, "__cuplug_cuda.vprintf") != 0) abort();
    cuda_vprintf = (vprintf_fn)(uintptr_t)s->address;
  }
  char *format = fuzz_string(data, size);
  /* a conversion takes two bytes of the format at least, and 16 of the
   * buffer at most (8, aligned to 8) */
  size_t words = size + 2;
  uint64_t *args = malloc(words * sizeof *args);
  if (!args) abort();
  for (size_t i = 0; i < words; i++) args[i] = (uint64_t)(uintptr_t)word;
  int taken = cuda_vprintf(format, args);
  if (taken < -1 || (size_t)taken > size) abort();
  free(args);
  free(format);
  return 0;
}
