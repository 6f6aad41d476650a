/* build.c - which build of cuplug is running, for the cache's keys.
 *
 * The linker's build ID (a digest of the plugin's code, -Wl,--build-id)
 * changes with every change to the code, where the version number may not:
 * results of one build are never taken for another's.  Where there is no
 * build ID the version and the plugin's file name and size stand in. */
#include "plugin/cache/hash.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"

typedef struct search {
  const void *base; /* the plugin's load address */
  const uint8_t *id;
  size_t size;
} search;

static int find_note(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  search *s = arg;
  if ((const void *)info->dlpi_addr != s->base) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE) continue;
    const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
    const uint8_t *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
      const uint8_t *name = p + sizeof *n;
      const uint8_t *desc = name + ((n->n_namesz + 3) & ~3u);
      if (desc + n->n_descsz > end) break;
      if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
        s->id = desc;
        s->size = n->n_descsz;
        return 1;
      }
      p = desc + ((n->n_descsz + 3) & ~3u);
    }
  }
  return 1; /* the plugin's object, without a build ID */
}

static cuplug__digest build;
static pthread_once_t build_once = PTHREAD_ONCE_INIT;

static void find_build(void) {
  cuplug__buf b; /* the version, then the build ID or what stands in for it */
  cuplug__buf_init(&b);
  cuplug__buf_puts(&b, CUPLUG__VERSION);
  cuplug__buf_putc(&b, '\0');
  Dl_info info = {0};
  search s = {0};
  if (dladdr((const void *)find_build, &info) && info.dli_fbase) {
    s.base = info.dli_fbase;
    /* dlpi_addr is the load bias: 0 for the main program (the plugin's
     * sources are linked into tests and the CLI statically too) */
    struct link_map *lm = NULL;
    if (dladdr1((const void *)find_build, &info, (void **)&lm, RTLD_DL_LINKMAP) && lm)
      s.base = (const void *)lm->l_addr;
    dl_iterate_phdr(find_note, &s);
  }
  struct stat st;
  if (s.id)
    cuplug__buf_append(&b, (const char *)s.id, s.size);
  else if (info.dli_fname && stat(info.dli_fname, &st) == 0)
    cuplug__buf_printf(&b, "%s:%lld:%lld", info.dli_fname, (long long)st.st_size,
                       (long long)st.st_mtim.tv_sec);
  build = cuplug__digest_of(b.data, b.len);
  cuplug__buf_free(&b);
}

cuplug__digest cuplug__build_digest(void) {
  pthread_once(&build_once, find_build);
  return build;
}
