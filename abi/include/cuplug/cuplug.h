/*
 * cuplug.h - the public contract of the cuplug plugin.
 *
 * cuplug is a CUDA device-compilation backend: it takes the NVVM IR a host
 * JIT emits for a function, wraps it (C ABI device function, or kernel),
 * compiles it with libNVVM to PTX or LTO-IR (or a cubin, linked with the
 * code it calls), and hands the bytes back; it loads and launches the
 * result on the GPU, or on this CPU (CUPLUG_OUTPUT_HOST).
 *
 * How a host uses it
 *   1. dlopen("libcuplug.so") and dlsym("cuplug_get_api"): the only symbol
 *      the library exports.
 *   2. api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR).  NULL means
 *      the plugin speaks another major version.  A table is returned for any
 *      minor: api->abi_minor says which calls exist (see CUPLUG_API_HAS).
 *   3. Every other call is reached through the table.
 *
 * Words: the host is the program that loaded the plugin (a JIT, a
 * library).  Since 1.3 device code also runs on this CPU; the names of
 * that target say "host" as well (CUPLUG_OUTPUT_HOST, host_function,
 * host_call, host_threads, CUPLUG_ERR_HOST_*, a "host library"): there it
 * means the CPU, where the host itself runs.
 *
 * Conventions (true of every call unless its comment says otherwise)
 *   - Errors are objects.  A call returns NULL on success, or a
 *     cuplug_error* the caller releases with api->error_destroy.
 *   - Every argument struct begins with `size_t struct_size`, which the
 *     caller sets to the struct's size constant from the header it was
 *     built with: CUPLUG_COMPILE_ARGS_STRUCT_SIZE for cuplug_compile_args,
 *     and so on, the bytes up to the end of the struct's last field (as
 *     PJRT's STRUCT_SIZE).  sizeof(the struct), which hosts built against
 *     1.0 to 1.2 were told to set, works as well: a field added in a
 *     release never lies within the sizeof (padding included) that the
 *     struct had in an earlier release, so an older host's padding is never
 *     read as a newer field.  Where a new field would fall into such
 *     padding, a `reservedN` field fills it, which the plugin never reads.
 *     Calls added from 1.3 on take exactly one such struct (inputs, options
 *     and outputs), so that each can gain fields.  Calls of 1.0 to 1.2 that
 *     take positional arguments keep them within major 1: type_parse,
 *     type_scalar, type_pointer, type_array, type_signature, type_tuple,
 *     type_int_literal, type_number_class, session_create,
 *     session_destroy, artifact_info, artifact_warning, artifact_ir,
 *     artifact_part, artifact_destroy, registry_create, registry_destroy,
 *     session_registry, registry_list, library_unload, mem_alloc, mem_free,
 *     memcpy_to_device, memcpy_to_host, synchronize, device_reset and the
 *     error calls.
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
 *   - since 1.3: nothing a host passes takes the host down.  IR is verified
 *     by LLVM before libNVVM's result is used; libNVVM, NVRTC and
 *     nvJitLink run in a helper process (cuplug-helper, beside the plugin)
 *     that is restarted after a crash (CUPLUG_ERR_TOOLKIT_CRASH) and
 *     stopped at a time limit (CUPLUG_ERR_TIMEOUT); inputs beyond the
 *     CUPLUG_MAX_* limits are refused (CUPLUG_ERR_LIMIT).  A session may
 *     trust its inputs instead (CUPLUG_SESSION_TRUSTED): faster, not safe.
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
#define CUPLUG_ABI_MINOR 3

/* The bytes of a struct up to the end of `last_field`: each struct's size
 * constant below is this, with its last field. */
#define CUPLUG_STRUCT_SIZE(type, last_field)                                   \
  (offsetof(type, last_field) + sizeof(((type *)0)->last_field))

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
  /* The entry's type disagrees with its signature under its ABI: the
   * message names the parameter (the return slot, argument 1, the data
   * pointer of argument 0), its type in the IR and the signature's.  What a
   * typed pointer (i8*) points at is compared too; an opaque `ptr` only as
   * a pointer (see compile). */
  CUPLUG_ERR_ENTRY_MISMATCH = 23,
  CUPLUG_ERR_IR_UNSUPPORTED = 24,   /* valid IR that a transformation cannot handle */
  CUPLUG_ERR_IR_VERSION = 25,       /* since 1.3: bitcode from an LLVM newer than cuplug's
                                       (both versions named) */

  /* Options (the rules of numba-cuda's compile()) */
  CUPLUG_ERR_OPTION_OUTPUT = 30,       /* an output the call does not make (see cuplug_output) */
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
  CUPLUG_ERR_OPTION_BACKEND = 41,      /* since 1.3: a backend that is none of cuplug_backend's,
                                          or one that cannot take this IR, output or cc */
  CUPLUG_ERR_OPTION_CACHE_REMOTE = 42, /* since 1.3: a remote cache URL (cache_remote,
                                          CUPLUG_CACHE_REMOTE) or setting cuplug cannot use */

  /* The toolkit and the device */
  CUPLUG_ERR_NVVM_NOT_FOUND = 50,      /* libNVVM could not be loaded */
  CUPLUG_ERR_LIBDEVICE_NOT_FOUND = 51, /* libdevice.10.bc could not be read */
  CUPLUG_ERR_NVVM = 52,                /* libNVVM rejected the program (see the log) */
  CUPLUG_ERR_DRIVER_NOT_FOUND = 53,    /* libcuda could not be loaded */
  CUPLUG_ERR_NO_DEVICE = 54,           /* no CUDA device is present */
  CUPLUG_ERR_DRIVER = 55,              /* a CUDA driver call failed */
  CUPLUG_ERR_NVRTC_NOT_FOUND = 56,     /* NVRTC could not be loaded */
  CUPLUG_ERR_NVJITLINK_NOT_FOUND = 57, /* nvJitLink could not be loaded */
  CUPLUG_ERR_NVPTX_NOT_FOUND = 58,     /* since 1.3: libcuplug-nvptx.so, LLVM's NVPTX backend,
                                          could not be loaded */
  CUPLUG_ERR_NVPTX = 59,               /* since 1.3: LLVM's NVPTX backend rejected the module
                                          (an error diagnostic, or an LLVM fatal error such as
                                          "Cannot select"); LLVM's message, and the log */

  /* since 1.1: external code and linking */
  CUPLUG_ERR_CODE_KIND = 60,      /* code of a kind cuplug cannot tell or link */
  CUPLUG_ERR_NVRTC = 61,          /* NVRTC failed to compile a .cu (see the log) */
  CUPLUG_ERR_LINK = 62,           /* nvJitLink failed, e.g. an undefined symbol (see the log) */
  CUPLUG_ERR_DUPLICATE = 63,      /* a name registered twice */
  CUPLUG_ERR_DECLARATION_MISMATCH = 64, /* IR declares a registered function otherwise */

  /* since 1.1: loading and launching */
  CUPLUG_ERR_LOAD = 70,           /* the driver would not load the image */
  CUPLUG_ERR_KERNEL_NOT_FOUND = 71, /* no kernel of that name in the image */
  CUPLUG_ERR_LAUNCH_ARGS = 72,    /* wrong number or types of kernel arguments */
  CUPLUG_ERR_LAUNCH_CONFIG = 73,  /* grid, block or shared memory beyond the device */
  CUPLUG_ERR_KERNEL_EXCEPTION = 74, /* a debug kernel raised (code, thread, block) */
  CUPLUG_ERR_KERNEL_FAULT = 75,   /* the kernel faulted; the context is lost */

  /* since 1.2: typing and lowering */
  CUPLUG_ERR_UNKNOWN_KEY = 80,    /* nothing is registered under the key */
  CUPLUG_ERR_NO_MATCH = 81,       /* no signature of the key takes these argument types */
  CUPLUG_ERR_AMBIGUOUS = 82,      /* several signatures match equally well */
  CUPLUG_ERR_NO_LOWERING = 83,    /* a signature with no implementation */
  CUPLUG_ERR_CALLBACK = 84,       /* a host callback failed or returned nonsense */
  CUPLUG_ERR_LOWERING = 85,       /* a lowering's IR does not parse, or lacks its symbol */

  /* since 1.3: the host is kept safe */
  CUPLUG_ERR_TOOLKIT_CRASH = 90,  /* libNVVM, NVRTC or nvJitLink crashed, in its helper process */
  CUPLUG_ERR_TIMEOUT = 91,        /* a toolkit call ran past the time limit and was stopped */
  CUPLUG_ERR_HELPER = 92,         /* the helper process (cuplug-helper) cannot be started */
  CUPLUG_ERR_LIMIT = 93,          /* an input beyond cuplug's limits (see CUPLUG_MAX_*) */
  CUPLUG_ERR_IR_INVALID = 94,     /* IR that parses but that LLVM's verifier rejects */

  /* since 1.3: device code on the CPU (CUPLUG_OUTPUT_HOST) */
  CUPLUG_ERR_HOST_UNSUPPORTED = 100, /* a construct the host cannot run (named, with its line):
                                        inline PTX, tensor cores, textures, CUDA C++, ... */
  CUPLUG_ERR_HOST_BARRIER = 101,  /* a barrier not every thread of a block reaches */
  CUPLUG_ERR_HOST_NOT_FOUND = 102, /* libcuplug-host.so cannot be loaded */
  CUPLUG_ERR_INTERRUPTED = 103,   /* the host set a launch's or a call's interrupt flag */

  /* Warnings: never returned by a call, only held by an artifact. */
  CUPLUG_WARN_DEBUG_WITH_OPT = 1000, /* debug together with opt > 0 */
  /* since 1.3 */
  CUPLUG_WARN_CACHE = 1001, /* the disk cache was set aside (unusable folder, bad entry), or
                               the remote one is not used, failed or held an entry that did
                               not verify */
  CUPLUG_WARN_NVRTC_LOG = 1002 /* NVRTC compiled linked .cu code and said something (its
                                  warnings): "NVRTC log messages whilst compiling NAME: ..." */
} cuplug_status;

/* since 1.3: cuplug's limits.  An input beyond one is refused with
 * CUPLUG_ERR_LIMIT before any work is done on it, so that no input takes
 * unbounded memory or stack. */
#define CUPLUG_MAX_MODULE_SIZE (64u << 20) /* bytes of one IR module (numba's are a few MB) */
#define CUPLUG_MAX_IR_NESTING 256 /* brackets ( [ { < nested in IR text */
#define CUPLUG_MAX_TYPE_DEPTH 64  /* types in types: CPointer(UniTuple(...)) */
#define CUPLUG_MAX_ARGS 256       /* arguments of a signature, elements of a tuple */

/* ------------------------------------------------------------------------ */
/* Opaque handles                                                            */
/* ------------------------------------------------------------------------ */

typedef struct cuplug_error cuplug_error;       /* error or warning */
typedef struct cuplug_type cuplug_type;         /* interned, immutable */
typedef struct cuplug_session cuplug_session;   /* toolkit + defaults */
typedef struct cuplug_artifact cuplug_artifact; /* a compile's result */
typedef struct cuplug_registry cuplug_registry; /* since 1.1: typing and lowering */
typedef struct cuplug_library cuplug_library;   /* since 1.1: loaded code, on the GPU or the CPU */
typedef struct cuplug_kernel cuplug_kernel;     /* since 1.1: a kernel of a library */

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
  CUPLUG_TYPE_SIGNATURE = 18, /* "R(A, B)" */
  /* since 1.2 */
  CUPLUG_TYPE_TUPLE = 19,       /* "UniTuple(int64 x 2)", "Tuple(int64, float32)" */
  CUPLUG_TYPE_INT_LITERAL = 20, /* "Literal[int](2)": an int64 whose value typing sees;
                                   passed as an i64, or as the type a signature converts it to */
  CUPLUG_TYPE_NUMBER_CLASS = 21, /* "class(float32)": a dtype passed as an argument */
  /* since 1.3: made by type_parse (and type_scalar for BFLOAT16); the
   * README's type language gives each one's data model */
  CUPLUG_TYPE_BFLOAT16 = 22, /* "bfloat16": an i16, as float16 */
  CUPLUG_TYPE_RECORD = 23,   /* "Record(a: int32 @ 0, b: float64 @ 8, size=16)": named
                                fields at byte offsets, passed by reference ([16 x i8]*) */
  CUPLUG_TYPE_OPAQUE = 24,   /* "Opaque(\"Module\")": a value known only while compiling;
                                one i8* nothing reads */
  CUPLUG_TYPE_OMITTED = 25,  /* "Omitted(\"3\")": an argument the caller left out; no
                                parameter, never a return type */
  CUPLUG_TYPE_STRUCT = 26    /* "Struct(x: int32, y: float32)": named members by value,
                                numba's StructModel: the literal struct {i32, float} (never
                                an array), flattened as an argument as a tuple is */
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
  CUPLUG_OUTPUT_LTOIR = 2,
  CUPLUG_OUTPUT_CUBIN = 3, /* since 1.1: compiled and linked with what it calls; kernels
                              only (a device function's cubin would be empty: give it as
                              ptx or ltoir to a kernel's link) */
  /* since 1.3: for this CPU.  The artifact holds the IR the compile would
   * hand libNVVM (artifact_ir), and no code: load() compiles it with LLVM's
   * ORC JIT into a host library.  No CUDA toolkit is needed. */
  CUPLUG_OUTPUT_HOST = 4
} cuplug_output;

/* since 1.3: what turns GPU IR into PTX.  compile() reads three dialects
 * of LLVM IR, told apart by their bytes (cuplug_module):
 *   typed    numba-cuda's LLVM 7 text with typed pointers (`float*`), the
 *            dialect libNVVM reads;
 *   modern   text with opaque pointers (`ptr`), as LLVM 15 and later,
 *            Triton, Julia, rustc, MLIR and clang write it;
 *   bitcode  LLVM bitcode from LLVM 7 to cuplug's (22); newer bitcode is
 *            CUPLUG_ERR_IR_VERSION.
 * Typed text goes to libNVVM by default, as numba-cuda's does; modern text
 * and bitcode to LLVM's NVPTX backend (libcuplug-nvptx.so, run in a helper
 * process as libNVVM is), which makes PTX, and cubins through nvJitLink.
 * The NVPTX backend makes no LTO-IR: modern IR's LTO-IR comes from libNVVM,
 * which reads modern IR only for cc 10.0 and up (cuplug writes the module
 * in the dialect of libNVVM's reader, LLVM 20's).  A choice that cannot
 * serve the compile is CUPLUG_ERR_OPTION_BACKEND, naming what would. */
typedef enum cuplug_backend {
  CUPLUG_BACKEND_DEFAULT = 0, /* libNVVM for typed text and for LTO-IR, else the NVPTX
                                 backend */
  CUPLUG_BACKEND_LIBNVVM = 1,
  CUPLUG_BACKEND_LLVM = 2     /* LLVM 22's NVPTX backend */
} cuplug_backend;

/* since 1.1: kinds of code to link */
typedef enum cuplug_code_kind {
  CUPLUG_CODE_AUTO = 0,    /* from the path's suffix, else from the contents */
  CUPLUG_CODE_CU = 1,      /* CUDA C++ (.cu), compiled with NVRTC */
  CUPLUG_CODE_PTX = 2,     /* .ptx */
  CUPLUG_CODE_LTOIR = 3,   /* .ltoir */
  CUPLUG_CODE_CUBIN = 4,   /* .cubin */
  CUPLUG_CODE_FATBIN = 5,  /* .fatbin */
  CUPLUG_CODE_OBJECT = 6,  /* .o, a host object holding device code */
  CUPLUG_CODE_ARCHIVE = 7  /* .a, a library of such objects */
} cuplug_code_kind;

/* Where a type is passed, for cuplug_type_lower_args. */
typedef enum cuplug_position {
  CUPLUG_POSITION_ARGUMENT = 0,
  CUPLUG_POSITION_RETURN = 1
} cuplug_position;

/* Bits of cuplug_compile_args.flags */
#define CUPLUG_COMPILE_CURRENT_DEVICE 0x1u /* cc of the current device (numba's *_for_current_device) */
#define CUPLUG_COMPILE_KEEP_IR 0x2u        /* keep the NVVM IR handed to libNVVM in the artifact */
#define CUPLUG_COMPILE_LINKED_PTX 0x4u     /* since 1.1: cubin output also keeps the linked PTX */
#define CUPLUG_COMPILE_NO_CACHE 0x8u       /* since 1.3: neither look up nor store in the cache */

/* since 1.3: where a compile's or link's result came from
 * (cuplug_artifact_info.cache) */
typedef enum cuplug_cache_result {
  CUPLUG_CACHE_NONE = 0,   /* built; the cache is off, or the call asked for no cache */
  CUPLUG_CACHE_MISS = 1,   /* built, and stored in the cache */
  CUPLUG_CACHE_MEMORY = 2, /* the session's memory cache */
  CUPLUG_CACHE_DISK = 3,   /* the disk cache */
  CUPLUG_CACHE_REMOTE = 4  /* the remote cache a fleet shares (cache_remote) */
} cuplug_cache_result;

/* ------------------------------------------------------------------------ */
/* Argument structs                                                          */
/* ------------------------------------------------------------------------ */

/* Versions of the plugin, the toolkit and the driver.  Output only: the
 * plugin fills the struct up to the caller's struct_size and sets
 * struct_size to the number of bytes it filled.  A version that was not
 * found is -1, with the reason in the matching *_status string. */
typedef struct cuplug_info {
  size_t struct_size;
  const char *cuplug_version; /* out: "1.2.0": the ABI's major.minor, then a patch number */
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
  /* since 1.3 */
  const char *llvm_version;     /* out: the LLVM cuplug is built on, "22.1.8" */
  const char *nvptx_status;     /* out: libcuplug-nvptx.so: "ok" or why it was not found */
} cuplug_info;
#define CUPLUG_INFO_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_info, nvptx_status)

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
#define CUPLUG_TYPE_LOWER_ARGS_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_type_lower_args, parts)

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
  size_t num_args;              /* out: signatures' arguments, tuples' elements */
  const cuplug_type *const *args; /* out */
  uint32_t size;                /* out: bytes of a scalar or pointer, 0 otherwise
                                   (since 1.3 a record's, and a struct's value in memory) */
  /* since 1.2 */
  int64_t literal_value;        /* out: an INT_LITERAL's value */
  /* since 1.3 */
  uint32_t readonly;            /* out: 1 for a read-only array, numba's "readonly
                                   array(T, Nd, L)" (type_parse makes one); it lowers
                                   as T[...] does */
  /* A record's fields are its args (num_args of them), and `size` its bytes. */
  uint32_t align;               /* out: a record's alignment in bytes (a struct's too) */
  const char *const *field_names; /* out: a record's or a struct's, one per args[i] */
  const uint32_t *field_offsets;  /* out: a record's, bytes from its start; NULL for a
                                     struct, whose members lie as its IR struct lays them */
  const char *text;             /* out: an OPAQUE's or OMITTED's text, unescaped */
} cuplug_type_info;
#define CUPLUG_TYPE_INFO_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_type_info, text)

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
  /* since 1.1: the declarations this session's compiles consult.  The
   * session holds a reference.  NULL: a registry of its own (see
   * session_registry). */
  cuplug_registry *registry;
  /* since 1.3 */
  uint32_t flags;         /* CUPLUG_SESSION_* */
  /* How long one call of libNVVM, NVRTC or nvJitLink may run before it is
   * stopped (CUPLUG_ERR_TIMEOUT).  0: two minutes.  A compile or link may
   * set its own. */
  uint32_t time_limit_ms;
  /* The folder of the disk cache of compile and link results (see
   * cache_info).  NULL: $CUPLUG_CACHE_DIR, else $XDG_CACHE_HOME/cuplug,
   * else $HOME/.cache/cuplug.  "": no disk cache (results are still kept in
   * memory).  CUPLUG_SESSION_NO_CACHE, or CUPLUG_CACHE=0 in the
   * environment, turns both off.  Since 1.3 the entries are code that runs
   * on the GPU and trusted as ssh trusts its files: cuplug makes its
   * folders 0700 and its entries 0600 whatever the umask; a folder (this
   * one, v1 or an entry's subfolder) that another user than the caller or
   * root owns, or that group or others can write, is not used (nothing is
   * read, written or removed there; CUPLUG_WARN_CACHE names it and why,
   * and so does cache_info's status), and such an entry is rebuilt.  The
   * folders above this one are not checked. */
  const char *cache_dir;
  uint64_t cache_max_bytes;    /* the disk cache's bound; 0: 1 GiB */
  uint64_t cache_memory_bytes; /* the memory cache's bound; 0: 64 MiB */
  /* The remote tier of the cache, behind memory and disk, that a fleet of
   * machines shares: a Redis server, or one that speaks its protocol
   * (Valkey, KeyDB), as redis://[[USER]:PASSWORD@]HOST[:PORT][/DB].  NULL:
   * $CUPLUG_CACHE_REMOTE; "": none.  A local miss asks it, a hit there
   * fills memory and disk, and a build is stored there too.  Entries are
   * signed with a key the fleet shares, and one that does not verify is
   * never used (it is counted in cache_info's remote_refused, warned about
   * once with CUPLUG_WARN_CACHE, and rebuilt); without a key nothing is
   * read or written there.  A server that refuses, drops the connection or
   * stops answering costs at most cache_remote_timeout_ms a call, and is
   * then skipped for 5 s ($CUPLUG_CACHE_REMOTE_RETRY_MS); compiles go on
   * with the same result.  hiredis is loaded at run time (without it the
   * remote is not used, and cache_info says why).  A URL cuplug cannot use
   * (rediss:// included: the hiredis cuplug is built with has no TLS) is
   * CUPLUG_ERR_OPTION_CACHE_REMOTE from session_create. */
  const char *cache_remote;
  /* The key file: 16 to 4096 random bytes, the same on every machine, the
   * user's (or root's) and neither writable by others nor readable outside
   * its group.  NULL: $CUPLUG_CACHE_REMOTE_KEY. */
  const char *cache_remote_key;
  /* The most one call to the server may take, looking its name up and
   * connecting included; at most 600000.  0: $CUPLUG_CACHE_REMOTE_TIMEOUT_MS,
   * else 50 ms. */
  uint32_t cache_remote_timeout_ms;
  /* Seconds the server keeps an entry.  0: $CUPLUG_CACHE_REMOTE_TTL, else
   * until the server's own eviction removes it. */
  uint32_t cache_remote_ttl_s;
  /* Results larger than this are not sent, nor read (a peer's larger one
   * is a miss here); at most 512 MiB.  0: $CUPLUG_CACHE_REMOTE_MAX_ENTRY_MB
   * MiB, else 4 MiB (about 35 ms on a 1 Gb/s link: a larger limit wants a
   * larger time limit). */
  uint64_t cache_remote_max_entry_bytes;
} cuplug_session_options;
#define CUPLUG_SESSION_OPTIONS_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_session_options, cache_remote_max_entry_bytes)

/* since 1.3: bits of cuplug_session_options.flags */
/* The host vouches for every input (a front end it wrote and tested):
 * compiles skip LLVM's verification, and libNVVM, NVRTC and nvJitLink run
 * in this process rather than in a helper process.  Faster; but IR that is
 * not valid can then crash or hang the host, and time limits do not apply.
 * Without it, nothing a host passes can take the host down. */
#define CUPLUG_SESSION_TRUSTED 0x1u
/* No cache: every compile and link is built afresh. */
#define CUPLUG_SESSION_NO_CACHE 0x2u

/* since 1.1: code to link, from a file or from memory.  Read during the
 * call that takes it (a registry copies what it is given). */
typedef struct cuplug_code {
  size_t struct_size;
  cuplug_code_kind kind; /* 0: from the suffix of path (or name), else the contents */
  const char *name;      /* for messages and logs; NULL: path, or "code<i>" */
  const char *path;      /* a file; used when data is NULL */
  const void *data;      /* the bytes (text need not be NUL-terminated) */
  size_t size;
} cuplug_code;
#define CUPLUG_CODE_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_code, size)

/* One module of LLVM IR: text in the NVVM dialect (LLVM 7, typed pointers),
 * which is what numba-cuda's front end emits; since 1.3 also modern text
 * (opaque pointers) or LLVM bitcode, told apart by their bytes (see
 * cuplug_backend).  The modules of one compile are of one dialect, text
 * and bitcode aside. */
typedef struct cuplug_module {
  size_t struct_size;
  const char *name; /* for messages; NULL: "module<i>" */
  const char *text; /* need not be NUL-terminated */
  size_t size;      /* bytes of text */
} cuplug_module;
#define CUPLUG_MODULE_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_module, size)

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
   * as a handle.  Exactly one of the two; since 1.3 neither, for a kernel
   * the IR itself marks (`ptx_kernel`, entry ABI c) in modern IR: its
   * parameters are read from the IR (iN as intN, half/float/double as
   * float16/32/64, any ptr as CPointer(uint8)). */
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

  /* since 1.1 */
  const cuplug_code *const *link; /* more code: linked into a cubin, passed through by compile_all */
  size_t num_link;
  const char *const *include_paths; /* for .cu code: before the CUDA and CCCL headers */
  size_t num_include_paths;
  uint32_t no_lto;               /* 1: link PTX rather than LTO-IR (LTO is the default unless debug) */

  /* since 1.3 */
  uint32_t reserved1;            /* the padding of 1.2's struct: never read */
  uint32_t time_limit_ms;        /* each toolkit call's limit; 0: the session's */
  uint32_t cc_suffix;            /* 0, or 'a' (arch-specific, compute_90a: cc 9.0 and up)
                                    or 'f' (family, compute_100f: cc 10.0 and up), as the
                                    third item of numba-cuda's cc tuples */
  cuplug_backend backend;        /* 0: by the IR's dialect (see cuplug_backend) */
} cuplug_compile_args;
#define CUPLUG_COMPILE_ARGS_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_compile_args, backend)

/* libNVVM's -opt=0, which cannot be written as 0 (the default). */
#define CUPLUG_OPT_NONE (-1)

/* What a compile or a link produced.  Pointers are owned by the artifact. */
typedef struct cuplug_artifact_info {
  size_t struct_size;
  cuplug_output output;  /* out: PTX, LTOIR, CUBIN or HOST, never DEFAULT */
  const void *data;      /* out: PTX (NUL-terminated), LTO-IR or cubin bytes; NULL for
                            HOST, whose IR artifact_ir gives */
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
  /* since 1.1 */
  size_t num_parts;      /* out: pieces of code it holds (see artifact_part) */
  const char *link_log;  /* out: nvJitLink's log, "" when it said nothing */
  const cuplug_type *signature; /* out: the entry's signature, for launching */
  uint32_t use_cooperative; /* out: links libcudadevrt; launch cooperatively */
  /* since 1.3 */
  uint32_t reserved1;       /* the padding of 1.2's struct: never written */
  uint32_t cc_suffix;       /* out: 0, 'a' or 'f' (see cuplug_compile_args) */
  cuplug_cache_result cache; /* out: built, or found in the cache */
  cuplug_backend backend;    /* out: LIBNVVM or LLVM; DEFAULT for HOST output and links */
  size_t num_stages;         /* out: the compile's stages that ran (see artifact_stage) */
} cuplug_artifact_info;
#define CUPLUG_ARTIFACT_INFO_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_artifact_info, num_stages)

/* since 1.1: one piece of code an artifact holds.  compile() and link()
 * give one (the PTX, LTO-IR or cubin; a cubin may add the linked PTX);
 * compile_all() gives its own code, then each .cu compiled, then the other
 * code as it was given. */
typedef struct cuplug_part {
  size_t struct_size;
  cuplug_code_kind kind; /* out */
  const char *name;      /* out */
  const void *data;      /* out */
  size_t size;           /* out */
} cuplug_part;
#define CUPLUG_PART_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_part, size)

/* since 1.1: registries */
typedef struct cuplug_registry_options {
  size_t struct_size;
  uint32_t flags; /* CUPLUG_REGISTRY_* */
} cuplug_registry_options;
#define CUPLUG_REGISTRY_OPTIONS_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_registry_options, flags)

/* since 1.2: bits of cuplug_registry_options.flags */
#define CUPLUG_REGISTRY_NO_BUILTINS 0x1u /* an empty registry: no cuda.* and math.* */

/* since 1.1: numba-cuda's declare_device_function.  Calling `name` with the
 * signature's argument types gives its return type; the IR calls the
 * external symbol `name` under `abi`; a compile whose IR calls it links
 * `link`.  (Since 1.2 this is a key `name` with one concrete template and a
 * lowering that calls the symbol: resolve_call answers for it too.) */
typedef struct cuplug_declare_device_args {
  size_t struct_size;
  cuplug_registry *registry;
  const char *name; /* the external symbol */
  const char *signature; /* exactly one of the two */
  const cuplug_type *signature_type;
  /* options */
  cuplug_abi abi;   /* how it is called: 0: numba (int f(R *ret, args...)), or c */
  const cuplug_code *const *link; /* copied: files are read now */
  size_t num_link;
  uint32_t use_cooperative; /* it synchronises the grid: cudadevrt, cooperative launch */
  /* since 1.3 */
  /* Its implementation on the host (CUPLUG_OUTPUT_HOST): a C function of
   * the symbol's ABI (Numba: int f(R *ret, args...), returning 0; C:
   * R f(args...)), with the C types of cuplug_host_function_args' table,
   * which host libraries that call the symbol call.
   * NULL: the code cannot run on the host (CUPLUG_ERR_HOST_UNSUPPORTED at
   * load).  It must stay valid while such libraries are loaded. */
  void *host_function;
} cuplug_declare_device_args;
#define CUPLUG_DECLARE_DEVICE_ARGS_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_declare_device_args, host_function)

/* since 1.1: link code into a cubin with nvJitLink. */
typedef struct cuplug_link_args {
  size_t struct_size;
  cuplug_session *session;
  const cuplug_code *const *code; /* files or bytes of any cuplug_code_kind */
  size_t num_code;
  cuplug_artifact *artifact; /* out: the cubin (and the linked PTX with want_ptx) */
  /* options */
  const cuplug_artifact *const *artifacts; /* compiled code to link as well */
  size_t num_artifacts;
  uint32_t cc_major, cc_minor; /* 0: the artifacts' cc, else the session's default */
  uint32_t no_lto;             /* 1: no link-time optimisation */
  uint32_t max_registers;      /* 0: the artifacts', else none */
  uint32_t lineinfo;
  uint32_t debug;              /* -g; implies no_lto */
  uint32_t want_ptx;           /* also keep the linked PTX */
  uint32_t use_cooperative;    /* link libcudadevrt */
  const char *const *include_paths; /* for .cu code */
  size_t num_include_paths;
  /* since 1.3 */
  uint32_t time_limit_ms;      /* each toolkit call's limit; 0: the session's */
  uint32_t cc_suffix;          /* with cc_major: 0, 'a' or 'f' (see cuplug_compile_args);
                                  without: the artifacts' */
  uint32_t flags;              /* CUPLUG_LINK_* */
} cuplug_link_args;
#define CUPLUG_LINK_ARGS_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_link_args, flags)

/* since 1.3: bits of cuplug_link_args.flags */
#define CUPLUG_LINK_NO_CACHE 0x1u /* neither look up nor store in the cache */

/* since 1.3: the cache of a session (see cache_info). */
typedef struct cuplug_cache_info {
  size_t struct_size;
  cuplug_session *session;
  const char *dir;    /* out: the disk cache's folder, "" when there is none */
  const char *status; /* out: "ok"; "off" (no cache at all); "memory only" (no
                         folder given); else why the disk cache was set aside
                         (e.g. "the cache folder F is writable by others (mode
                         0777)", "... is owned by uid 1001, not you") */
  uint64_t max_bytes;    /* out: the disk cache's bound */
  uint64_t disk_entries; /* out: counted now, by every process */
  uint64_t disk_bytes;   /* out */
  uint64_t memory_entries, memory_bytes; /* out: the session's */
  uint64_t memory_hits, disk_hits, misses; /* out: the session's look-ups */
  uint64_t stores;       /* out: results the session stored */
  uint64_t rebuilt;      /* out: corrupt or truncated entries found, removed and rebuilt */
  /* The remote tier (cuplug_session_options.cache_remote): */
  const char *remote;        /* out: its URL, the password shown as ***; "" when there is none */
  const char *remote_status; /* out: "ok"; "off" (none); why it is not used ("no key: ...",
                                "the key file F is readable by others ...", "hiredis cannot be
                                loaded ..."); or "set aside after a failure: ..." while it is
                                skipped */
  uint64_t remote_hits, remote_misses; /* out: the session's look-ups there */
  uint64_t remote_stores;    /* out: results the session stored there */
  uint64_t remote_refused;   /* out: entries whose tag did not verify: not used, rebuilt */
  uint64_t remote_errors;    /* out: calls that failed (refused, dropped or timed-out
                                connections, error replies) */
} cuplug_cache_info;
#define CUPLUG_CACHE_INFO_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_cache_info, remote_errors)

/* since 1.3: one stage of the compile or link that made an artifact, and
 * the time it took: the stages of the target the compile chose, in the
 * order they ran, up to the one that failed or found the result in the
 * cache ("look_up"), then "finish_validation", the wait for checks that
 * ran on a thread of their own (a safe session runs them on the
 * compiling thread, inside run_nvvm).  The stage that calls libNVVM or the
 * NVPTX backend ("run_nvvm", "run_nvptx"; link()'s "run_nvjitlink") is
 * three: "hand_over" (the job made and handed to the helper process,
 * which reads it), the stage itself (the library's own time, measured
 * where it ran), and "hand_back" (the result sent back and taken in; in a
 * safe session also the part of the IR's validation that outlasted
 * libNVVM).  A link's stages are look_up, choose_cc, gather_code, the
 * three of run_nvjitlink (with the linked PTX, both of nvJitLink's links),
 * describe and keep.
 * Names are cuplug's own and may change between releases; they are for
 * people and benchmarks.  A result found in the cache has the stages up
 * to finding it. */
typedef struct cuplug_artifact_stage_args {
  size_t struct_size;
  const cuplug_artifact *artifact;
  size_t index;               /* below artifact_info's num_stages */
  const char *name;           /* out: owned by the artifact */
  uint64_t nanoseconds;       /* out: wall-clock time of the stage, this thread's */
} cuplug_artifact_stage_args;
#define CUPLUG_ARTIFACT_STAGE_ARGS_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_artifact_stage_args, nanoseconds)

/* since 1.3: cache_clear's arguments. */
typedef struct cuplug_cache_clear_args {
  size_t struct_size;
  cuplug_session *session;
} cuplug_cache_clear_args;
#define CUPLUG_CACHE_CLEAR_ARGS_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_cache_clear_args, session)

/* since 1.1: code loaded on its target: a cubin with the driver
 * (cuLibraryLoadData), or since 1.3 a CUPLUG_OUTPUT_HOST artifact with the
 * CPU JIT. */
typedef struct cuplug_load_args {
  size_t struct_size;
  cuplug_session *session;
  const cuplug_artifact *artifact; /* a cubin (or PTX) or HOST artifact, or: */
  const void *image;               /* a cubin (or fatbin, or PTX text) */
  size_t size;
  cuplug_library *library;         /* out: release with library_unload */
} cuplug_load_args;
#define CUPLUG_LOAD_ARGS_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_load_args, library)

/* since 1.1: a kernel of a loaded library. */
typedef struct cuplug_kernel_args {
  size_t struct_size;
  cuplug_library *library;
  const char *name;      /* NULL: the artifact's kernel, when it holds one only */
  /* The kernel's signature, for packing arguments: NULL for the one the
   * artifact recorded for that name.  Exactly one of the two when the
   * library came from bare bytes, or the artifact knows no such kernel. */
  const char *signature;
  const cuplug_type *signature_type;
  uint32_t debug;        /* bare bytes: the kernel has the exception store */
  cuplug_kernel *kernel; /* out: owned by the library */
} cuplug_kernel_args;
#define CUPLUG_KERNEL_ARGS_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_kernel_args, kernel)

/* since 1.3: what a kernel is, for a host that packs its own arguments or
 * shows them (the signature kernel_get settled on). */
typedef struct cuplug_kernel_info {
  size_t struct_size;
  const cuplug_kernel *kernel;
  const char *name;             /* out: lives as long as the kernel */
  const cuplug_type *signature; /* out */
  uint32_t debug;               /* out: it has the exception store */
  uint32_t cooperative;         /* out: it is launched cooperatively */
} cuplug_kernel_info;
#define CUPLUG_KERNEL_INFO_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_kernel_info, cooperative)

/* since 1.1: an array argument, as numba-cuda passes one: a device pointer
 * with its shape and strides (in bytes).  Fixed in size; since 1.3 launch
 * and host_call also take the growable cuplug_ndarray. */
typedef struct cuplug_array {
  uint64_t data;       /* the address of element [0, ..., 0]: on the device, or in this
                          process for a host library */
  cuplug_type_kind dtype;
  uint32_t ndim;
  int64_t shape[8];
  int64_t strides[8];
} cuplug_array;

/* since 1.1: one kernel argument: its kind and where its value is.
 * Scalars point at the C value (int32_t, float, uint8_t for bool,
 * uint16_t bits for float16, two floats for complex64); CPointer points at
 * a uint64_t address (the device's, or this process's for a host
 * library); an array at a cuplug_array; since 1.3 a tuple (host_call
 * only) at its value in memory, its C struct (cuplug_host_function_args).
 * Fixed in size;
 * since 1.3 launch and host_call also take the growable cuplug_argument. */
typedef struct cuplug_value {
  cuplug_type_kind kind;
  const void *data;
} cuplug_value;

/* since 1.3: an array argument in a form that can grow: cuplug_array has
 * no struct_size, room for 8 dimensions only and none for flags (a host
 * with read-only memory passes it as a cuplug_ndarray). */
typedef struct cuplug_ndarray {
  size_t struct_size;
  uint64_t data;          /* the address of element [0, ..., 0]: on the device, or in this
                             process for a host library */
  cuplug_type_kind dtype;
  uint32_t ndim;
  const int64_t *shape;   /* ndim extents */
  const int64_t *strides; /* ndim strides, in bytes */
  uint32_t flags;         /* CUPLUG_ARRAY_*; other bits are refused */
} cuplug_ndarray;
#define CUPLUG_NDARRAY_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_ndarray, flags)

/* since 1.3: bits of cuplug_ndarray.flags.
 * CUPLUG_ARRAY_READONLY: the memory must not be written (a bytes object,
 * an ndarray with writeable=False, a __cuda_array_interface__ whose data
 * is (ptr, True)).  launch refuses it (CUPLUG_ERR_LAUNCH_ARGS) for a
 * parameter the signature does not declare "readonly array(T, Nd, L)".  A
 * kernel that declares it is trusted not to store there: nothing checks
 * its stores. */
#define CUPLUG_ARRAY_READONLY 0x1u

/* since 1.3: one argument of launch or host_call in a form that can grow:
 * data as cuplug_value's, but an array is a cuplug_ndarray. */
typedef struct cuplug_argument {
  size_t struct_size;
  cuplug_type_kind kind;
  const void *data;
} cuplug_argument;
#define CUPLUG_ARGUMENT_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_argument, data)

/* since 1.1: a kernel launch. */
typedef struct cuplug_launch_args {
  size_t struct_size;
  cuplug_kernel *kernel;
  uint32_t grid[3];  /* 0 counts as 1 */
  uint32_t block[3]; /* 0 counts as 1 */
  const cuplug_value *args; /* one per argument of the kernel's signature */
  size_t num_args;
  /* options */
  uint32_t shared_mem; /* dynamic shared memory, bytes */
  void *stream;        /* a CUstream; NULL: the default stream */
  uint32_t cooperative; /* 1: cuLaunchCooperativeKernel (also when the kernel needs it) */
  /* since 1.3 */
  uint32_t reserved1;    /* the padding of 1.2's struct: never read */
  uint32_t host_threads; /* a host library's kernel: host threads to run blocks on;
                            0: one per core */
  /* The arguments in their growable form, instead of args: exactly one of
   * the two when the kernel takes arguments; num_args counts either. */
  const cuplug_argument *const *arguments;
  /* A host library's kernel: a flag the host sets (not zero) to stop the
   * launch, from its SIGINT handler (a volatile sig_atomic_t) or another
   * thread (an atomic store).  Within a few milliseconds each thread of
   * the grid leaves the kernel at its next loop iteration or recursive
   * call, the blocks under way are abandoned (no barrier waits on them),
   * no other block starts, and launch returns CUPLUG_ERR_INTERRUPTED; a
   * flag set before the launch starts none.  Memory the kernel wrote is
   * left as it was; the library and the session stay usable.  The plugin
   * installs no signal handler: that is the host's to do.  NULL: the launch
   * runs to its end.  A GPU launch does not read it. */
  const volatile int32_t *interrupt;
} cuplug_launch_args;
#define CUPLUG_LAUNCH_ARGS_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_launch_args, interrupt)

/* since 1.3: a C-ABI device function of a host library as a native
 * function pointer, to call with its C signature.
 *
 * The C types.  A host library's C-ABI function, and a declared
 * function's host_function, is a C function: each type of its signature
 * is the C type of its value in memory (numba's data model), passed and
 * returned by value as the platform's C ABI (x86-64 System V) passes that
 * C type:
 *   bool                      _Bool (one byte, 0 or 1)
 *   int8 .. int64, uint8 .. uint64   int8_t .. int64_t, uint8_t .. uint64_t
 *   float16                   uint16_t: its binary16 bits (as CUDA's __half on the host)
 *   float32, float64          float, double
 *   complex64, complex128     float _Complex, double _Complex
 *   CPointer(T)               T *
 *   Tuple(A, B, ...)          struct { A a; B b; ... } (UniTuple(T x N): struct { T v[N]; })
 *   an array of N dimensions  numba's array struct: struct { void *meminfo, *parent;
 *                             int64_t nitems, itemsize; T *data; int64_t shape[N],
 *                             strides[N]; } (meminfo and parent NULL)
 *   Literal[int]              int64_t; class(T) takes no parameter
 * so `complex64(complex64, complex64)` is
 * `float _Complex f(float _Complex, float _Complex)`.  Under the Numba ABI
 * the function is `int f(R *ret, args...)`, returning 0. */
typedef struct cuplug_host_function_args {
  size_t struct_size;
  cuplug_library *library; /* loaded from a CUPLUG_OUTPUT_HOST artifact */
  const char *name;        /* NULL: the artifact's symbol */
  void *address;           /* out: valid until library_unload */
  const cuplug_type *signature; /* out: the artifact's, when name is its symbol; else NULL */
} cuplug_host_function_args;
#define CUPLUG_HOST_FUNCTION_ARGS_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_host_function_args, signature)

/* since 1.3: a call of a host library's C-ABI function by its signature
 * (libffi): for hosts that cannot call a function pointer themselves. */
typedef struct cuplug_host_call_args {
  size_t struct_size;
  cuplug_library *library;
  const char *name; /* NULL: the artifact's symbol */
  /* its signature: at most one of the two; NULL for the artifact's */
  const char *signature;
  const cuplug_type *signature_type;
  const cuplug_value *args; /* one per argument, as launch takes them, and tuples */
  size_t num_args;
  /* out: the result's C value (uint8_t for bool, two floats or doubles
   * for a complex; since 1.3 a tuple's or an array's struct, as
   * cuplug_host_function_args lays it out); result_size bytes of room, at
   * least the type's size */
  void *result;
  size_t result_size;
  /* The arguments in their growable form, instead of args: exactly one of
   * the two when the function takes arguments; num_args counts either. */
  const cuplug_argument *const *arguments;
  /* A flag the host sets to stop the call, as cuplug_launch_args'
   * interrupt: the function leaves at its next loop iteration or recursive
   * call and host_call returns CUPLUG_ERR_INTERRUPTED (the result is not
   * written).  A function called through host_function's pointer cannot be
   * stopped: only host_call watches a flag. */
  const volatile int32_t *interrupt;
} cuplug_host_call_args;
#define CUPLUG_HOST_CALL_ARGS_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_host_call_args, interrupt)

/* ------------------------------------------------------------------------ */
/* since 1.2: typing templates and lowering implementations                  */
/*                                                                           */
/* A host front end meets a call f(a, b) in its source.  It asks             */
/* resolve_call how the key "f" types with the argument types of a and b,   */
/* gets a signature, a symbol and an ABI back, converts its arguments to the */
/* signature's argument types and emits a call to the symbol (declared in    */
/* its IR with the signature under the ABI).  A compile whose IR calls the   */
/* symbol adds the implementation: NVVM IR goes to libNVVM with the host's   */
/* modules (and is inlined), CUDA C++ is compiled by NVRTC and linked.       */
/* ------------------------------------------------------------------------ */

/* What a host callback returns. */
typedef enum cuplug_callback_status {
  CUPLUG_CALLBACK_OK = 0,
  CUPLUG_CALLBACK_NO_MATCH = 1, /* typing: the template does not take these types */
  CUPLUG_CALLBACK_FAILED = 2    /* the callback failed; its message says why */
} cuplug_callback_status;

/* A generic typing template.  Given the argument types of a call, it
 * returns CUPLUG_CALLBACK_OK with *signature set to a signature with as
 * many arguments (the types the arguments are converted to, and the return
 * type), or NO_MATCH.  On FAILED it may write a NUL-terminated reason into
 * message (message_size bytes).  It may run on many threads at once and
 * must not register into the registry that calls it. */
typedef cuplug_callback_status (*cuplug_typer_fn)(void *user_data, const char *key,
                                                  const cuplug_type *const *argtypes,
                                                  size_t nargs,
                                                  const cuplug_type **signature,
                                                  char *message, size_t message_size);

/* A lowering callback: NVVM IR text (the NVVM dialect, as compile() takes)
 * that defines `symbol` with `signature` under `abi`.  It sets *ir and
 * *ir_size; cuplug copies the text as soon as the callback returns, so a
 * static string, or a buffer the host keeps until its next call on the same
 * thread, will do.  It is called once per symbol, the first time a compile
 * needs it; on many threads at once for different symbols. */
typedef cuplug_callback_status (*cuplug_lowerer_fn)(void *user_data, const char *key,
                                                    const cuplug_type *signature,
                                                    const char *symbol, cuplug_abi abi,
                                                    const char **ir, size_t *ir_size,
                                                    char *message, size_t message_size);

/* A typing template for a key: one concrete signature, or a generic typer.
 * A key may have many templates; resolve_call consults them all. */
typedef struct cuplug_template_args {
  size_t struct_size;
  cuplug_registry *registry;
  const char *key; /* "math.sin", "mylib.clamp": any text without spaces */
  /* exactly one of the three */
  const char *signature;             /* concrete: "float32(float32)" */
  const cuplug_type *signature_type; /* concrete, as a handle */
  cuplug_typer_fn typer;             /* generic */
  /* options */
  void *user_data;         /* handed to typer */
  const char *description; /* generic: what it takes, for list ("T(T, T) for T in ...") */
} cuplug_template_args;
#define CUPLUG_TEMPLATE_ARGS_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_template_args, description)

typedef enum cuplug_lowering_kind {
  CUPLUG_LOWER_IR = 1,      /* NVVM IR text that defines the symbol */
  CUPLUG_LOWER_CUDA = 2,    /* CUDA C++ that defines it (extern "C" __device__) */
  CUPLUG_LOWER_CALLBACK = 3 /* a cuplug_lowerer_fn that returns NVVM IR */
} cuplug_lowering_kind;

/* How a key is lowered for one signature (or for all it types to). */
typedef struct cuplug_lowering_args {
  size_t struct_size;
  cuplug_registry *registry;
  const char *key;
  /* The signature it implements: one of the two, or neither for a
   * callback that lowers every signature the key's templates give. */
  const char *signature;
  const cuplug_type *signature_type;
  cuplug_lowering_kind kind;
  /* The symbol the code defines.  Required for IR and CUDA; for a callback,
   * NULL lets cuplug name one per signature ("__cuplug_<key>_<hash>"). */
  const char *symbol;
  const char *source;   /* IR or CUDA: the text, copied (IR is parsed now) */
  size_t source_size;   /* 0: strlen(source) */
  cuplug_lowerer_fn lowerer; /* CALLBACK */
  void *user_data;           /* handed to lowerer */
  /* options */
  cuplug_abi abi; /* how the symbol is called.  0: c (R f(args...)) */
} cuplug_lowering_args;
#define CUPLUG_LOWERING_ARGS_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_lowering_args, abi)

/* How a call types, and what to call. */
/* since 1.3: how an argument converts to the type a call takes, numba's
 * ranking, best first. */
typedef enum cuplug_conversion {
  CUPLUG_CONV_EXACT = 0,
  CUPLUG_CONV_PROMOTE = 1, /* a wider type of its kind: int32 to int64, float32 to float64 */
  CUPLUG_CONV_SAFE = 2,    /* no value lost: int32 to float64, uint8 to int16 */
  CUPLUG_CONV_UNSAFE = 3   /* a value may change: float64 to float32, int64 to int32 */
} cuplug_conversion;

typedef struct cuplug_resolve_args {
  size_t struct_size;
  cuplug_registry *registry;
  const char *key;
  const cuplug_type *const *argtypes; /* may be NULL when nargs is 0 */
  size_t nargs;
  const cuplug_type *signature; /* out: convert the arguments to its types */
  const char *symbol;           /* out: lives as long as the registry */
  cuplug_abi abi;               /* out: C or NUMBA */
  /* out: the IR's declaration of the symbol under the ABI, ready to paste,
   * as "declare float @__cuplug_math_sin_a151b990d066dd28(float)". */
  const char *declaration;
  /* since 1.3 */
  uint32_t flags;                /* CUPLUG_RESOLVE_* */
  cuplug_conversion conversion;  /* out: the worst conversion an argument needs */
  /* optional: nargs entries, each set to its argument's conversion */
  cuplug_conversion *arg_conversions;
} cuplug_resolve_args;
#define CUPLUG_RESOLVE_ARGS_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_resolve_args, arg_conversions)

/* since 1.3: bits of cuplug_resolve_args.flags */
#define CUPLUG_RESOLVE_STRICT 0x1u /* refuse ties and unsafe conversions (see resolve_call) */

/* One entry of registry_list.  Strings live as long as the registry. */
typedef struct cuplug_listing {
  size_t struct_size;
  const char *key;
  const cuplug_type *signature; /* a concrete template's; NULL for a generic one */
  const char *description;      /* a generic template's, else "" */
  const char *symbol;           /* a concrete signature's implementation, or "" */
  uint32_t builtin;             /* 1: part of cuplug's CUDA library */
  /* since 1.3: what a built-in offers beyond numba-cuda 0.30 ("" when
   * nothing), such as cuda.atomic.exch on float arrays */
  const char *extension;
} cuplug_listing;
#define CUPLUG_LISTING_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_listing, extension)

/* Called for each template by registry_list; a non-zero return stops the walk. */
typedef int (*cuplug_list_fn)(void *user_data, const cuplug_listing *entry);

/* numba-cuda's cuda.const.array_like: bytes that become an array in
 * constant memory.  The result is a function with no arguments that returns
 * the array (C layout), under the C ABI. */
typedef struct cuplug_const_array_args {
  size_t struct_size;
  cuplug_registry *registry;
  const cuplug_type *dtype; /* bool, an integer, a float or a complex */
  uint32_t ndim;            /* 1..8 */
  const int64_t *shape;     /* ndim extents */
  const void *data;         /* the elements, C order; copied */
  size_t size;              /* bytes: the product of shape times the dtype's size */
  const cuplug_type *signature; /* out: "float32[:, ::1]()" */
  const char *symbol;           /* out */
  cuplug_abi abi;               /* out: C */
  const char *declaration;      /* out: as resolve_call's */
} cuplug_const_array_args;
#define CUPLUG_CONST_ARRAY_ARGS_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_const_array_args, declaration)

/* One NVVM IR module as it went to libNVVM. */
typedef struct cuplug_ir_view {
  size_t struct_size;
  const char *name; /* out: the input's name ("module<N>" when it had none),
                       a lowering's symbol, or "cuplug.builtins" */
  const char *text; /* out: NUL-terminated */
  size_t size;      /* out */
} cuplug_ir_view;
#define CUPLUG_IR_VIEW_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_ir_view, size)

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
   * Validates the IR against the signature (LLVM parses and verifies it,
   * while libNVVM already works on it in the helper process, and IR the
   * verifier rejects stops libNVVM), wraps it (C-ABI wrapper,
   * or the entry itself made the C-ABI function where nothing else calls
   * it; or kernel fix-up with annotations and the debug exception store),
   * legalises it for libNVVM, and compiles it to PTX or LTO-IR, or links
   * that into a cubin (CUPLUG_OUTPUT_CUBIN); for CUPLUG_OUTPUT_HOST it keeps
   * the legalised IR for the CPU JIT instead.  On success args->artifact
   * holds the result.  Thread-safe (see sessions).
   * Before anything runs, in every session (a trusted one too), the
   * entry's definition and the IR's declaration of each declared function
   * are compared with their signatures, type by type: each parameter (under
   * the Numba ABI the return slot first, then the arguments flattened:
   * arrays into their seven members, complex numbers into two parts,
   * tuples into their elements) and the return type, what typed pointers
   * point at included (CUPLUG_ERR_ENTRY_MISMATCH,
   * CUPLUG_ERR_DECLARATION_MISMATCH).  Where the IR writes opaque pointers
   * (`ptr`), only the count of parameters, the scalar types and that a
   * pointer is a pointer (and its address space) can be checked: not the
   * return slot's type, an array's dtype or what a CPointer points at. */
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

  /* ---- since 1.1: registries ----
   * A registry is reference-counted: sessions hold a reference, and
   * registry_destroy gives the caller's back.  Registering and compiling
   * with the registry may run on many threads at once. */
  cuplug_error *(*registry_create)(const cuplug_registry_options *options,
                                   cuplug_registry **out);
  void (*registry_destroy)(cuplug_registry *registry);
  /* The registry a session's compiles consult (borrowed: the session's). */
  cuplug_registry *(*session_registry)(cuplug_session *session);
  /* numba-cuda's declare_device_function.  CUPLUG_ERR_DUPLICATE when the
   * name is taken; errors of reading and telling the kind of each code. */
  cuplug_error *(*declare_device)(cuplug_declare_device_args *args);

  /* ---- since 1.1: external code ---- */

  /* numba-cuda's compile_all: the compile's own code (output 0: LTO-IR),
   * then the code it links (declared functions it calls, args->link), each
   * .cu compiled by NVRTC and the rest as given, as the artifact's parts. */
  cuplug_error *(*compile_all)(cuplug_compile_args *args);
  /* Links with nvJitLink into a cubin: LTO unless no_lto or debug.  The
   * linker's log is in the artifact (link_log), or in the error.  The cubin
   * artifact keeps every kernel of the artifacts linked (name, signature,
   * exception store) for load and kernel_get; its symbol and signature are
   * its kernel's when it holds exactly one.  CUPLUG_ERR_LINK when a symbol
   * stays undefined (the message names it) and when the cubin would hold
   * no kernel (nvJitLink keeps only kernels and what they call: device code
   * alone links to nothing). */
  cuplug_error *(*link)(cuplug_link_args *args);
  /* The i-th piece of code of an artifact. */
  cuplug_error *(*artifact_part)(const cuplug_artifact *artifact, size_t index,
                                 cuplug_part *part);

  /* ---- since 1.1: the GPU ----
   * These use the current CUDA context of the calling thread; where there
   * is none, the primary context of device 0, which the session then holds.
   * Without a driver or a device they fail with CUPLUG_ERR_NO_DEVICE.
   * Thread-safe; a kernel may be launched from many threads at once. */
  cuplug_error *(*load)(cuplug_load_args *args);
  void (*library_unload)(cuplug_library *library);
  cuplug_error *(*kernel_get)(cuplug_kernel_args *args);
  /* Packs the arguments from the kernel's signature (arrays become numba's
   * meminfo, parent, nitems, itemsize, data, shape, strides) and launches.
   * A debug kernel's exception store is cleared before and read after (the
   * launch then waits for the kernel): an exception becomes
   * CUPLUG_ERR_KERNEL_EXCEPTION naming its code, thread and block. */
  cuplug_error *(*launch)(cuplug_launch_args *args);
  /* Device memory, for hosts that bring none of their own. */
  cuplug_error *(*mem_alloc)(cuplug_session *session, size_t bytes, uint64_t *device_ptr);
  cuplug_error *(*mem_free)(cuplug_session *session, uint64_t device_ptr);
  cuplug_error *(*memcpy_to_device)(cuplug_session *session, uint64_t dst, const void *src,
                                    size_t bytes);
  cuplug_error *(*memcpy_to_host)(cuplug_session *session, void *dst, uint64_t src,
                                  size_t bytes);
  /* Waits for all work of the session's context. */
  cuplug_error *(*synchronize)(cuplug_session *session);
  /* After CUPLUG_ERR_KERNEL_FAULT: resets the device's primary context and
   * takes a fresh one.  Device memory of the old context is gone;
   * libraries stay loaded.  CUDA's rule for faults is that the process
   * must be relaunched, and drivers that keep to it (580 does) refuse the
   * fresh context: then CUPLUG_ERR_KERNEL_FAULT says so, and everything
   * but the GPU (compiling, linking) goes on. */
  cuplug_error *(*device_reset)(cuplug_session *session);

  /* ---- since 1.2: more types (see CUPLUG_TYPE_TUPLE...) ---- */

  /* Tuple(elements...): UniTuple when all are the same.  n may be 0. */
  cuplug_error *(*type_tuple)(const cuplug_type *const *elements, size_t n,
                              const cuplug_type **out);
  cuplug_error *(*type_int_literal)(int64_t value, const cuplug_type **out);
  /* class(dtype), the type of a dtype given as an argument */
  cuplug_error *(*type_number_class)(const cuplug_type *dtype, const cuplug_type **out);

  /* ---- since 1.2: typing templates and lowerings ----
   * Every registry but a CUPLUG_REGISTRY_NO_BUILTINS one starts with
   * cuplug's CUDA library (cuda.*, math.*; see README).  Registering and
   * resolving may run on many threads at once. */

  /* CUPLUG_ERR_DUPLICATE when the key already has this concrete signature. */
  cuplug_error *(*register_template)(cuplug_template_args *args);
  /* CUPLUG_ERR_DUPLICATE when the key already has a lowering for the
   * signature, or the symbol is taken; CUPLUG_ERR_LOWERING when IR does not
   * parse or does not define the symbol. */
  cuplug_error *(*register_lowering)(cuplug_lowering_args *args);
  /* Types a call as numba-cuda's typing does: among the key's signatures
   * with as many arguments (a generic template's answer among them), the
   * one needing the fewest unsafe conversions (float64 to float32, int64 to
   * int32, int32 to uint32), then the fewest safe ones (int32 to float64,
   * uint8 to int16), then the fewest promotions (int32 to int64, float32 to
   * float64); of equally good ones, the first declared (math.sin(bool) is
   * float64(int64)).  `conversion` and `arg_conversions` say what the
   * choice needs, so that a front end can warn of an unsafe one.  With
   * CUPLUG_RESOLVE_STRICT (cuplug 1.2's rule) an unsafe conversion never
   * matches a concrete signature, equally good signatures are told apart by
   * the nearer conversions (float16 to float32 over float64, uint8 to int64
   * over float32), and a tie is CUPLUG_ERR_AMBIGUOUS.  An integer literal
   * converts to any integer type that holds its value, and to a float that
   * holds it exactly.  The symbol
   * is the registry's, or the built-ins' (shared by the process); a
   * compile with a registry that did not resolve it fails with
   * CUPLUG_ERR_NO_LOWERING.  Errors: CUPLUG_ERR_UNKNOWN_KEY,
   * CUPLUG_ERR_NO_MATCH and CUPLUG_ERR_AMBIGUOUS (listing the candidates),
   * CUPLUG_ERR_NO_LOWERING, CUPLUG_ERR_CALLBACK.  cuda.shared.array gives a
   * new array, and symbol, at each call: resolve it once per call site. */
  cuplug_error *(*resolve_call)(cuplug_resolve_args *args);
  /* Calls visit for every template whose key starts with prefix (NULL or
   * "": all), in key order; built-ins included.  visit runs under the
   * registry's read lock: it may resolve, not register. */
  cuplug_error *(*registry_list)(cuplug_registry *registry, const char *prefix,
                                 cuplug_list_fn visit, void *user_data);
  /* numba-cuda's cuda.const.array_like: see cuplug_const_array_args.  Each
   * call makes a new symbol. */
  cuplug_error *(*const_array)(cuplug_const_array_args *args);

  /* ---- since 1.3 ---- */

  /* What a kernel is: its name, its signature, how it is launched.
   * Thread-safe. */
  cuplug_error *(*kernel_info)(cuplug_kernel_info *args);

  /* The cache of compile and link results.  A result is found again when
   * everything that could change it is the same: the IR, the signature and
   * every option, the cc, cuplug's build, the toolkit's libraries, the
   * registered functions the IR calls (their IR, or their code and the
   * headers a .cu includes), and the code it links.  compile, compile_all
   * and link consult it unless the call or the session asks otherwise;
   * artifact_info says where a result came from.  Thread-safe; processes
   * may share the folder. */
  cuplug_error *(*cache_info)(cuplug_cache_info *args);
  /* Empties the session's memory cache and its disk cache folder. */
  cuplug_error *(*cache_clear)(cuplug_cache_clear_args *args);

  /* ---- since 1.3: device code on the CPU ----
   * Compile with output CUPLUG_OUTPUT_HOST, then load() the artifact: the
   * first such load of a process opens libcuplug-host.so (beside the
   * plugin, or $CUPLUG_HOST_LIBRARY; CUPLUG_ERR_HOST_NOT_FOUND without it),
   * the first of a session makes its JIT.  LLVM 22 compiles the IR for
   * this CPU (ORC LLJIT, O2); a construct the host cannot run is
   * CUPLUG_ERR_HOST_UNSUPPORTED, naming it and its line.  kernel_get and
   * launch work on a host library as on a GPU one, with the same argument
   * packing (array data are host addresses): the blocks run in parallel on
   * host threads, each block's threads one at a time, as fibers switching
   * at barriers and warp collectives where the code has them; launch
   * returns when the grid is done, or when the host sets the launch's
   * interrupt flag (CUPLUG_ERR_INTERRUPTED).  A barrier not every thread of a block
   * reaches is CUPLUG_ERR_HOST_BARRIER; a debug kernel's exception is
   * CUPLUG_ERR_KERNEL_EXCEPTION, worded as on the GPU.  Thread-safe:
   * loads, calls and launches may run on many threads at once. */

  /* The address of a C-ABI function (or any symbol) of a host library.
   * The artifact's function takes and returns the C types of
   * cuplug_host_function_args; another symbol is as its IR defines it.
   * CUPLUG_ERR_INVALID_ARGUMENT for a GPU library; CUPLUG_ERR_ENTRY_NOT_FOUND
   * when the library has no such symbol. */
  cuplug_error *(*host_function)(cuplug_host_function_args *args);
  /* Calls a host library's C-ABI function with its signature's C types
   * (cuplug_host_function_args), through libffi.  Arguments: scalars,
   * CPointer, arrays and tuples of them (CUPLUG_ERR_LAUNCH_ARGS for a
   * wrong count or kind, naming the argument).  A flag the host sets stops
   * the call (cuplug_host_call_args.interrupt).  The artifact's device
   * function exported under the Numba ABI (abi numba) is called as one,
   * `int32 f(R *ret, args...)`: its result is the slot's value, and a
   * status numba reports as an exception is CUPLUG_ERR_KERNEL_EXCEPTION. */
  cuplug_error *(*host_call)(cuplug_host_call_args *args);
  /* The time each stage of a compile took (see cuplug_artifact_stage_args). */
  cuplug_error *(*artifact_stage)(cuplug_artifact_stage_args *args);
} cuplug_api;
#define CUPLUG_API_STRUCT_SIZE CUPLUG_STRUCT_SIZE(cuplug_api, artifact_stage)

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
