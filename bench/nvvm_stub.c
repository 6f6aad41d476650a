/* nvvm_stub.c - a libNVVM that does nothing and says it succeeded: loaded
 * in libNVVM's place (own_cost.sh lays it out as a toolkit under the
 * build), it leaves a compile's time to cuplug alone.  Its "result" is 16
 * bytes that begin an ELF file, which is all cuplug looks at before it
 * hands LTO-IR on. */
#include <stdlib.h>
#include <string.h>

typedef struct stub_program {
  size_t bytes;
} *nvvmProgram;

static const char result[16] = {0x7f, 'E', 'L', 'F', 's', 't', 'u', 'b',
                                'n', 'o', '-', 'c', 'o', 'd', 'e', 0};

/* The versions are CUDA 13.0's libNVVM's (2.0, IR 2.0, debug 3.2), so that
 * cuplug takes the same paths as with the real one. */
int nvvmVersion(int *major, int *minor) {
  *major = 2;
  *minor = 0;
  return 0;
}

int nvvmIRVersion(int *major_ir, int *minor_ir, int *major_dbg, int *minor_dbg) {
  *major_ir = 2;
  *minor_ir = 0;
  *major_dbg = 3;
  *minor_dbg = 2;
  return 0;
}

int nvvmCreateProgram(nvvmProgram *p) {
  *p = calloc(1, sizeof **p);
  return *p ? 0 : 1;
}

int nvvmDestroyProgram(nvvmProgram *p) {
  free(*p);
  *p = NULL;
  return 0;
}

int nvvmAddModuleToProgram(nvvmProgram p, const char *bytes, size_t size, const char *name) {
  (void)bytes;
  (void)name;
  p->bytes += size;
  return 0;
}

int nvvmLazyAddModuleToProgram(nvvmProgram p, const char *bytes, size_t size, const char *name) {
  return nvvmAddModuleToProgram(p, bytes, size, name);
}

int nvvmCompileProgram(nvvmProgram p, int num_options, const char **options) {
  (void)p;
  (void)num_options;
  (void)options;
  return 0;
}

int nvvmGetCompiledResultSize(nvvmProgram p, size_t *size) {
  (void)p;
  *size = sizeof result;
  return 0;
}

int nvvmGetCompiledResult(nvvmProgram p, char *out) {
  (void)p;
  memcpy(out, result, sizeof result);
  return 0;
}

int nvvmGetProgramLogSize(nvvmProgram p, size_t *size) {
  (void)p;
  *size = 1;
  return 0;
}

int nvvmGetProgramLog(nvvmProgram p, char *log) {
  (void)p;
  log[0] = '\0';
  return 0;
}

const char *nvvmGetErrorString(int result_code) { return result_code ? "stub error" : "success"; }
