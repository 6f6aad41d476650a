/*
 * cuplug.h - the public contract of the cuplug plugin.
 *
 * cuplug is a CUDA device-compilation backend: it takes the NVVM IR a host
 * JIT emits for a function, wraps it (C ABI device function, or kernel),
 * compiles it with libNVVM to PTX or LTO-IR, and hands the bytes back.
 *
 * How a host uses it
 *   1. dlopen("libcuplug.so") and dlsym("cuplug_get_api"): the only symbol
 *      the library exports.
 *   2. api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR).  NULL means
 *      the plugin speaks another major version.  A table is returned for any
 *      minor: api->abi_minor says which calls exist (see CUPLUG_API_HAS).
 *   3. Every other call is reached through the table.
 *
 * Conventions (true of every call unless its comment says otherwise)
 *   - Errors are objects.  A call returns NULL on success, or a
 *     cuplug_error* the caller releases with api->error_destroy.
 *   - Every argument struct begins with `size_t struct_size`, which the
 *     caller sets to sizeof(the struct) from the header it was built with.
 *     Structs only grow at their end within a major version.  A plugin reads
 *     a shorter (older) struct with the missing fields as zero; fields of a
 *     longer (newer) struct that the plugin does not know must be zero, or
 *     the call fails with CUPLUG_ERR_ABI_FIELD.
 *   - Zero is the default of every field: a zero-filled struct with
 *     struct_size set asks for the documented defaults.
 *   - Fields marked "out" are written by the call.
 *   - Handles are opaque.  Each has a create/destroy pair; destroy(NULL) is
 *     a no-op.  Memory a call hands out is owned by a handle (and lives as
 *     long as it), never by the host's free().
 *   - Strings are NUL-terminated UTF-8 unless a size accompanies them.
 *   - Threads: each call says what may run concurrently.  No call needs a
 *     global lock held by the host.
 *   - CUDA is found at run time.  Without libNVVM, or without a GPU, the
 *     plugin still loads; the first call that needs the missing piece fails
 *     with a clear error.
 *
 * This header is C99 and includes only <stddef.h> and <stdint.h>.
 */
#ifndef CUPLUG_CUPLUG_H
#define CUPLUG_CUPLUG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUPLUG_ABI_MAJOR 1
#define CUPLUG_ABI_MINOR 0

/* True when the table `api` is long enough to hold `member`. */
#define CUPLUG_API_HAS(api, member)                                            \
  ((api)->struct_size >=                                                       \
   offsetof(cuplug_api, member) + sizeof(((cuplug_api *)0)->member))

/* ------------------------------------------------------------------------ */
/* Status codes.  Numbers are stable: new codes are only ever appended.      */
/* ------------------------------------------------------------------------ */

typedef enum cuplug_status {
  CUPLUG_OK = 0,

  /* The call itself */
  CUPLUG_ERR_INVALID_ARGUMENT = 1,  /* a NULL handle or pointer, a bad enum */
  CUPLUG_ERR_OUT_OF_MEMORY = 2,
  CUPLUG_ERR_ABI_FIELD = 3,         /* a newer struct sets a field this plugin lacks */
  CUPLUG_ERR_IO = 4,                /* a file that cannot be read or written */

  /* Types and signatures */
  CUPLUG_ERR_SIGNATURE_SYNTAX = 10, /* malformed signature or type string */
  CUPLUG_ERR_UNKNOWN_TYPE = 11,     /* a type name cuplug does not know */
  CUPLUG_ERR_INVALID_TYPE = 12,     /* a well-formed but impossible type */

  /* The input IR */
  CUPLUG_ERR_IR_EMPTY = 20,         /* no modules, or a module with no text */
  CUPLUG_ERR_IR_PARSE = 21,         /* IR that does not parse */
  CUPLUG_ERR_ENTRY_NOT_FOUND = 22,  /* no definition of the entry symbol */
  CUPLUG_ERR_ENTRY_MISMATCH = 23,   /* the entry's type disagrees with its signature */
  CUPLUG_ERR_IR_UNSUPPORTED = 24,   /* valid IR that a transformation cannot handle */

  /* Options (the rules of numba-cuda's compile()) */
  CUPLUG_ERR_OPTION_OUTPUT = 30,       /* output is not ptx or ltoir */
  CUPLUG_ERR_OPTION_ABI = 31,          /* abi is not numba or c */
  CUPLUG_ERR_FORCEINLINE_OUTPUT = 32,  /* forceinline without LTO-IR output */
  CUPLUG_ERR_FORCEINLINE_KERNEL = 33,  /* forceinline on a kernel */
  CUPLUG_ERR_C_ABI_KERNEL = 34,        /* the C ABI asked for a kernel */
  CUPLUG_ERR_KERNEL_RETURN = 35,       /* a kernel whose signature returns a value */
  CUPLUG_ERR_LAUNCH_BOUNDS = 36,       /* not 1 to 3 positive values */
  CUPLUG_ERR_OPTION_CC = 37,           /* compute capability out of range */
  CUPLUG_ERR_OPTION_OPT = 38,          /* opt level outside 0..3 */
  CUPLUG_ERR_OPTION_KIND = 39,         /* kind is not device or kernel */
  CUPLUG_ERR_OPTION_NAME = 40,         /* an entry or abi_name that is not a symbol */

  /* The toolkit and the device */
  CUPLUG_ERR_NVVM_NOT_FOUND = 50,      /* libNVVM could not be loaded */
  CUPLUG_ERR_LIBDEVICE_NOT_FOUND = 51, /* libdevice.10.bc could not be read */
  CUPLUG_ERR_NVVM = 52,                /* libNVVM rejected the program (see the log) */
  CUPLUG_ERR_DRIVER_NOT_FOUND = 53,    /* libcuda could not be loaded */
  CUPLUG_ERR_NO_DEVICE = 54,           /* no CUDA device is present */
  CUPLUG_ERR_DRIVER = 55,              /* a CUDA driver call failed */
  CUPLUG_ERR_NVRTC_NOT_FOUND = 56,     /* NVRTC could not be loaded */
  CUPLUG_ERR_NVJITLINK_NOT_FOUND = 57, /* nvJitLink could not be loaded */

  /* Warnings: never returned by a call, only held by an artifact. */
  CUPLUG_WARN_DEBUG_WITH_OPT = 1000 /* debug together with opt > 0 */
} cuplug_status;

/* ------------------------------------------------------------------------ */
/* Opaque handles                                                            */
/* ------------------------------------------------------------------------ */

typedef struct cuplug_error cuplug_error;       /* error or warning */
typedef struct cuplug_type cuplug_type;         /* interned, immutable */
typedef struct cuplug_session cuplug_session;   /* toolkit + defaults */
typedef struct cuplug_artifact cuplug_artifact; /* a compile's result */

/* ------------------------------------------------------------------------ */
/* Enumerations.  0 is always "the default".                                 */
/* ------------------------------------------------------------------------ */

typedef enum cuplug_type_kind {
  CUPLUG_TYPE_INVALID = 0,
  CUPLUG_TYPE_VOID = 1, /* "void", "none" */
  CUPLUG_TYPE_BOOL = 2, /* "bool", "boolean", "b1" */
  CUPLUG_TYPE_INT8 = 3,
  CUPLUG_TYPE_INT16 = 4,
  CUPLUG_TYPE_INT32 = 5,
  CUPLUG_TYPE_INT64 = 6, /* also "intp" */
  CUPLUG_TYPE_UINT8 = 7,
  CUPLUG_TYPE_UINT16 = 8,
  CUPLUG_TYPE_UINT32 = 9,
  CUPLUG_TYPE_UINT64 = 10, /* also "uintp" */
  CUPLUG_TYPE_FLOAT16 = 11,
  CUPLUG_TYPE_FLOAT32 = 12,
  CUPLUG_TYPE_FLOAT64 = 13,
  CUPLUG_TYPE_COMPLEX64 = 14,
  CUPLUG_TYPE_COMPLEX128 = 15,
  CUPLUG_TYPE_POINTER = 16,  /* "CPointer(T)" or "T*" */
  CUPLUG_TYPE_ARRAY = 17,    /* "T[:]", "T[:, ::1]", ... */
  CUPLUG_TYPE_SIGNATURE = 18 /* "R(A, B)" */
} cuplug_type_kind;

typedef enum cuplug_layout {
  CUPLUG_LAYOUT_ANY = 0, /* "A": T[:, :] */
  CUPLUG_LAYOUT_C = 1,   /* C-contiguous: T[::1], T[:, ::1] */
  CUPLUG_LAYOUT_F = 2    /* Fortran-contiguous: T[::1, :] */
} cuplug_layout;

typedef enum cuplug_abi {
  CUPLUG_ABI_DEFAULT = 0, /* numba for an entry; c for a device function's output */
  CUPLUG_ABI_NUMBA = 1,   /* i32 f(R *ret, flattened args...): status code return */
  CUPLUG_ABI_C = 2        /* R f(flattened args...) */
} cuplug_abi;

typedef enum cuplug_function_kind {
  CUPLUG_DEVICE_FUNCTION = 0, /* the default, as numba-cuda's compile() */
  CUPLUG_KERNEL = 1           /* a __global__ entry point */
} cuplug_function_kind;

typedef enum cuplug_output {
  CUPLUG_OUTPUT_DEFAULT = 0, /* the call's default: PTX for compile(), as numba-cuda's */
  CUPLUG_OUTPUT_PTX = 1,
  CUPLUG_OUTPUT_LTOIR = 2
} cuplug_output;

/* Where a type is passed, for cuplug_type_lower_args. */
typedef enum cuplug_position {
  CUPLUG_POSITION_ARGUMENT = 0,
  CUPLUG_POSITION_RETURN = 1
} cuplug_position;

/* Bits of cuplug_compile_args.flags */
#define CUPLUG_COMPILE_CURRENT_DEVICE 0x1u /* cc of the current device (numba's *_for_current_device) */
#define CUPLUG_COMPILE_KEEP_IR 0x2u        /* keep the NVVM IR handed to libNVVM in the artifact */

/* ------------------------------------------------------------------------ */
/* Argument structs                                                          */
/* ------------------------------------------------------------------------ */

/* Versions of the plugin, the toolkit and the driver.  Output only: the
 * plugin fills the struct up to the caller's struct_size and sets
 * struct_size to the number of bytes it filled.  A version that was not
 * found is -1, with the reason in the matching *_status string. */
typedef struct cuplug_info {
  size_t struct_size;
  const char *cuplug_version; /* out: "1.0.0" */
  uint32_t abi_major;         /* out */
  uint32_t abi_minor;         /* out */
  int32_t nvvm_major, nvvm_minor;       /* out: libNVVM, e.g. 2.0 */
  int32_t nvvm_ir_major, nvvm_ir_minor; /* out: NVVM IR version, e.g. 2.0 */
  int32_t nvvm_dbg_major, nvvm_dbg_minor; /* out: debug metadata version */
  int32_t nvrtc_major, nvrtc_minor;     /* out */
  int32_t nvjitlink_major, nvjitlink_minor; /* out */
  int32_t driver_version;  /* out: as cuDriverGetVersion, e.g. 13000 */
  int32_t device_count;    /* out: 0 when there is no GPU or no driver */
  int32_t device_cc_major; /* out: device 0, -1 when none */
  int32_t device_cc_minor; /* out */
  const char *device_name; /* out: device 0, "" when none */
  const char *nvvm_path;   /* out: the library loaded, or "" */
  const char *nvvm_status; /* out: "ok" or why it was not found */
  const char *nvrtc_status;     /* out */
  const char *nvjitlink_status; /* out */
  const char *driver_status;    /* out */
} cuplug_info;

/* Data model of one type: how it travels through a call under an ABI. */
typedef struct cuplug_type_lower_args {
  size_t struct_size;
  const cuplug_type *type; /* a value type, or a signature */
  cuplug_abi abi;          /* 0: numba */
  cuplug_position position;
  /* out.  For a value type: the NVVM IR types of the parameters it is
   * flattened into (an array: meminfo, parent, nitems, itemsize, data,
   * shape[N], strides[N]), and `ir_type`, its IR type as one value (the
   * array's struct, "{float, float}" for complex64).  As a return under the
   * numba ABI, `parts` holds the type of the return slot's pointee.  For a
   * signature: `ir_type` is the function type ("i32 (i64*, i32, i32)"),
   * `parts` its parameters. */
  const char *ir_type;
  size_t num_parts;
  const char *const *parts;
} cuplug_type_lower_args;

/* What a type is made of. */
typedef struct cuplug_type_info {
  size_t struct_size;
  const cuplug_type *type;
  cuplug_type_kind kind;        /* out */
  const char *name;             /* out: canonical name, parses back to `type` */
  const cuplug_type *element;   /* out: pointee (pointer), dtype (array) */
  uint32_t ndim;                /* out: arrays */
  cuplug_layout layout;         /* out: arrays */
  const cuplug_type *restype;   /* out: signatures */
  size_t num_args;              /* out: signatures */
  const cuplug_type *const *args; /* out: signatures */
  uint32_t size;                /* out: bytes of a scalar or pointer, 0 otherwise */
} cuplug_type_info;

typedef struct cuplug_session_options {
  size_t struct_size;
  /* The CUDA toolkit to use.  NULL: $CUDA_HOME, then /usr/local/cuda, then
   * the dynamic loader's search path. */
  const char *cuda_home;
  /* The PTX cc used when a compile gives none (numba-cuda's
   * CUDA_DEFAULT_PTX_CC).  0.0: 5.0, numba-cuda's.  The effective default is
   * the larger of this and the lowest cc NVRTC supports (7.5 with CUDA 13). */
  uint32_t default_cc_major;
  uint32_t default_cc_minor;
} cuplug_session_options;

/* One NVVM IR module, as text in the NVVM dialect (LLVM 7, typed pointers),
 * which is what numba-cuda's front end emits. */
typedef struct cuplug_module {
  size_t struct_size;
  const char *name; /* for messages; NULL: "module<i>" */
  const char *text; /* need not be NUL-terminated */
  size_t size;      /* bytes of text */
} cuplug_module;

/* compile(): the backend of numba-cuda's compile(), compile_ptx() and
 * compile_cuda().  The caller's modules are read during the call only.
 * The fields up to `artifact` are required; every later field is an option
 * whose zero is its default, so a caller built against an older header
 * (a shorter struct) gets the defaults for the options it does not know. */
typedef struct cuplug_compile_args {
  size_t struct_size;
  cuplug_session *session;
  const cuplug_module *const *modules; /* the host JIT's IR */
  size_t num_modules;
  const char *entry;     /* the entry's symbol in the modules */
  /* The entry's signature, numba-style ("int64(int32, float32[::1])"), or
   * as a handle.  Exactly one of the two. */
  const char *signature;
  const cuplug_type *signature_type;
  cuplug_artifact *artifact; /* out: release with artifact_destroy */

  /* options */
  cuplug_abi entry_abi;  /* the entry's ABI in the IR.  0: numba */
  cuplug_function_kind kind; /* 0: device function */
  cuplug_abi abi;        /* device functions: the ABI to export.  0: c */
  const char *abi_name;  /* C ABI: the exported name.  NULL: the entry's name */
  cuplug_output output;  /* 0: PTX */
  uint32_t cc_major;     /* 0: the session's default (see session options) */
  uint32_t cc_minor;
  int32_t opt;           /* libNVVM -opt level 1..3, CUPLUG_OPT_NONE for 0; 0: 3 */
  uint32_t debug;        /* 1: debug info (-g) and, for kernels, the exception store */
  uint32_t lineinfo;     /* 1: -generate-line-info */
  uint32_t fastmath;     /* 1: -ftz=1 -prec-div=0 -prec-sqrt=0 -fma=1 */
  uint32_t forceinline;  /* 1: alwaysinline the device function (LTO-IR only) */
  const uint32_t *launch_bounds; /* kernels: max threads per block, min
                                    blocks per SM, max blocks per cluster */
  size_t num_launch_bounds;      /* 0..3 */
  uint32_t max_registers;        /* kept in the artifact, used at link time */
  uint32_t flags;                /* CUPLUG_COMPILE_* */
} cuplug_compile_args;

/* libNVVM's -opt=0, which cannot be written as 0 (the default). */
#define CUPLUG_OPT_NONE (-1)

/* What a compile produced.  Pointers are owned by the artifact. */
typedef struct cuplug_artifact_info {
  size_t struct_size;
  cuplug_output output;  /* out: PTX or LTOIR, never DEFAULT */
  const void *data;      /* out: PTX (NUL-terminated) or LTO-IR bytes */
  size_t size;           /* out: bytes, without PTX's terminating NUL */
  const char *symbol;    /* out: the exported function or kernel */
  const char *log;       /* out: libNVVM's log, "" when it said nothing */
  uint32_t cc_major;     /* out: the cc compiled for */
  uint32_t cc_minor;
  cuplug_function_kind kind; /* out */
  uint32_t debug;        /* out: compiled with the exception store */
  uint32_t lineinfo;     /* out */
  uint32_t max_registers; /* out: as given, for the linker */
  size_t num_warnings;   /* out: see artifact_warning */
  size_t num_ir_modules; /* out: with CUPLUG_COMPILE_KEEP_IR, see artifact_ir */
} cuplug_artifact_info;

/* One NVVM IR module as it went to libNVVM. */
typedef struct cuplug_ir_view {
  size_t struct_size;
  const char *name; /* out: the input's name, or "cabi_wrapper" */
  const char *text; /* out: NUL-terminated */
  size_t size;      /* out */
} cuplug_ir_view;

/* ------------------------------------------------------------------------ */
/* The function table                                                        */
/* ------------------------------------------------------------------------ */

typedef struct cuplug_api {
  size_t struct_size;
  uint32_t abi_major; /* the plugin's ABI version */
  uint32_t abi_minor;

  /* ---- since 1.0: errors ---- */

  /* The status code of an error or warning.  NULL gives CUPLUG_OK. */
  cuplug_status (*error_code)(const cuplug_error *error);
  /* One line naming what went wrong and the culprit.  Lives as long as the
   * error.  NULL gives "". */
  const char *(*error_message)(const cuplug_error *error);
  /* The toolkit's log (libNVVM...) when one exists, else "". */
  const char *(*error_log)(const cuplug_error *error);
  /* Releases an error.  NULL is a no-op.  Not for an artifact's warnings. */
  void (*error_destroy)(cuplug_error *error);
  /* The name of a status ("CUPLUG_ERR_IR_PARSE"); static storage. */
  const char *(*status_name)(cuplug_status status);

  /* ---- since 1.0: versions ---- */

  /* Fills *info.  Loads the toolkit libraries and the driver if present;
   * never fails for their absence (see the *_status strings).  Strings are
   * static or live until the plugin is unloaded.  Thread-safe. */
  cuplug_error *(*get_info)(cuplug_info *info);

  /* ---- since 1.0: types ----
   * Types are interned: equal types are the same pointer; they are owned by
   * the plugin and live until it is unloaded.  All type calls are
   * thread-safe. */

  /* Parses a type ("float32[:, ::1]") or a signature ("int64(int32,
   * CPointer(float64))").  Errors: CUPLUG_ERR_SIGNATURE_SYNTAX and
   * CUPLUG_ERR_UNKNOWN_TYPE, naming the text and its position. */
  cuplug_error *(*type_parse)(const char *text, const cuplug_type **out);
  /* The scalar type of a kind (VOID..COMPLEX128), else NULL. */
  const cuplug_type *(*type_scalar)(cuplug_type_kind kind);
  /* CPointer(pointee).  The pointee may not be void or a signature. */
  cuplug_error *(*type_pointer)(const cuplug_type *pointee,
                                const cuplug_type **out);
  /* An array of ndim 1..8 of a numeric or bool dtype. */
  cuplug_error *(*type_array)(const cuplug_type *dtype, uint32_t ndim,
                              cuplug_layout layout, const cuplug_type **out);
  /* restype(argtypes...): argtypes may be NULL when nargs is 0. */
  cuplug_error *(*type_signature)(const cuplug_type *restype,
                                  const cuplug_type *const *argtypes,
                                  size_t nargs, const cuplug_type **out);
  /* What a type is made of (args->type in, the rest out). */
  cuplug_error *(*type_info)(cuplug_type_info *args);
  /* The data model: how a type is passed under an ABI, as NVVM IR types. */
  cuplug_error *(*type_lower)(cuplug_type_lower_args *args);

  /* ---- since 1.0: sessions ----
   * A session holds the toolkit it found and its defaults.  Compiles on one
   * session, or on several, may run on many threads at once; destroy a
   * session only when no call on it is running. */
  cuplug_error *(*session_create)(const cuplug_session_options *options,
                                  cuplug_session **out);
  void (*session_destroy)(cuplug_session *session);

  /* ---- since 1.0: compile ----
   * Validates the IR against the signature (LLVM), wraps it (C-ABI wrapper,
   * or kernel fix-up with annotations and the debug exception store),
   * legalises it for libNVVM, and compiles it to PTX or LTO-IR.  On success
   * args->artifact holds the result.  Thread-safe (see sessions). */
  cuplug_error *(*compile)(cuplug_compile_args *args);

  /* ---- since 1.0: artifacts ----
   * An artifact is immutable: reading it from many threads is safe. */
  cuplug_error *(*artifact_info)(const cuplug_artifact *artifact,
                                 cuplug_artifact_info *info);
  /* The i-th warning, owned by the artifact (do not destroy); NULL past the end. */
  const cuplug_error *(*artifact_warning)(const cuplug_artifact *artifact,
                                          size_t index);
  /* The i-th IR module handed to libNVVM (with CUPLUG_COMPILE_KEEP_IR). */
  cuplug_error *(*artifact_ir)(const cuplug_artifact *artifact, size_t index,
                               cuplug_ir_view *view);
  void (*artifact_destroy)(cuplug_artifact *artifact);
} cuplug_api;

/* The one exported symbol.  Returns the plugin's table when `major` is the
 * plugin's major version, whatever `minor` (check api->abi_minor), else
 * NULL.  The table is static: it lives until the plugin is unloaded. */
typedef const cuplug_api *(*cuplug_get_api_fn)(uint32_t major, uint32_t minor);

#if defined(_WIN32)
#define CUPLUG_EXPORT __declspec(dllexport)
#else
#define CUPLUG_EXPORT __attribute__((visibility("default")))
#endif

CUPLUG_EXPORT const cuplug_api *cuplug_get_api(uint32_t major, uint32_t minor);

#ifdef __cplusplus
}
#endif

#endif /* CUPLUG_CUPLUG_H */
