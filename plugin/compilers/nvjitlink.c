/* nvjitlink.c - linking device code into a cubin with nvJitLink. */
#include "plugin/compilers/nvjitlink.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "plugin/helper/run.h"

static uint32_t input_kind(cuplug_code_kind k) {
  switch (k) {
    case CUPLUG_CODE_PTX: return CUPLUG__NVJL_PTX;
    case CUPLUG_CODE_LTOIR: return CUPLUG__NVJL_LTOIR;
    case CUPLUG_CODE_CUBIN: return CUPLUG__NVJL_CUBIN;
    case CUPLUG_CODE_FATBIN: return CUPLUG__NVJL_FATBIN;
    case CUPLUG_CODE_OBJECT: return CUPLUG__NVJL_OBJECT;
    case CUPLUG_CODE_ARCHIVE: return CUPLUG__NVJL_LIBRARY;
    default: return 0;
  }
}

/* One link: the cubin, or (ptx) the linked PTX. */
static cuplug_error *link_once(cuplug__runner *r, const cuplug__tool_input *inputs, size_t n,
                               const cuplug__link_options *o, bool ptx, cuplug__code *out,
                               char **log, cuplug__tool_times *times) {
  char arch[32], regs[48];
  const char *opts[8];
  size_t k = 0;
  snprintf(arch, sizeof arch, "-arch=sm_%u%u%s", o->cc_major, o->cc_minor, o->cc_suffix);
  opts[k++] = arch;
  if (o->lto) opts[k++] = "-lto";
  if (ptx) opts[k++] = "-ptx";
  if (o->max_registers) {
    snprintf(regs, sizeof regs, "-maxrregcount=%u", o->max_registers);
    opts[k++] = regs;
  }
  if (o->lineinfo) opts[k++] = "-lineinfo";
  if (o->debug) opts[k++] = "-g";
  cuplug__tool_job job = {.tool = CUPLUG__TOOL_NVJITLINK, .options = opts, .num_options = k,
                          .inputs = inputs, .num_inputs = n, .ptx = ptx};
  cuplug__tool_output result;
  CUPLUG__TRY(cuplug__run(r, &job, o->time_limit_ms, &result));
  if (times) *times = result.times;
  out->kind = ptx ? CUPLUG_CODE_PTX : CUPLUG_CODE_CUBIN;
  out->data = result.data;
  out->size = result.size;
  out->name = cuplug__strdup(ptx ? "linked.ptx" : "linked.cubin");
  if (log)
    *log = result.log;
  else
    free(result.log);
  if (!out->name) {
    cuplug__code_free(out);
    return cuplug__error_oom();
  }
  return NULL;
}

/* ---- what a failed link left undefined ---- */

/* The forms nvJitLink's log names an undefined symbol in: ptxas's, after
 * link-time optimisation, and the linker's, without it. */
static const char *const undefined_forms[] = {"Unresolved extern function '",
                                              "Undefined reference to '"};

/* Appends each name the log gives as undefined, once, quoted and
 * comma-separated, the first eight of them; returns how many it found. */
static size_t undefined_names(const char *log, cuplug__buf *names) {
  size_t count = 0;
  for (size_t f = 0; f < sizeof undefined_forms / sizeof undefined_forms[0] && count < 8; f++) {
    size_t len = strlen(undefined_forms[f]);
    for (const char *at = strstr(log, undefined_forms[f]); at;
         at = strstr(at, undefined_forms[f])) {
      at += len;
      size_t n = strcspn(at, "'\n");
      if (at[n] != '\'' || !n) continue;
      char quoted[1024];
      snprintf(quoted, sizeof quoted, "'%.*s'", (int)n, at);
      if (names->data && strstr(names->data, quoted)) continue;
      cuplug__buf_printf(names, "%s%s", count ? ", " : "", count == 8 ? "..." : quoted);
      if (++count > 8) break;
    }
  }
  return count;
}

/* nvJitLink's first line says where it failed ("JIT the PTX"), not what:
 * when its log names undefined symbols, the message names them. */
static cuplug_error *name_undefined(cuplug_error *e) {
  if (!e || e->code != CUPLUG_ERR_LINK || !e->log) return e;
  cuplug__buf names;
  cuplug__buf_init(&names);
  size_t count = undefined_names(e->log, &names);
  if (count && names.data) {
    cuplug_error *named = cuplug__error_log(
        CUPLUG_ERR_LINK, e->log, "nvJitLink failed to link: unresolved symbol%s %s: none of the "
        "code linked defines %s", count > 1 ? "s" : "", names.data, count > 1 ? "them" : "it");
    cuplug__error_destroy(e);
    e = named;
  }
  cuplug__buf_free(&names);
  return e;
}

cuplug_error *cuplug__nvjitlink_link(cuplug__runner *r, const cuplug__code *inputs,
                                     size_t n, const cuplug__link_options *o,
                                     cuplug__code *cubin, cuplug__code *ptx, char **log,
                                     cuplug__tool_times *times) {
  memset(cubin, 0, sizeof *cubin);
  if (ptx) memset(ptx, 0, sizeof *ptx);
  *log = NULL;
  if (ptx && !o->lto)
    return cuplug__error(CUPLUG_ERR_LINK,
                         "nvJitLink gives the linked PTX only with link-time optimisation");
  cuplug__tool_input *in = calloc(n ? n : 1, sizeof *in);
  if (!in) return cuplug__error_oom();
  cuplug_error *e = NULL;
  for (size_t i = 0; i < n && !e; i++) {
    in[i] = (cuplug__tool_input){input_kind(inputs[i].kind), inputs[i].name, inputs[i].data,
                                 inputs[i].size};
    if (!in[i].kind)
      e = cuplug__error(CUPLUG_ERR_CODE_KIND, "%s: %s code cannot be linked as it is",
                        inputs[i].name, cuplug__code_kind_name(inputs[i].kind));
  }
  if (!e) e = name_undefined(link_once(r, in, n, o, false, cubin, log, times));
  if (!e && ptx) {
    cuplug__tool_times second;
    e = link_once(r, in, n, o, true, ptx, NULL, &second);
    if (!e && times) times->finished = second.finished; /* the library's time: both links */
    if (e) {
      cuplug__code_free(cubin);
      free(*log);
      *log = NULL;
    }
  }
  free(in);
  return e;
}

/* ---- what a cubin holds ---- */

#define CUBIN_ENTRY 0x10 /* st_other of a kernel's symbol (nvcc's STO_CUDA_ENTRY) */

/* The i-th section header, when the file holds it whole. */
static bool section(const unsigned char *b, size_t size, const Elf64_Ehdr *eh, size_t i,
                    Elf64_Shdr *sh) {
  uint64_t at = eh->e_shoff + (uint64_t)i * eh->e_shentsize;
  if (eh->e_shentsize != sizeof *sh || eh->e_shoff > size || at > size - sizeof *sh)
    return false;
  memcpy(sh, b + at, sizeof *sh);
  return true;
}

bool cuplug__cubin_has_kernel(const void *cubin, size_t size) {
  const unsigned char *b = cubin;
  Elf64_Ehdr eh;
  if (size < sizeof eh || memcmp(b, ELFMAG, SELFMAG) != 0 || b[EI_CLASS] != ELFCLASS64)
    return false;
  memcpy(&eh, b, sizeof eh);
  for (size_t i = 0; i < eh.e_shnum; i++) {
    Elf64_Shdr sh;
    if (!section(b, size, &eh, i, &sh)) return false;
    if (sh.sh_type != SHT_SYMTAB || sh.sh_offset > size || sh.sh_size > size - sh.sh_offset)
      continue;
    for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= sh.sh_size; at += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      memcpy(&sym, b + sh.sh_offset + at, sizeof sym);
      if (ELF64_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_shndx != SHN_UNDEF &&
          (sym.st_other & CUBIN_ENTRY))
        return true;
    }
  }
  return false;
}
