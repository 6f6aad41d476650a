/* dlopen_bench.c - how long one dlopen of a shared object takes, in a
 * fresh process (a second dlopen in the same one costs nothing).
 *
 *   for i in $(seq 15); do build/bin/dlopen_bench build/lib/libcuplug.so; done | sort -n
 *
 * Prints milliseconds.  Issue 11 asks that libcuplug.so's stay what it was
 * before libcuplug-host.so: the X86 backend and ORC are loaded only when a
 * host library is. */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: dlopen_bench LIBRARY.so\n");
    return 2;
  }
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  clock_gettime(CLOCK_MONOTONIC, &b);
  if (!h) {
    fprintf(stderr, "dlopen_bench: %s\n", dlerror());
    return 1;
  }
  printf("%.3f\n", (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6);
  return 0;
}
