/* library.c - libraries on either target, and their kernels.
 *
 * A library loaded from an artifact knows the artifact's kernels (name,
 * signature, exception store): kernel_get finds them by name, or takes the
 * only one when no name is given.  What differs by target is in gpu.c (the
 * driver) and cpu.c (the CPU JIT, in libcuplug-host.so). */
#include "plugin/load/library.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/types.h"
#include "plugin/load/cpu.h"
#include "plugin/load/gpu.h"
#include "plugin/load/objects.h"

static void library_free(cuplug_library *l) {
  while (l->kernels) {
    cuplug_kernel *k = l->kernels;
    l->kernels = k->next;
    free(k->name);
    free(k);
  }
  for (size_t i = 0; i < l->num_artifact_kernels; i++) free(l->artifact_kernels[i].symbol);
  free(l->artifact_kernels);
  free(l->entry);
  pthread_mutex_destroy(&l->lock);
  free(l);
}

/* Copies what the artifact says about its kernels and its entry. */
static cuplug_error *remember_artifact(cuplug_library *l, const cuplug_artifact *art) {
  if (art->symbol && !(l->entry = cuplug__strdup(art->symbol))) return cuplug__error_oom();
  l->entry_signature = art->signature;
  l->entry_numba = art->kind == CUPLUG_DEVICE_FUNCTION && art->abi == CUPLUG_ABI_NUMBA;
  l->cooperative = art->cooperative;
  if (!art->num_kernels) return NULL;
  l->artifact_kernels = calloc(art->num_kernels, sizeof *l->artifact_kernels);
  if (!l->artifact_kernels) return cuplug__error_oom();
  for (size_t i = 0; i < art->num_kernels; i++) {
    l->artifact_kernels[i] = art->kernels[i];
    if (!(l->artifact_kernels[i].symbol = cuplug__strdup(art->kernels[i].symbol)))
      return cuplug__error_oom();
    l->num_artifact_kernels++;
  }
  return NULL;
}

/* The image an artifact holds for the GPU, or the caller's bytes. */
static cuplug_error *image_of(const cuplug_load_args *a, const void **image) {
  if (!a->artifact) {
    if (!a->size) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "load: the image is empty");
    *image = a->image;
    return NULL;
  }
  const cuplug__code *p = &a->artifact->parts[0];
  if (p->kind != CUPLUG_CODE_CUBIN && p->kind != CUPLUG_CODE_PTX)
    return cuplug__error(CUPLUG_ERR_LOAD,
                         "load: the artifact holds %s, which the driver cannot load: link it "
                         "to a cubin first (output CUPLUG_OUTPUT_CUBIN, or link())",
                         cuplug__code_kind_name(p->kind));
  *image = p->data;
  return NULL;
}

cuplug_error *cuplug__load(cuplug_load_args *a) {
  if (!a->session) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "load: session is NULL");
  if (!!a->artifact == !!a->image)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "load: give exactly one of artifact and image");
  bool on_cpu = a->artifact && a->artifact->output == CUPLUG_OUTPUT_HOST;
  const void *image = NULL;
  if (!on_cpu) CUPLUG__TRY(image_of(a, &image));
  cuplug_library *l = calloc(1, sizeof *l);
  if (!l) return cuplug__error_oom();
  pthread_mutex_init(&l->lock, NULL);
  l->session = a->session;
  cuplug_error *e = a->artifact ? remember_artifact(l, a->artifact) : NULL;
  if (!e && on_cpu) e = cuplug__load_cpu(a->session, a->artifact, &l->cpu);
  if (!e && !on_cpu) e = cuplug__load_gpu(a->session, image, &l->gpu);
  if (e) {
    library_free(l);
    return e;
  }
  a->library = l;
  return NULL;
}

void cuplug__library_unload(cuplug_library *l) {
  if (!l) return;
  if (l->cpu)
    cuplug__unload_cpu(l->cpu);
  else
    cuplug__unload_gpu(l->session, l->gpu);
  library_free(l);
}

/* "a, b, c": the kernels the artifact held, for messages. */
static void put_artifact_kernels(cuplug__buf *b, const cuplug_library *l) {
  for (size_t i = 0; i < l->num_artifact_kernels; i++)
    cuplug__buf_printf(b, "%s%s", i ? ", " : "", l->artifact_kernels[i].symbol);
}

/* The kernel kernel_get means: the one named, or the library's only one;
 * *known is what the artifact said about it (NULL when nothing). */
static cuplug_error *choose(const cuplug_library *l, const char *name, const char **chosen,
                            const cuplug__artifact_kernel **known) {
  *known = NULL;
  size_t n = l->num_artifact_kernels;
  if (!name && n != 1) {
    if (!n)
      return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                           "kernel_get: give the kernel's name (the library was not loaded "
                           "from an artifact that holds a kernel)");
    cuplug__buf b;
    cuplug__buf_init(&b);
    put_artifact_kernels(&b, l);
    cuplug_error *e = cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                                    "kernel_get: the library holds %zu kernels (%s): name one", n,
                                    b.data ? b.data : "");
    cuplug__buf_free(&b);
    return e;
  }
  for (size_t i = 0; i < n && !*known; i++)
    if (!name || strcmp(name, l->artifact_kernels[i].symbol) == 0) *known = &l->artifact_kernels[i];
  *chosen = name ? name : (*known)->symbol;
  return NULL;
}

/* The signature to pack arguments with: the caller's, else the artifact's. */
static cuplug_error *signature_of(const cuplug_kernel_args *a, const char *name,
                                  const cuplug__artifact_kernel *known, const cuplug_type **out) {
  if (a->signature && a->signature_type)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "kernel_get: give at most one of signature and signature_type");
  const cuplug_type *sig = a->signature_type;
  if (a->signature) CUPLUG__TRY(cuplug__signature_parse(a->signature, &sig));
  if (!sig && known) sig = known->signature;
  if (!sig)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "kernel_get %s: give the kernel's signature", name);
  if (sig->kind != CUPLUG_TYPE_SIGNATURE || sig->restype->kind != CUPLUG_TYPE_VOID)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "kernel_get %s: %s is not a kernel's signature (it returns void)", name,
                         sig->name);
  *out = sig;
  return NULL;
}

cuplug_error *cuplug__kernel_info(cuplug_kernel_info *a) {
  const cuplug_kernel *k = a->kernel;
  if (!k) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "kernel_info: kernel is NULL");
  a->name = k->name;
  a->signature = k->sig;
  a->debug = k->debug;
  a->cooperative = k->cooperative;
  return NULL;
}

cuplug_error *cuplug__kernel_get(cuplug_kernel_args *a) {
  cuplug_library *l = a->library;
  if (!l) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "kernel_get: library is NULL");
  const char *name = NULL;
  const cuplug__artifact_kernel *known;
  CUPLUG__TRY(choose(l, a->name, &name, &known));
  const cuplug_type *sig = NULL;
  CUPLUG__TRY(signature_of(a, name, known, &sig));
  cuplug__cu_kernel handle = NULL;
  /* the CPU JIT made a launcher for each of the artifact's kernels only */
  if (l->cpu && !known)
    return cuplug__error(CUPLUG_ERR_KERNEL_NOT_FOUND, "no kernel named '%s' in the library", name);
  if (!l->cpu) CUPLUG__TRY(cuplug__kernel_gpu(l->session, l->gpu, name, &handle));
  cuplug_kernel *k = calloc(1, sizeof *k);
  if (!k || !(k->name = cuplug__strdup(name))) {
    free(k);
    return cuplug__error_oom();
  }
  k->library = l;
  k->gpu = handle;
  k->sig = sig;
  k->debug = (known && known->debug) || a->debug;
  k->cooperative = l->cooperative;
  k->num_params =
      cuplug__type_lowered(sig, CUPLUG_ABI_NUMBA, CUPLUG_POSITION_ARGUMENT)->num_parts - 1;
  pthread_mutex_lock(&l->lock);
  k->next = l->kernels;
  l->kernels = k;
  pthread_mutex_unlock(&l->lock);
  a->kernel = k;
  return NULL;
}
