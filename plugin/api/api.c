/* api.c - the entry point and the function table.
 *
 * Every call that takes an argument struct first imports it: the caller's
 * struct (of whatever size its header gave it) is copied into a zeroed
 * struct of the plugin's size, so fields an older caller does not know read
 * as zero (their defaults), and fields a newer caller sets that this plugin
 * does not know are refused.  Outputs are copied back only as far as the
 * caller's struct reaches. */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/structs.h"
#include "base/types.h"
#include "plugin/api/info.h"
#include "plugin/load/cpu.h"
#include "plugin/load/launch.h"
#include "plugin/load/library.h"
#include "plugin/load/memory.h"
#include "plugin/pipeline/compile.h"
#include "plugin/pipeline/link.h"
#include "plugin/registry/registry.h"
#include "plugin/session/session.h"

/* The first size of each struct: the fields of the ABI version that
 * introduced it, which every caller sets. */
#define SIZE_TO CUPLUG_STRUCT_SIZE
#define MIN_COMPILE_ARGS SIZE_TO(cuplug_compile_args, artifact)
#define MIN_INFO sizeof(size_t)
#define MIN_TYPE_INFO SIZE_TO(cuplug_type_info, type)
#define MIN_TYPE_LOWER SIZE_TO(cuplug_type_lower_args, position)
#define MIN_SESSION_OPTIONS sizeof(size_t)
#define MIN_ARTIFACT_INFO sizeof(size_t)
#define MIN_IR_VIEW sizeof(size_t)
/* since 1.1 */
#define MIN_REGISTRY_OPTIONS sizeof(size_t)
#define MIN_DECLARE SIZE_TO(cuplug_declare_device_args, signature_type)
#define MIN_LINK SIZE_TO(cuplug_link_args, artifact)
#define MIN_LOAD SIZE_TO(cuplug_load_args, library)
#define MIN_KERNEL SIZE_TO(cuplug_kernel_args, kernel)
#define MIN_LAUNCH SIZE_TO(cuplug_launch_args, num_args)
#define MIN_PART sizeof(size_t)
/* since 1.2 */
#define MIN_TEMPLATE SIZE_TO(cuplug_template_args, typer)
#define MIN_LOWERING SIZE_TO(cuplug_lowering_args, user_data)
#define MIN_RESOLVE SIZE_TO(cuplug_resolve_args, abi)
#define MIN_CONST_ARRAY SIZE_TO(cuplug_const_array_args, abi)
/* since 1.3 */
#define MIN_KERNEL_INFO SIZE_TO(cuplug_kernel_info, cooperative)
#define MIN_CACHE_INFO SIZE_TO(cuplug_cache_info, session)
#define MIN_ARTIFACT_STAGE SIZE_TO(cuplug_artifact_stage_args, index)
#define MIN_CACHE_CLEAR SIZE_TO(cuplug_cache_clear_args, session)
#define MIN_HOST_FUNCTION SIZE_TO(cuplug_host_function_args, signature)
#define MIN_HOST_CALL SIZE_TO(cuplug_host_call_args, result_size)

/* Copies an output-only struct back and sets its struct_size to the bytes
 * filled, as cuplug_info says. */
static void export_filled(void *caller, const void *local, size_t local_size) {
  size_t size = *(const size_t *)caller;
  cuplug__struct_export(caller, local, local_size);
  *(size_t *)caller = size < local_size ? size : local_size;
}

/* A table entry that imports its argument struct and hands it on... */
#define IMPORTING(name, type, min, impl)                                      \
  static cuplug_error *name(type *args) {                                    \
    type a;                                                                  \
    CUPLUG__TRY(cuplug__struct_import(&a, sizeof a, args, min, #type));                 \
    return impl(&a);                                                         \
  }
/* ...one whose struct also has out fields to copy back... */
#define IMPORTING_EXPORTING(name, type, min, impl)                            \
  static cuplug_error *name(type *args) {                                    \
    type a;                                                                  \
    CUPLUG__TRY(cuplug__struct_import(&a, sizeof a, args, min, #type));                 \
    CUPLUG__TRY(impl(&a));                                                    \
    cuplug__struct_export(args, &a, sizeof a);                                         \
    return NULL;                                                             \
  }
/* ...and one that hands out a handle: the caller's `out` is cleared first,
 * so that no failure leaves it holding an old handle. */
#define IMPORTING_HANDLE(name, type, min, impl, out)                          \
  static cuplug_error *name(type *args) {                                    \
    if (args && args->struct_size >= min) args->out = NULL;                  \
    type a;                                                                  \
    CUPLUG__TRY(cuplug__struct_import(&a, sizeof a, args, min, #type));                \
    CUPLUG__TRY(impl(&a));                                                   \
    args->out = a.out;                                                       \
    return NULL;                                                             \
  }

/* ---- errors ---- */

static cuplug_status error_code(const cuplug_error *e) { return e ? e->code : CUPLUG_OK; }
static const char *error_message(const cuplug_error *e) {
  return e && e->message ? e->message : "";
}
static const char *error_log(const cuplug_error *e) { return e && e->log ? e->log : ""; }
static void error_destroy(cuplug_error *e) { cuplug__error_destroy(e); }
static const char *status_name(cuplug_status s) { return cuplug__status_name(s); }

/* ---- info ---- */

static cuplug_error *get_info(cuplug_info *info) {
  cuplug_info local;
  CUPLUG__TRY(cuplug__struct_import(&local, sizeof local, info, MIN_INFO, "cuplug_info"));
  cuplug__info_fill(&local, CUPLUG__VERSION); /* the build's (CMakeLists.txt) */
  export_filled(info, &local, sizeof local);
  return NULL;
}

/* ---- types ---- */

static cuplug_error *type_parse(const char *text, const cuplug_type **out) {
  if (!out) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "type_parse: out is NULL");
  return cuplug__type_parse(text, out);
}

static const cuplug_type *type_scalar(cuplug_type_kind kind) {
  return cuplug__type_scalar(kind);
}

static cuplug_error *type_info(cuplug_type_info *args) {
  cuplug_type_info a;
  CUPLUG__TRY(cuplug__struct_import(&a, sizeof a, args, MIN_TYPE_INFO, "cuplug_type_info"));
  const cuplug_type *t = a.type;
  if (!t) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "type_info: type is NULL");
  a.kind = t->kind;
  a.name = t->name;
  a.element = t->element;
  a.ndim = t->ndim;
  a.layout = t->layout;
  a.restype = t->restype;
  a.num_args = t->nargs;
  a.args = t->args;
  a.size = cuplug__type_size(t);
  a.literal_value = t->value;
  a.readonly = t->readonly;
  a.align = t->align;
  a.field_names = (const char *const *)t->field_names;
  a.field_offsets = t->offsets;
  a.text = t->text;
  cuplug__struct_export(args, &a, sizeof a);
  return NULL;
}

static cuplug_error *type_lower(cuplug_type_lower_args *args) {
  cuplug_type_lower_args a;
  CUPLUG__TRY(cuplug__struct_import(&a, sizeof a, args, MIN_TYPE_LOWER, "cuplug_type_lower_args"));
  if (!a.type) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "type_lower: type is NULL");
  if (!cuplug__abi_valid(a.abi))
    return cuplug__error(CUPLUG_ERR_OPTION_ABI, "Unsupported ABI: %d (numba or c)", (int)a.abi);
  if (a.position != CUPLUG_POSITION_ARGUMENT && a.position != CUPLUG_POSITION_RETURN)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "type_lower: position %d is not one",
                         (int)a.position);
  if (a.type->kind == CUPLUG_TYPE_VOID && a.position == CUPLUG_POSITION_ARGUMENT)
    return cuplug__error(CUPLUG_ERR_INVALID_TYPE, "void is not an argument type");
  const cuplug__lowered *l = cuplug__type_lowered(
      a.type, a.abi == CUPLUG_ABI_C ? CUPLUG_ABI_C : CUPLUG_ABI_NUMBA, a.position);
  a.ir_type = l->ir_type;
  a.num_parts = l->num_parts;
  a.parts = (const char *const *)l->parts;
  cuplug__struct_export(args, &a, sizeof a);
  return NULL;
}

/* ---- sessions ---- */

/* The options of a create call (NULL: every default), with the flags it
 * knows; `out` is checked. */
static cuplug_error *import_options(const char *call, const void *out, void *local,
                                    size_t local_size, const void *caller, size_t min_size,
                                    const char *what, const uint32_t *flags, uint32_t known) {
  if (!out) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "%s: out is NULL", call);
  memset(local, 0, local_size);
  if (caller) CUPLUG__TRY(cuplug__struct_import(local, local_size, caller, min_size, what));
  if (*flags & ~known)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "%s: unknown flags 0x%x", call,
                         *flags & ~known);
  return NULL;
}

static cuplug_error *session_create(const cuplug_session_options *options,
                                    cuplug_session **out) {
  if (out) *out = NULL;
  cuplug_session_options o;
  CUPLUG__TRY(import_options("session_create", out, &o, sizeof o, options, MIN_SESSION_OPTIONS,
                             "cuplug_session_options", &o.flags,
                             CUPLUG_SESSION_TRUSTED | CUPLUG_SESSION_NO_CACHE));
  if (o.default_cc_major > 99 || o.default_cc_minor > 9)
    return cuplug__error(CUPLUG_ERR_OPTION_CC, "default compute capability %u.%u is not one",
                         o.default_cc_major, o.default_cc_minor);
  if (!o.default_cc_major && o.default_cc_minor)
    return cuplug__error(CUPLUG_ERR_OPTION_CC,
                         "default compute capability 0.%u: give a major version",
                         o.default_cc_minor);
  return cuplug__session_create(&o, out);
}

static void session_destroy(cuplug_session *s) { cuplug__session_destroy(s); }

/* ---- compile ---- */

IMPORTING_HANDLE(compile, cuplug_compile_args, MIN_COMPILE_ARGS, cuplug__compile, artifact)

/* ---- artifacts ---- */

static cuplug_error *artifact_info(const cuplug_artifact *art, cuplug_artifact_info *info) {
  if (!art) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "artifact_info: artifact is NULL");
  cuplug_artifact_info a;
  CUPLUG__TRY(cuplug__struct_import(&a, sizeof a, info, MIN_ARTIFACT_INFO, "cuplug_artifact_info"));
  a.output = art->output;
  a.data = art->num_parts ? art->parts[0].data : NULL; /* a host artifact has no code */
  a.size = art->num_parts ? art->parts[0].size : 0;
  a.symbol = art->symbol ? art->symbol : "";
  a.log = art->log ? art->log : "";
  a.cc_major = art->cc_major;
  a.cc_minor = art->cc_minor;
  a.cc_suffix = (uint32_t)(unsigned char)art->cc_suffix[0];
  a.kind = art->kind;
  a.debug = art->debug;
  a.lineinfo = art->lineinfo;
  a.max_registers = art->max_registers;
  a.num_warnings = art->num_warnings;
  a.num_ir_modules = art->num_ir;
  a.num_parts = art->num_parts;
  a.link_log = art->link_log ? art->link_log : "";
  a.signature = art->signature;
  a.use_cooperative = art->cooperative;
  a.cache = art->cache;
  a.backend = art->backend;
  a.num_stages = art->num_stages;
  cuplug__struct_export(info, &a, sizeof a);
  return NULL;
}

static cuplug_error *artifact_stage(cuplug_artifact_stage_args *args) {
  cuplug_artifact_stage_args s;
  CUPLUG__TRY(cuplug__struct_import(&s, sizeof s, args, MIN_ARTIFACT_STAGE,
                                    "cuplug_artifact_stage_args"));
  if (!s.artifact)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "artifact_stage: artifact is NULL");
  if (s.index >= s.artifact->num_stages)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "artifact_stage: index %zu, but the compile ran %zu stages", s.index,
                         s.artifact->num_stages);
  s.name = s.artifact->stages[s.index].name;
  s.nanoseconds = s.artifact->stages[s.index].ns;
  cuplug__struct_export(args, &s, sizeof s);
  return NULL;
}

static cuplug_error *artifact_part(const cuplug_artifact *art, size_t index, cuplug_part *part) {
  if (!art) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "artifact_part: artifact is NULL");
  cuplug_part p;
  CUPLUG__TRY(cuplug__struct_import(&p, sizeof p, part, MIN_PART, "cuplug_part"));
  if (index >= art->num_parts)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "artifact_part: index %zu, but the artifact holds %zu parts", index,
                         art->num_parts);
  p.kind = art->parts[index].kind;
  p.name = art->parts[index].name;
  p.data = art->parts[index].data;
  p.size = art->parts[index].size;
  cuplug__struct_export(part, &p, sizeof p);
  return NULL;
}

static const cuplug_error *artifact_warning(const cuplug_artifact *art, size_t index) {
  return art && index < art->num_warnings ? art->warnings[index] : NULL;
}

static cuplug_error *artifact_ir(const cuplug_artifact *art, size_t index,
                                 cuplug_ir_view *view) {
  if (!art) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "artifact_ir: artifact is NULL");
  cuplug_ir_view v;
  CUPLUG__TRY(cuplug__struct_import(&v, sizeof v, view, MIN_IR_VIEW, "cuplug_ir_view"));
  if (index >= art->num_ir)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "artifact_ir: index %zu, but the artifact keeps %zu IR modules%s",
                         index, art->num_ir,
                         art->num_ir ? "" : " (compile with CUPLUG_COMPILE_KEEP_IR)");
  v.name = art->ir[index].name;
  v.text = art->ir[index].text;
  v.size = art->ir[index].size;
  cuplug__struct_export(view, &v, sizeof v);
  return NULL;
}

static void artifact_destroy(cuplug_artifact *art) { cuplug__artifact_destroy(art); }

/* ---- since 1.1: registries ---- */

static cuplug_error *registry_create(const cuplug_registry_options *options,
                                     cuplug_registry **out) {
  if (out) *out = NULL;
  cuplug_registry_options o;
  CUPLUG__TRY(import_options("registry_create", out, &o, sizeof o, options, MIN_REGISTRY_OPTIONS,
                             "cuplug_registry_options", &o.flags, CUPLUG_REGISTRY_NO_BUILTINS));
  return cuplug__registry_create(o.flags, out);
}

static void registry_destroy(cuplug_registry *r) { cuplug__registry_release(r); }

static cuplug_registry *session_registry(cuplug_session *s) { return s ? s->registry : NULL; }

IMPORTING(declare_device, cuplug_declare_device_args, MIN_DECLARE, cuplug__declare_device)

/* ---- since 1.1: external code ---- */

IMPORTING_HANDLE(compile_all, cuplug_compile_args, MIN_COMPILE_ARGS, cuplug__compile_all,
                 artifact)

IMPORTING_HANDLE(link, cuplug_link_args, MIN_LINK, cuplug__link_api, artifact)

/* ---- since 1.1: the GPU ---- */

IMPORTING_HANDLE(load, cuplug_load_args, MIN_LOAD, cuplug__load, library)

static void library_unload(cuplug_library *l) { cuplug__library_unload(l); }

IMPORTING_HANDLE(kernel_get, cuplug_kernel_args, MIN_KERNEL, cuplug__kernel_get, kernel)

static cuplug_error *launch(cuplug_launch_args *args) {
  if (args && args->struct_size == sizeof *args) return cuplug__launch(args); /* no copy */
  cuplug_launch_args a;
  CUPLUG__TRY(cuplug__struct_import(&a, sizeof a, args, MIN_LAUNCH, "cuplug_launch_args"));
  return cuplug__launch(&a);
}

/* ---- since 1.2: typing and lowering ---- */

IMPORTING(register_template, cuplug_template_args, MIN_TEMPLATE, cuplug__register_template)
IMPORTING(register_lowering, cuplug_lowering_args, MIN_LOWERING, cuplug__register_lowering)
/* A host of ABI 1.2 or older (a struct without `flags`) keeps the rule it
 * was written for: strict. */
static cuplug_error *resolve_call(cuplug_resolve_args *args) {
  cuplug_resolve_args a;
  CUPLUG__TRY(cuplug__struct_import(&a, sizeof a, args, MIN_RESOLVE, "cuplug_resolve_args"));
  if (args->struct_size < SIZE_TO(cuplug_resolve_args, flags)) a.flags = CUPLUG_RESOLVE_STRICT;
  CUPLUG__TRY(cuplug__resolve_call(&a));
  cuplug__struct_export(args, &a, sizeof a);
  return NULL;
}
IMPORTING_EXPORTING(const_array, cuplug_const_array_args, MIN_CONST_ARRAY, cuplug__const_array)

/* ---- since 1.3 ---- */

IMPORTING_EXPORTING(kernel_info, cuplug_kernel_info, MIN_KERNEL_INFO, cuplug__kernel_info)
IMPORTING_EXPORTING(host_function, cuplug_host_function_args, MIN_HOST_FUNCTION,
                    cuplug__function_cpu)
IMPORTING(host_call, cuplug_host_call_args, MIN_HOST_CALL, cuplug__call_cpu)

static cuplug_error *session_cache_info(cuplug_cache_info *a) {
  if (!a->session) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "cache_info: session is NULL");
  return cuplug__cache_info(a->session->cache, a);
}
IMPORTING_EXPORTING(cache_info, cuplug_cache_info, MIN_CACHE_INFO, session_cache_info)

static cuplug_error *session_cache_clear(cuplug_cache_clear_args *a) {
  if (!a->session) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "cache_clear: session is NULL");
  return cuplug__cache_clear(a->session->cache);
}
IMPORTING(cache_clear, cuplug_cache_clear_args, MIN_CACHE_CLEAR, session_cache_clear)

static const cuplug_api api_v1 = {
    .struct_size = sizeof(cuplug_api),
    .abi_major = CUPLUG_ABI_MAJOR,
    .abi_minor = CUPLUG_ABI_MINOR,
    .error_code = error_code,
    .error_message = error_message,
    .error_log = error_log,
    .error_destroy = error_destroy,
    .status_name = status_name,
    .get_info = get_info,
    .type_parse = type_parse,
    .type_scalar = type_scalar,
    .type_pointer = cuplug__type_pointer,
    .type_array = cuplug__type_array,
    .type_signature = cuplug__type_signature,
    .type_info = type_info,
    .type_lower = type_lower,
    .session_create = session_create,
    .session_destroy = session_destroy,
    .compile = compile,
    .artifact_info = artifact_info,
    .artifact_warning = artifact_warning,
    .artifact_ir = artifact_ir,
    .artifact_destroy = artifact_destroy,
    /* since 1.1 */
    .registry_create = registry_create,
    .registry_destroy = registry_destroy,
    .session_registry = session_registry,
    .declare_device = declare_device,
    .compile_all = compile_all,
    .link = link,
    .artifact_part = artifact_part,
    .load = load,
    .library_unload = library_unload,
    .kernel_get = kernel_get,
    .launch = launch,
    .mem_alloc = cuplug__mem_alloc,
    .mem_free = cuplug__mem_free,
    .memcpy_to_device = cuplug__memcpy_to_device,
    .memcpy_to_host = cuplug__memcpy_to_host,
    .synchronize = cuplug__synchronize,
    .device_reset = cuplug__device_reset,
    /* since 1.2 */
    .type_tuple = cuplug__type_tuple,
    .type_int_literal = cuplug__type_int_literal,
    .type_number_class = cuplug__type_number_class,
    .register_template = register_template,
    .register_lowering = register_lowering,
    .resolve_call = resolve_call,
    .registry_list = cuplug__registry_list,
    .const_array = const_array,
    /* since 1.3 */
    .kernel_info = kernel_info,
    .cache_info = cache_info,
    .cache_clear = cache_clear,
    .host_function = host_function,
    .host_call = host_call,
    .artifact_stage = artifact_stage,
};

CUPLUG_EXPORT const cuplug_api *cuplug_get_api(uint32_t major, uint32_t minor) {
  (void)minor; /* any minor: the table says what it has */
  return major == CUPLUG_ABI_MAJOR ? &api_v1 : NULL;
}
