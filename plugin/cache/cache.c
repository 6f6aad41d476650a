/* cache.c - the memory and disk tiers of the result cache, and the order
 * of all three. */
#include "plugin/cache/cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"

/* ---- the entry file ---- */

static const char magic[8] = {'C', 'U', 'P', 'L', 'U', 'G', 'C', '\n'};

/* magic, format, reserved, key, payload size, payload digest */
typedef struct header {
  char magic[8];
  uint32_t format;
  uint32_t reserved;
  cuplug__digest key;
  uint64_t size;
  cuplug__digest digest;
} header;

_Static_assert(sizeof(header) == 88, "the entry header is 88 bytes, without padding");

/* ---- the memory tier: buckets of nodes by the key's XXH3, and a list,
 * newest first ---- */

typedef struct node {
  struct node *prev, *next; /* the list */
  struct node *chain;       /* the bucket */
  uint64_t quick;
  void *key; /* the key's bytes, then the payload's, in one block */
  size_t key_size, size;
} node;

static const void *payload(const node *n) { return (const char *)n->key + n->key_size; }

struct cuplug__cache {
  bool off;
  char *dir;  /* the folder as given or found; NULL: no disk tier */
  char *vdir; /* <dir>/v1 */
  uint64_t max_bytes, memory_bytes;
  pthread_mutex_t lock;
  node **buckets; /* a power of two of them */
  size_t num_buckets, count;
  node *newest, *oldest;
  uint64_t held; /* bytes in memory: keys and payloads */
  /* the disk tier */
  bool no_reads, no_writes; /* set aside: no folder, or one that fails */
  const char *status;       /* "ok", why there is none, or `reason` */
  char *reason;             /* why it was set aside: written once, kept to the end */
  bool noted;               /* the session was told */
  bool rebuilt_noted;
  bool sized;               /* disk_bytes was counted */
  unsigned fills;           /* entries written that the remote tier found */
  uint64_t disk_bytes;      /* what this process believes the folder holds */
  bool root_vetted;         /* the folder and v1 are there and trusted */
  bool untrusted;           /* another's, or writable by others: not touched */
  uint8_t vetted[32];       /* subfolders there and trusted, a bit each */
  atomic_uint tmp_serial;
  /* counters */
  uint64_t memory_hits, disk_hits, misses, stores, rebuilt;
  cuplug__remote *remote; /* NULL: none */
};

static bool env_says_off(void) {
  const char *v = getenv("CUPLUG_CACHE");
  return v && (!strcmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "no") ||
               !strcasecmp(v, "false"));
}

/* The folder: given, $CUPLUG_CACHE_DIR, $XDG_CACHE_HOME/cuplug or
 * $HOME/.cache/cuplug.  NULL (and *why) when there is none. */
static char *find_dir(const char *given, const char **why) {
  cuplug__buf b;
  cuplug__buf_init(&b);
  const char *env = getenv("CUPLUG_CACHE_DIR");
  const char *xdg = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  if (given || env) {
    const char *d = given ? given : env;
    if (!*d) {
      *why = given ? "memory only: the session's cache_dir is \"\""
                   : "memory only: CUPLUG_CACHE_DIR is empty";
      return NULL;
    }
    cuplug__buf_puts(&b, d);
  } else if (xdg && xdg[0] == '/') { /* the XDG rule: a relative path is ignored */
    cuplug__buf_printf(&b, "%s/cuplug", xdg);
  } else if (home && *home) {
    cuplug__buf_printf(&b, "%s/.cache/cuplug", home);
  } else {
    *why = "memory only: neither XDG_CACHE_HOME nor HOME is set";
    return NULL;
  }
  return cuplug__buf_take(&b, NULL);
}

/* Why a store could not use the folder, as it would find it (NULL: it
 * could): a folder that cannot be written, or none where the first
 * missing one of its path cannot be made (that one is made and removed
 * again). */
static char *folder_problem(const char *dir) {
  char path[PATH_MAX];
  struct stat st;
  if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) return NULL;
  size_t have = strlen(path); /* how much of the path exists: "" is the working folder */
  while (have && stat(path, &st) != 0) {
    char *slash = strrchr(path, '/');
    have = slash ? (size_t)(slash - path) + (slash == path) : 0;
    path[have] = '\0';
  }
  int err = 0;
  const char *what = "cannot make the cache folder";
  if (have && !S_ISDIR(st.st_mode)) {
    err = ENOTDIR;
  } else if (have == strlen(dir)) {
    if (access(dir, W_OK | X_OK) != 0) err = errno, what = "cannot write to the cache folder";
  } else {
    size_t skip = strspn(dir + have, "/");
    snprintf(path, sizeof path, "%.*s", (int)(have + skip + strcspn(dir + have + skip, "/")), dir);
    if (mkdir(path, 0700) == 0) rmdir(path);
    else if (errno != EEXIST) err = errno;
  }
  if (!err) return NULL;
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__buf_printf(&b, "%s %s: %s", what, dir, strerror(err));
  return cuplug__buf_take(&b, NULL);
}

/* The status of a folder no store has found wanting yet is what a store
 * would find.  Under the lock. */
static void check_status(cuplug__cache *c) {
  if (c->dir && !c->off && !c->reason && (c->reason = folder_problem(c->dir)))
    c->status = c->reason;
}

cuplug_error *cuplug__cache_create(const cuplug__cache_options *o, cuplug__cache **out) {
  cuplug__cache *c = calloc(1, sizeof *c);
  if (!c) return cuplug__error_oom();
  pthread_mutex_init(&c->lock, NULL);
  c->off = o->off || env_says_off();
  c->max_bytes = o->max_bytes ? o->max_bytes : CUPLUG__CACHE_DEFAULT_BYTES;
  c->memory_bytes = o->memory_bytes ? o->memory_bytes : CUPLUG__CACHE_DEFAULT_MEMORY;
  const char *why = "off";
  if (!c->off) c->dir = find_dir(o->dir, &why);
  if (c->dir) {
    cuplug__buf b;
    cuplug__buf_init(&b);
    cuplug__buf_printf(&b, "%s/v%u", c->dir, CUPLUG__CACHE_FORMAT);
    c->vdir = cuplug__buf_take(&b, NULL);
  }
  c->status = c->dir ? "ok" : why;
  if (c->dir && !c->vdir) {
    cuplug__cache_destroy(c);
    return cuplug__error_oom();
  }
  cuplug_error *e = c->off ? NULL : cuplug__remote_create(&o->remote, &c->remote);
  if (e) {
    cuplug__cache_destroy(c);
    return e;
  }
  c->no_reads = c->no_writes = !c->dir;
  *out = c;
  return NULL;
}

static void memory_drop_all(cuplug__cache *c) {
  for (node *n = c->newest, *next; n; n = next) {
    next = n->next;
    free(n->key);
    free(n);
  }
  free(c->buckets);
  c->buckets = NULL;
  c->num_buckets = c->count = 0;
  c->newest = c->oldest = NULL;
  c->held = 0;
}

void cuplug__cache_destroy(cuplug__cache *c) {
  if (!c) return;
  memory_drop_all(c);
  cuplug__remote_destroy(c->remote);
  pthread_mutex_destroy(&c->lock);
  free(c->dir);
  free(c->vdir);
  free(c->reason);
  free(c);
}

bool cuplug__cache_on(const cuplug__cache *c) { return c && !c->off; }

/* ---- memory ---- */

static void unlink_node(cuplug__cache *c, node *n) {
  if (n->prev) n->prev->next = n->next;
  else c->newest = n->next;
  if (n->next) n->next->prev = n->prev;
  else c->oldest = n->prev;
  n->prev = n->next = NULL;
}

static void push_newest(cuplug__cache *c, node *n) {
  n->next = c->newest;
  n->prev = NULL;
  if (c->newest) c->newest->prev = n;
  c->newest = n;
  if (!c->oldest) c->oldest = n;
}

static node **bucket(const cuplug__cache *c, uint64_t quick) {
  return &c->buckets[quick & (c->num_buckets - 1)];
}

/* Under the lock. */
static node *memory_find(const cuplug__cache *c, const cuplug__cache_key *k) {
  if (!c->num_buckets) return NULL;
  for (node *n = *bucket(c, k->quick); n; n = n->chain)
    if (n->quick == k->quick && n->key_size == k->size && !memcmp(n->key, k->bytes, k->size))
      return n;
  return NULL;
}

static void memory_drop(cuplug__cache *c, node *n) {
  node **p = bucket(c, n->quick);
  while (*p != n) p = &(*p)->chain;
  *p = n->chain;
  unlink_node(c, n);
  c->held -= n->key_size + n->size;
  c->count--;
  free(n->key);
  free(n);
}

/* Twice the buckets, when there are more nodes than buckets. */
static void grow(cuplug__cache *c) {
  size_t num = c->num_buckets ? 2 * c->num_buckets : 64;
  node **b = calloc(num, sizeof *b);
  if (!b) return; /* longer chains */
  for (size_t i = 0; i < c->num_buckets; i++) {
    for (node *n = c->buckets[i], *next; n; n = next) {
      next = n->chain;
      n->chain = b[n->quick & (num - 1)];
      b[n->quick & (num - 1)] = n;
    }
  }
  free(c->buckets);
  c->buckets = b;
  c->num_buckets = num;
}

/* Under the lock. */
static void memory_put(cuplug__cache *c, const cuplug__cache_key *k, const void *data,
                       size_t size) {
  uint64_t bytes = (uint64_t)k->size + size;
  if (bytes > c->memory_bytes || memory_find(c, k)) return;
  while (c->oldest && c->held + bytes > c->memory_bytes) memory_drop(c, c->oldest);
  if (c->count >= c->num_buckets) grow(c);
  node *n = c->num_buckets ? calloc(1, sizeof *n) : NULL;
  if (n) n->key = malloc(bytes ? bytes : 1);
  if (!n || !n->key) {
    free(n);
    return;
  }
  memcpy(n->key, k->bytes, k->size);
  memcpy((char *)n->key + k->size, data, size);
  n->key_size = k->size;
  n->size = size;
  n->quick = k->quick;
  n->chain = *bucket(c, n->quick);
  *bucket(c, n->quick) = n;
  push_newest(c, n);
  c->held += bytes;
  c->count++;
}

/* ---- disk ---- */

static void entry_path(const cuplug__cache *c, const char *hex, char *out, size_t cap) {
  snprintf(out, cap, "%s/%.2s/%s", c->vdir, hex, hex + 2);
}

/* Says, once a session, why the disk tier (or its writes) was set aside:
 * as soon as a compile or link can carry the warning.  Under the lock. */
static void tell(cuplug__cache *c, cuplug_error **note) {
  if (!c->reason || c->noted || !note || *note) return;
  c->noted = true;
  *note = cuplug__error(CUPLUG_WARN_CACHE, "cuplug's disk cache %s: %s; %s",
                        c->no_reads ? "is off" : "stores no more results", c->status,
                        c->no_reads ? "compiling without it"
                                    : "the entries already there are still read");
}

/* Sets the disk tier (or its writes) aside for `why`.  Under the lock. */
static void set_aside_for(cuplug__cache *c, bool reads_too, const char *why,
                          cuplug_error **note) {
  if (c->no_writes && (!reads_too || c->no_reads)) return;
  c->no_writes = true;
  if (reads_too) c->no_reads = true;
  if (!c->reason && (c->reason = cuplug__strdup(why))) c->status = c->reason;
  tell(c, note);
}

/* The same, for a system call that failed on `path`.  Under the lock. */
static void set_aside(cuplug__cache *c, bool reads_too, const char *what, const char *path,
                      int err, cuplug_error **note) {
  char why[PATH_MAX + 256];
  snprintf(why, sizeof why, "%s %s: %s", what, path, strerror(err));
  set_aside_for(c, reads_too, why, note);
}

/* ---- whose folder it is ---- */

/* Why a folder or entry is not to be trusted, or NULL.  Entries are code
 * that runs on the GPU: as ssh has it for its files, the user or root must
 * own it, and no one but its owner may write it. */
static const char *distrust(const struct stat *st, char *why, size_t cap) {
  if (st->st_uid != geteuid() && st->st_uid != 0) {
    snprintf(why, cap, "owned by uid %lu, not you", (unsigned long)st->st_uid);
    return why;
  }
  if (st->st_mode & (S_IWGRP | S_IWOTH)) {
    snprintf(why, cap, "writable by others (mode %04o)", (unsigned)(st->st_mode & 07777));
    return why;
  }
  return NULL;
}

typedef enum { FOLDER_OK, FOLDER_ABSENT, FOLDER_UNTRUSTED } folder_state;

/* One folder of the path to the entries.  `ours`: a folder cuplug makes
 * (v1 and the entries' subfolders), which an older cuplug made 0755; the
 * user's own is made the user's alone.  The folder the user names is
 * checked, never changed (it may be the home's .cache). */
static folder_state vet_folder(const char *path, bool ours, char *why, size_t cap) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return FOLDER_ABSENT;
  char reason[64];
  if (distrust(&st, reason, sizeof reason)) {
    snprintf(why, cap, "the cache folder %s is %s", path, reason);
    return FOLDER_UNTRUSTED;
  }
  if (ours && st.st_uid == geteuid() && (st.st_mode & 077)) chmod(path, 0700);
  return FOLDER_OK;
}

/* A folder found untrusted: the disk tier is off, reads and writes, and
 * nothing in the folder is touched again.  Under the lock. */
static folder_state distrusted(cuplug__cache *c, const char *why, cuplug_error **note) {
  c->untrusted = true;
  set_aside_for(c, true, why, note);
  return FOLDER_UNTRUSTED;
}

/* The cache folder and v1, once they are there.  Under the lock. */
static folder_state vet_root(cuplug__cache *c, cuplug_error **note) {
  if (c->untrusted) return FOLDER_UNTRUSTED;
  if (c->root_vetted) return FOLDER_OK;
  char why[PATH_MAX + 128];
  folder_state s = vet_folder(c->dir, false, why, sizeof why);
  if (s == FOLDER_OK) s = vet_folder(c->vdir, true, why, sizeof why);
  c->root_vetted = s == FOLDER_OK;
  return s == FOLDER_UNTRUSTED ? distrusted(c, why, note) : s;
}

/* Every folder above an entry of subfolder `sub` (at `dir`), once a
 * session.  Under the lock. */
static folder_state vet(cuplug__cache *c, unsigned sub, const char *dir, cuplug_error **note) {
  if (c->vetted[sub / 8] & (1u << (sub % 8))) return FOLDER_OK;
  folder_state s = vet_root(c, note);
  if (s != FOLDER_OK) return s;
  char why[PATH_MAX + 128];
  s = vet_folder(dir, true, why, sizeof why);
  if (s == FOLDER_UNTRUSTED) return distrusted(c, why, note);
  if (s == FOLDER_OK) c->vetted[sub / 8] |= (uint8_t)(1u << (sub % 8));
  return s;
}

static void note_rebuilt(cuplug__cache *c, const char *path, const char *why,
                         cuplug_error **note) {
  c->rebuilt++;
  if (!c->rebuilt_noted && note && !*note) {
    c->rebuilt_noted = true;
    *note = cuplug__error(CUPLUG_WARN_CACHE,
                          "cuplug's disk cache entry %s was %s; it is rebuilt", path, why);
  }
}

static bool read_all(int fd, void *p, size_t n) {
  for (size_t done = 0; done < n;) {
    ssize_t r = read(fd, (char *)p + done, n - done);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    done += (size_t)r;
  }
  return true;
}

static bool write_all(int fd, const void *p, size_t n) {
  for (size_t done = 0; done < n;) {
    ssize_t r = write(fd, (const char *)p + done, n - done);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      if (r == 0) errno = ENOSPC;
      return false;
    }
    done += (size_t)r;
  }
  return true;
}

/* An entry from disk, checked; NULL when absent or bad (bad ones go). */
static void *disk_get(cuplug__cache *c, const cuplug__digest *key, const char *hex,
                      size_t *size, cuplug_error **note) {
  char dir[PATH_MAX], path[PATH_MAX];
  snprintf(dir, sizeof dir, "%s/%.2s", c->vdir, hex);
  pthread_mutex_lock(&c->lock);
  folder_state trusted = vet(c, key->bytes[0], dir, note);
  pthread_mutex_unlock(&c->lock);
  if (trusted != FOLDER_OK) return NULL;
  entry_path(c, hex, path, sizeof path);
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return NULL;
  struct stat st;
  header h;
  const char *bad = NULL;
  char why[64];
  void *data = NULL;
  if (fstat(fd, &st) != 0)
    bad = "truncated";
  else if ((bad = distrust(&st, why, sizeof why)))
    ; /* the folder was trusted, the entry is not: another's, or others' to write */
  else if ((size_t)st.st_size < sizeof h || !read_all(fd, &h, sizeof h))
    bad = "truncated";
  else if (memcmp(h.magic, magic, sizeof magic) != 0)
    bad = "not a cuplug cache entry";
  else if (h.format != CUPLUG__CACHE_FORMAT)
    bad = "written in another format";
  else if (memcmp(&h.key, key, sizeof *key) != 0)
    bad = "filed under the wrong key";
  else if (h.size != (uint64_t)st.st_size - sizeof h)
    bad = "truncated";
  else if (!(data = malloc(h.size ? h.size : 1)))
    bad = NULL; /* out of memory: a miss */
  else if (!read_all(fd, data, h.size))
    bad = "truncated";
  else {
    cuplug__digest d = cuplug__digest_of(data, h.size);
    if (memcmp(&d, &h.digest, sizeof d) != 0) bad = "corrupt (its digest does not match)";
  }
  if (!bad && data) {
    /* a hit refreshes the entry's time, which eviction reads (at most once
     * a minute: a write costs more than the read) */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (now.tv_sec - st.st_mtim.tv_sec > 60) futimens(fd, NULL);
  }
  close(fd);
  if (bad) {
    free(data);
    unlink(path);
    pthread_mutex_lock(&c->lock);
    note_rebuilt(c, path, bad, note);
    pthread_mutex_unlock(&c->lock);
    return NULL;
  }
  *size = data ? (size_t)h.size : 0;
  return data;
}

static int mkdir_p(const char *path) {
  char buf[PATH_MAX];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return ENAMETOOLONG;
  for (char *p = buf + 1;; p++) {
    if (*p == '/' || !*p) {
      char was = *p;
      *p = '\0';
      if (mkdir(buf, 0700) == 0)
        chmod(buf, 0700); /* the user's alone, whatever the umask */
      else if (errno != EEXIST)
        return errno;
      *p = was;
      if (!was) break;
    }
  }
  struct stat st;
  if (stat(buf, &st) != 0) return errno;
  return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}

typedef struct file_entry {
  char path[PATH_MAX];
  uint64_t size;
  struct timespec mtime;
} file_entry;

static int older_first(const void *a, const void *b) {
  const file_entry *x = a, *y = b;
  if (x->mtime.tv_sec != y->mtime.tv_sec) return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
  if (x->mtime.tv_nsec != y->mtime.tv_nsec) return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
  return 0;
}

/* Walks the folder: counts its entries, removes what a crashed writer left
 * (temporary files over an hour old) and, with `remove_all`, every entry.
 * Fills *list (the caller frees it) when asked. */
static void walk(const cuplug__cache *c, bool remove_all, uint64_t *entries, uint64_t *bytes,
                 file_entry **list, size_t *num) {
  *entries = *bytes = 0;
  size_t cap = 0;
  if (list) *list = NULL, *num = 0;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  for (int sub = 0; sub < 256; sub++) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/%02x", c->vdir, sub);
    DIR *d = opendir(dir);
    struct stat ds;
    char why[64];
    if (d && (fstat(dirfd(d), &ds) != 0 || distrust(&ds, why, sizeof why))) {
      closedir(d); /* not the user's: neither counted nor emptied */
      continue;
    }
    if (!d) continue;
    for (struct dirent *de; (de = readdir(d));) {
      if (de->d_name[0] == '.' && (!de->d_name[1] || !strcmp(de->d_name, ".."))) continue;
      file_entry f;
      if (snprintf(f.path, sizeof f.path, "%s/%s", dir, de->d_name) >= (int)sizeof f.path)
        continue;
      struct stat st;
      if (stat(f.path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
      bool tmp = de->d_name[0] == '.';
      if (tmp) {
        if (now.tv_sec - st.st_mtim.tv_sec > 3600) unlink(f.path);
        continue;
      }
      if (remove_all) {
        unlink(f.path);
        continue;
      }
      (*entries)++;
      *bytes += (uint64_t)st.st_size;
      if (!list) continue;
      if (*num == cap) {
        cap = cap ? 2 * cap : 256;
        file_entry *v = realloc(*list, cap * sizeof *v);
        if (!v) continue;
        *list = v;
      }
      f.size = (uint64_t)st.st_size;
      f.mtime = st.st_mtim;
      (*list)[(*num)++] = f;
    }
    closedir(d);
  }
}

/* The folder is past its bound: the least recently used entries go, down
 * to four fifths of it.  Returns what is left. */
static uint64_t evict(const cuplug__cache *c) {
  uint64_t entries, bytes;
  file_entry *list;
  size_t num;
  walk(c, false, &entries, &bytes, &list, &num);
  if (bytes > c->max_bytes && list) {
    qsort(list, num, sizeof *list, older_first);
    for (size_t i = 0; i < num && bytes > c->max_bytes / 5 * 4; i++)
      if (unlink(list[i].path) == 0) bytes -= list[i].size;
  }
  free(list);
  return bytes;
}

/* The subfolder `sub` (at `dir`), made when missing: whether an entry may
 * be written there.  Nothing is made in a folder found untrusted, and what
 * is made is checked (another user may have made a folder of the path
 * first). */
static bool ready_folder(cuplug__cache *c, unsigned sub, const char *dir, cuplug_error **note) {
  pthread_mutex_lock(&c->lock);
  bool vetted = c->vetted[sub / 8] & (1u << (sub % 8));
  folder_state root = vetted ? FOLDER_OK : vet_root(c, note);
  pthread_mutex_unlock(&c->lock);
  if (vetted || root == FOLDER_UNTRUSTED) return vetted;
  int err = mkdir_p(dir);
  pthread_mutex_lock(&c->lock);
  if (err)
    set_aside(c, err == ENOTDIR || err == ENAMETOOLONG, "cannot make the cache folder", dir,
              err, note);
  bool ready = !err && vet(c, sub, dir, note) == FOLDER_OK;
  pthread_mutex_unlock(&c->lock);
  return ready;
}

/* Writes an entry; `store` counts it as a result the session stored (an
 * entry the remote tier found is not). */
static void disk_put(cuplug__cache *c, const cuplug__digest *key, const char *hex,
                     const void *data, size_t size, bool store, cuplug_error **note) {
  char dir[PATH_MAX], tmp[PATH_MAX + 64], path[PATH_MAX];
  snprintf(dir, sizeof dir, "%s/%.2s", c->vdir, hex);
  if (!ready_folder(c, key->bytes[0], dir, note)) return;
  snprintf(tmp, sizeof tmp, "%s/.tmp-%ld-%u", dir, (long)getpid(),
           atomic_fetch_add(&c->tmp_serial, 1));
  entry_path(c, hex, path, sizeof path);
  header h = {.format = CUPLUG__CACHE_FORMAT, .key = *key, .size = size};
  memcpy(h.magic, magic, sizeof magic);
  h.digest = cuplug__digest_of(data, size);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  bool ok = fd >= 0 && fchmod(fd, 0600) == 0 && write_all(fd, &h, sizeof h) &&
            write_all(fd, data, size);
  int err = ok ? 0 : errno;
  if (fd >= 0 && close(fd) != 0 && ok) ok = false, err = errno;
  if (ok && rename(tmp, path) != 0) ok = false, err = errno;
  if (!ok && fd >= 0) unlink(tmp);
  pthread_mutex_lock(&c->lock);
  if (!ok) {
    set_aside(c, false, "cannot write to the cache folder", dir, err, note);
    pthread_mutex_unlock(&c->lock);
    return;
  }
  c->stores += store;
  c->fills += !store;
  /* the first store counts what the folder holds (a walk of its 256
   * subfolders); entries the remote tier found wait for a build, or for
   * the 32nd of them: a cold process's remote hit does not pay for it */
  bool count = !c->sized && (store || c->fills >= 32);
  c->sized |= count;
  c->disk_bytes += sizeof h + size;
  bool over = c->disk_bytes > c->max_bytes;
  pthread_mutex_unlock(&c->lock);
  /* what the folder holds is counted once a session, then followed */
  if (count || over) {
    uint64_t left;
    if (over) {
      left = evict(c);
    } else {
      uint64_t entries;
      walk(c, false, &entries, &left, NULL, NULL);
      if (left > c->max_bytes) left = evict(c);
    }
    pthread_mutex_lock(&c->lock);
    c->disk_bytes = left;
    pthread_mutex_unlock(&c->lock);
  }
}

/* ---- the tiers together ---- */

void cuplug__cache_key_init(cuplug__cache_key *k, const void *bytes, size_t size) {
  *k = (cuplug__cache_key){.bytes = bytes, .size = size,
                           .quick = cuplug__quick_hash(bytes, size)};
}

static const cuplug__digest *digest_of_key(cuplug__cache_key *k) {
  if (!k->digested) {
    k->digest = cuplug__digest_of(k->bytes, k->size);
    k->digested = true;
  }
  return &k->digest;
}

cuplug_cache_result cuplug__cache_get(cuplug__cache *c, cuplug__cache_key *key, void **data,
                                      size_t *size, cuplug_error **note) {
  *data = NULL;
  *size = 0;
  if (!c || c->off) return CUPLUG_CACHE_NONE;
  pthread_mutex_lock(&c->lock);
  tell(c, note); /* a reason cache_info found first */
  node *n = memory_find(c, key);
  if (n && (*data = malloc(n->size ? n->size : 1))) {
    memcpy(*data, payload(n), n->size);
    *size = n->size;
    unlink_node(c, n);
    push_newest(c, n);
    c->memory_hits++;
    pthread_mutex_unlock(&c->lock);
    return CUPLUG_CACHE_MEMORY;
  }
  bool reads = !c->no_reads, writes = !c->no_writes;
  pthread_mutex_unlock(&c->lock);
  void *d = NULL;
  char hex[65];
  if (reads || c->remote) cuplug__digest_hex(digest_of_key(key), hex);
  if (reads) d = disk_get(c, &key->digest, hex, size, note);
  cuplug_cache_result where = d ? CUPLUG_CACHE_DISK : CUPLUG_CACHE_MISS;
  if (!d && cuplug__remote_get(c->remote, &key->digest, &d, size, note) == CUPLUG__REMOTE_HIT) {
    where = CUPLUG_CACHE_REMOTE;
    if (writes) disk_put(c, &key->digest, hex, d, *size, false, note);
  }
  pthread_mutex_lock(&c->lock);
  if (d) {
    if (where == CUPLUG_CACHE_DISK) c->disk_hits++;
    memory_put(c, key, d, *size);
  } else {
    c->misses++;
  }
  pthread_mutex_unlock(&c->lock);
  *data = d;
  return where;
}

void cuplug__cache_put(cuplug__cache *c, cuplug__cache_key *key, const void *data, size_t size,
                       cuplug_error **note) {
  if (!c || c->off) return;
  pthread_mutex_lock(&c->lock);
  tell(c, note);
  memory_put(c, key, data, size);
  bool writes = !c->no_writes;
  if (!writes) c->stores++;
  pthread_mutex_unlock(&c->lock);
  if (writes) {
    char hex[65];
    const cuplug__digest *digest = digest_of_key(key);
    cuplug__digest_hex(digest, hex);
    disk_put(c, digest, hex, data, size, true, note);
  }
  if (c->remote) cuplug__remote_put(c->remote, digest_of_key(key), data, size, note);
}

/* Whether the folder may be walked: there, or not yet, and trusted. */
static bool walkable(cuplug__cache *c) {
  if (!c->vdir) return false;
  pthread_mutex_lock(&c->lock);
  bool ok = vet_root(c, NULL) != FOLDER_UNTRUSTED;
  pthread_mutex_unlock(&c->lock);
  return ok;
}

cuplug_error *cuplug__cache_info(cuplug__cache *c, cuplug_cache_info *info) {
  uint64_t entries = 0, bytes = 0;
  if (walkable(c)) walk(c, false, &entries, &bytes, NULL, NULL);
  pthread_mutex_lock(&c->lock);
  check_status(c);
  info->dir = c->dir ? c->dir : "";
  info->status = c->off ? "off" : c->status;
  info->max_bytes = c->max_bytes;
  info->disk_entries = entries;
  info->disk_bytes = bytes;
  info->memory_entries = c->count;
  info->memory_bytes = c->held;
  info->memory_hits = c->memory_hits;
  info->disk_hits = c->disk_hits;
  info->misses = c->misses;
  info->stores = c->stores;
  info->rebuilt = c->rebuilt;
  pthread_mutex_unlock(&c->lock);
  cuplug__remote_info(c->remote, info);
  return NULL;
}

cuplug_error *cuplug__cache_clear(cuplug__cache *c) {
  pthread_mutex_lock(&c->lock);
  memory_drop_all(c);
  c->disk_bytes = 0;
  pthread_mutex_unlock(&c->lock);
  uint64_t entries, bytes;
  if (walkable(c)) walk(c, true, &entries, &bytes, NULL, NULL);
  return NULL;
}
