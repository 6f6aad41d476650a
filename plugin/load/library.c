/* library.c - cubins loaded with the driver, and their kernels.
 *
 * Libraries are loaded with cuLibraryLoadData, which is context-independent,
 * so a kernel handle serves every context and survives device_reset.  A
 * library loaded from an artifact knows the artifact's kernels (name,
 * signature, exception store): kernel_get finds them by name, or takes the
 * only one when no name is given. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/types.h"
#include "plugin/load/load.h"

void cuplug__library_free(cuplug_library *l) {
  while (l->kernels) {
    cuplug_kernel *k = l->kernels;
    l->kernels = k->next;
    free(k->name);
    free(k);
  }
  for (size_t i = 0; i < l->num_known; i++) free(l->known[i].symbol);
  free(l->known);
  free(l->host_symbol);
  pthread_mutex_destroy(&l->lock);
  free(l);
}

/* The image an artifact holds, or the caller's bytes. */
static cuplug_error *image_of(const cuplug_load_args *a, const void **image) {
  if (!!a->artifact == !!a->image)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "load: give exactly one of artifact and image");
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

/* Copies what the artifact says about its kernels into the library. */
static cuplug_error *know_kernels(cuplug_library *l, const cuplug_artifact *art) {
  if (!art->num_kernels) return NULL;
  l->known = calloc(art->num_kernels, sizeof *l->known);
  if (!l->known) return cuplug__error_oom();
  for (size_t i = 0; i < art->num_kernels; i++) {
    l->known[i] = art->kernels[i];
    if (!(l->known[i].symbol = cuplug__strdup(art->kernels[i].symbol)))
      return cuplug__error_oom();
    l->num_known++;
  }
  l->cooperative = art->cooperative;
  return NULL;
}

cuplug_error *cuplug__load(cuplug_load_args *a) {
  if (!a->session) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "load: session is NULL");
  if (a->artifact && a->artifact->output == CUPLUG_OUTPUT_HOST) {
    if (a->image)
      return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                           "load: give exactly one of artifact and image");
    return cuplug__host_load(a);
  }
  const void *image = NULL;
  CUPLUG__TRY(image_of(a, &image));
  const cuplug__driver_api *cu;
  CUPLUG__TRY(cuplug__device_enter(&a->session->device, &a->session->toolkit, &cu));
  cuplug_library *l = calloc(1, sizeof *l);
  if (!l) return cuplug__error_oom();
  pthread_mutex_init(&l->lock, NULL);
  l->session = a->session;
  cuplug_error *e = a->artifact ? know_kernels(l, a->artifact) : NULL;
  if (e) {
    cuplug__library_free(l);
    return e;
  }
  int rc = cu->library_load_data(&l->lib, image, NULL, NULL, 0, NULL, NULL, 0);
  if (rc) {
    cuplug__library_free(l);
    char why[256];
    cuplug__driver_describe(cu, rc, why, sizeof why);
    return cuplug__error(CUPLUG_ERR_LOAD, "the driver cannot load the image: %s", why);
  }
  a->library = l;
  return NULL;
}

void cuplug__library_unload(cuplug_library *l) {
  if (!l) return;
  if (l->host) {
    cuplug__host_unload(l);
    return;
  }
  const cuplug__driver_api *cu;
  cuplug_error *e = cuplug__toolkit_driver(&l->session->toolkit, &cu);
  if (!e) cu->library_unload(l->lib);
  cuplug__error_destroy(e);
  cuplug__library_free(l);
}

/* "a, b, c": the kernels the library knows, for messages. */
static void put_known(cuplug__buf *b, const cuplug_library *l) {
  for (size_t i = 0; i < l->num_known; i++)
    cuplug__buf_printf(b, "%s%s", i ? ", " : "", l->known[i].symbol);
}

/* The kernel kernel_get means: the one named, or the library's only one;
 * *known is what the artifact said about it (NULL when nothing). */
static cuplug_error *choose(const cuplug_library *l, const char *name, const char **chosen,
                            const cuplug__artifact_kernel **known) {
  *known = NULL;
  if (!name && l->num_known != 1) {
    if (!l->num_known)
      return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                           "kernel_get: give the kernel's name (the library was not loaded "
                           "from an artifact that holds a kernel)");
    cuplug__buf b;
    cuplug__buf_init(&b);
    put_known(&b, l);
    cuplug_error *e = cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                                    "kernel_get: the library holds %zu kernels (%s): name one",
                                    l->num_known, b.data ? b.data : "");
    cuplug__buf_free(&b);
    return e;
  }
  for (size_t i = 0; i < l->num_known && !*known; i++)
    if (!name || strcmp(name, l->known[i].symbol) == 0) *known = &l->known[i];
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

/* The driver's handle of the kernel, with the two failures a user meets
 * explained: no such kernel, no code for this device. */
static cuplug_error *handle_of(cuplug_library *l, const char *name, cuplug__cu_kernel *out) {
  const cuplug__driver_api *cu;
  CUPLUG__TRY(cuplug__toolkit_driver(&l->session->toolkit, &cu));
  int rc = cu->library_get_kernel(out, l->lib, name);
  if (rc == CUPLUG__CU_NOT_FOUND)
    return cuplug__error(CUPLUG_ERR_KERNEL_NOT_FOUND, "no kernel named '%s' in the library", name);
  if (rc == CUPLUG__CU_NO_BINARY_FOR_GPU) {
    cuplug__cu_device dev = l->session->device.dev;
    int major = 0, minor = 0;
    cu->device_get_attribute(&major, CUPLUG__CU_DEVICE_ATTRIBUTE_CC_MAJOR, dev);
    cu->device_get_attribute(&minor, CUPLUG__CU_DEVICE_ATTRIBUTE_CC_MINOR, dev);
    return cuplug__error(CUPLUG_ERR_LOAD,
                         "kernel %s: the library has no code for this device (cc %d.%d): "
                         "compile for it (cc %d.%d, or CUPLUG_COMPILE_CURRENT_DEVICE)",
                         name, major, minor, major, minor);
  }
  return rc ? cuplug__driver_error(cu, rc, "cuLibraryGetKernel") : NULL;
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
  if (!l->host) CUPLUG__TRY(handle_of(l, name, &handle));
  else if (!cuplug__host_has(l, name))
    return cuplug__error(CUPLUG_ERR_KERNEL_NOT_FOUND, "no kernel named '%s' in the library", name);
  cuplug_kernel *k = calloc(1, sizeof *k);
  if (!k || !(k->name = cuplug__strdup(name))) {
    free(k);
    return cuplug__error_oom();
  }
  k->library = l;
  k->handle = handle;
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
