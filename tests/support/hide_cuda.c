/* hide_cuda.c - a machine without CUDA, for unit.notoolkit: preloaded
 * (LD_PRELOAD), it refuses to load the toolkit's libraries and the driver,
 * by whatever path or name they are asked for; the rest loads as before.
 * The plugin then finds no libNVVM, NVRTC, nvJitLink or GPU, as on a
 * contributor's machine without them, though the toolkit stays installed
 * (in the loader's cache too, where CUDA_HOME cannot hide it). */
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

static const char *const hidden[] = {"libnvvm.", "libnvrtc.", "libnvrtc-builtins.",
                                     "libnvJitLink.", "libcuda.", NULL};

static bool is_hidden(const char *file) {
  const char *slash = strrchr(file, '/');
  const char *base = slash ? slash + 1 : file;
  for (size_t i = 0; hidden[i]; i++)
    if (strncmp(base, hidden[i], strlen(hidden[i])) == 0) return true;
  return false;
}

/* the build hides symbols by default: this one must take the loader's place */
__attribute__((visibility("default"))) void *dlopen(const char *file, int mode) {
  static void *(*next)(const char *, int);
  if (!next) next = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
  if (file && is_hidden(file)) return NULL;
  return next(file, mode);
}
