/* core/registry/registry.c: the registry of plugins (docs/registry.md).
 *
 * tp_registry_open finds the INI file, reads it (ini_file.c), refuses it as
 * a whole only for what breaks every section (syntax, bad section names),
 * and then turns each section into an entry: core keys checked, library
 * resolved, plugin loaded and initialised (loader.c), tuning keys handed to
 * set_option. A section that fails any of this becomes a broken entry with
 * its status and a "file:line: why" naming the most precise line (the key at
 * fault, else the section header); it holds no library and no state.
 *
 * Cost: a hash index of section names (name_index.c) makes finding a
 * name, the duplicate check and a key-repeat check per section O(1) each,
 * so opening is linear in the file and finding (or missing) a name is
 * O(1), its "it lists: ..." message bounded by its fixed buffer. An entry
 * holds only what it has: its library path and error are allocated to
 * their length, its loaded plugin only when loaded.
 *
 * Lifetime: a registry counts its users, its handle and each plan made
 * from it (tp_registry_hold). tp_registry_close gives up the handle's
 * hold and marks the registry closed; the plugins are unloaded when the
 * last hold goes, so a plan that outlives the close still finds its
 * plugins loaded and refuses to run (tp_registry_closed). A magic word
 * turns a handle that is no open registry into TP_ERR_INVALID_ARGUMENT
 * where the memory still says so.
 *
 * Invariants: an entry is loaded exactly when it is enabled and its status
 * is TP_OK; all strings handed out live until the registry is freed. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/file_kind.h"
#include "core/registry/device_code.h"
#include "core/registry/ini_file.h"
#include "core/registry/loader.h"
#include "core/registry/name_index.h"
#include "core/registry/registry_internal.h"

/* The longest reason an entry's error carries after its "file:line: ". */
#define ENTRY_WHY_MAX 1024

/* "TPRG" in an open registry; 0 once it is freed. */
#define REGISTRY_MAGIC 0x47525054u

typedef struct tp_registry_entry {
  const tp_ini_section *section;
  tp_plugin_kind kind;          /* 0 when the INI gives no valid kind */
  int enabled;
  char *library;                /* resolved path; else the first place tried; NULL: none */
  tp_status status;
  char *error;                  /* NULL when status is TP_OK (or no memory for it) */
  tp_loaded_plugin *plugin;     /* NULL unless loaded; never moves while loaded */
} tp_registry_entry;

struct tp_registry {
  uint32_t magic;
  atomic_size_t holds;          /* the handle's (until closed) and one per plan */
  atomic_bool closed;
  char *path;                   /* absolute */
  char shown[TP_ERROR_PATH_MAX]; /* path as messages show it (cut when very long) */
  tp_ini_file *ini;
  size_t count;
  tp_registry_entry *entries;
  tp_name_index names;          /* section name -> its first entry */
};

const char *tp_plugin_kind_name(tp_plugin_kind kind) {
  switch (kind) {
  case TP_PLUGIN_PAYLOAD: return "payload";
  case TP_PLUGIN_EPILOGUE: return "epilogue";
  }
  return "?";
}

/* ------------------------------------------------------------- text helpers */

/* Appends to a fixed buffer (messages only); what does not fit is cut, and
 * the cut shows as a trailing "...". */
typedef struct text {
  char buf[768];
  size_t len;
} text;

static void text_add(text *t, const char *fmt, ...) TP_PRINTF(2, 3);
static void text_add(text *t, const char *fmt, ...) {
  if (t->len >= sizeof t->buf - 1) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(t->buf + t->len, sizeof t->buf - t->len, fmt, ap);
  va_end(ap);
  if (n > 0) t->len += (size_t)n;
  if (t->len > sizeof t->buf - 1) {
    t->len = sizeof t->buf - 1;
    memcpy(t->buf + t->len - 3, "...", 3);
  }
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* NULL when path does not exist (symbolic links followed); "" for a
 * regular file; else what it is instead, a loop of symbolic links too. */
static const char *file_kind(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) return errno == ELOOP ? "a loop of symbolic links (ELOOP)" : NULL;
  return tp_file_kind(st.st_mode);
}

/* ------------------------------------------------------- finding the file */

/* path made absolute against the working directory, so that messages and the
 * INI folder (for relative libraries) do not depend on a later chdir. */
static tp_status absolute_path(const char *path, char **out) {
  if (path[0] == '/') {
    *out = strdup(path);
  } else {
    char *cwd = getcwd(NULL, 0);
    if (!cwd) return tp_error_set(TP_ERR_IO, "%s: cannot get the working directory", path);
    size_t size = strlen(cwd) + 1 + strlen(path) + 1;
    *out = malloc(size);
    if (*out) snprintf(*out, size, "%s/%s", cwd, path);
    free(cwd);
  }
  return *out ? TP_OK : tp_error_set(TP_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
}

/* The first of $TILEPIPE_REGISTRY, ./tilepipe.ini, TP_REGISTRY_FILE that
 * exists (an existing but unreadable one is taken, and fails when read;
 * so is one that access() fails on for any reason but its absence, a loop
 * of symbolic links say, so that the read names the reason). */
static tp_status search_registry(char **out) {
  const char *env = getenv("TILEPIPE_REGISTRY");
  const struct { const char *path, *what; } places[] = {
      {env && *env ? env : NULL, "$TILEPIPE_REGISTRY"},
      {"tilepipe.ini", "the working directory"},
      {TP_REGISTRY_FILE, "the installed registry"},
  };
  text looked = {.len = 0};
  for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
    if (!places[i].path) {
      text_add(&looked, "%s$TILEPIPE_REGISTRY (unset)", looked.len ? ", " : "");
      continue;
    }
    if (access(places[i].path, F_OK) == 0 || (errno != ENOENT && errno != ENOTDIR))
      return absolute_path(places[i].path, out);
    text_add(&looked, "%s%s (%s)", looked.len ? ", " : "", places[i].path, places[i].what);
  }
  return tp_error_set(TP_ERR_NOT_FOUND, "no registry found; looked for %s. Set "
                      "TILEPIPE_REGISTRY or pass a path", looked.buf);
}

/* ------------------------------------------------------------ the entries */

static tp_status mark_broken(tp_registry_entry *e, const tp_registry *reg, tp_status status,
                             int line, const char *fmt, ...) TP_PRINTF(5, 6);
static tp_status mark_broken(tp_registry_entry *e, const tp_registry *reg, tp_status status,
                             int line, const char *fmt, ...) {
  char why[ENTRY_WHY_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  size_t size = strlen(reg->shown) + strlen(why) + 16;
  free(e->error);
  e->error = malloc(size);
  if (e->error) snprintf(e->error, size, "%s:%d: %s", reg->shown, line, why);
  e->status = status;
  return status;
}

/* e->library = a copy of path (NULL when out of memory). */
static void set_library(tp_registry_entry *e, const char *path) {
  free(e->library);
  e->library = strdup(path);
}

static int is_core_key(const char *key) {
  return !strcmp(key, "kind") || !strcmp(key, "library") || !strcmp(key, "enabled");
}

static int parse_enabled(const char *v) {
  if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "1")) return 1;
  if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "0")) return 0;
  return -1;
}

static const tp_ini_key *find_key(const tp_ini_section *s, const char *name) {
  for (size_t k = 0; k < s->num_keys; k++)
    if (!strcmp(s->keys[k].name, name)) return &s->keys[k];
  return NULL;
}

static tp_plugin_kind parse_kind(const char *v) {
  if (!strcmp(v, "payload")) return TP_PLUGIN_PAYLOAD;
  if (!strcmp(v, "epilogue")) return TP_PLUGIN_EPILOGUE;
  return (tp_plugin_kind)0;
}

/* value as a message quotes it (tp_ini_quote); returns buf. */
static const char *quote(const char *value, char buf[TP_INI_QUOTE_MAX]) {
  return tp_ini_quote(value, strlen(value), buf, TP_INI_QUOTE_MAX);
}

/* A key given twice in e's section breaks it, naming both lines. */
static tp_status check_repeated_keys(tp_registry_entry *e, const tp_registry *reg) {
  const tp_ini_section *s = e->section;
  tp_name_index keys;
  if (tp_name_index_init(&keys, s->num_keys) != 0)
    return mark_broken(e, reg, TP_ERR_OUT_OF_MEMORY, s->line, "out of memory");
  tp_status st = TP_OK;
  for (size_t k = 0; k < s->num_keys && st == TP_OK; k++) {
    size_t first = tp_name_index_add(&keys, s->keys[k].name, k);
    if (first != k)
      st = mark_broken(e, reg, TP_ERR_REGISTRY, s->keys[k].line, "key '%s' repeated (first at "
                       "line %d)", s->keys[k].name, s->keys[first].line);
  }
  tp_name_index_free(&keys);
  return st;
}

/* kind, library, enabled, repeated keys: everything the INI alone decides.
 * The fields are filled first, so that a broken entry still shows what its
 * section says. */
static tp_status check_section_keys(tp_registry_entry *e, const tp_registry *reg) {
  const tp_ini_section *s = e->section;
  const tp_ini_key *kind = find_key(s, "kind"), *library = find_key(s, "library");
  const tp_ini_key *enabled = find_key(s, "enabled");
  char quoted[TP_INI_QUOTE_MAX];
  if (kind) e->kind = parse_kind(kind->value);
  if (library) set_library(e, library->value);
  if (enabled) e->enabled = parse_enabled(enabled->value);
  if (e->enabled < 0) {
    e->enabled = 0;
    return mark_broken(e, reg, TP_ERR_REGISTRY, enabled->line, "enabled = '%s': use true, false, "
                       "yes, no, 1 or 0", quote(enabled->value, quoted));
  }
  tp_status st = check_repeated_keys(e, reg);
  if (st != TP_OK) return st;
  if (!kind)
    return mark_broken(e, reg, TP_ERR_REGISTRY, s->line, "section [%s] has no 'kind' key "
                       "(payload or epilogue)", s->name);
  if (!e->kind)
    return mark_broken(e, reg, TP_ERR_REGISTRY, kind->line, "kind = '%s': use payload or "
                       "epilogue", quote(kind->value, quoted));
  if (!library || !*library->value)
    return mark_broken(e, reg, TP_ERR_REGISTRY, library ? library->line : s->line,
                       "section [%s] has no 'library' path", s->name);
  return TP_OK;
}

/* Where resolve_library has looked: every candidate, in order, each that
 * exists but is no regular file marked so; the first of those. */
typedef struct search {
  text tried;
  char odd[PATH_MAX + 32]; /* "PATH is a directory"; "" while there is none */
} search;

/* Tries dir/name, then dir/name.so when name lacks that suffix (dir_len 0:
 * name as it is). Sets e->library to the first hit. A candidate longer than
 * PATH_MAX cannot be opened, and is listed as such. */
static int try_folder(tp_registry_entry *e, const char *dir, size_t dir_len, const char *name,
                      search *s) {
  const char *suffixes[] = {"", ends_with(name, ".so") ? NULL : ".so"};
  for (size_t i = 0; i < 2 && suffixes[i]; i++) {
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%.*s%s%s%s", (int)dir_len, dir, dir_len ? "/" : "", name,
                     suffixes[i]);
    const char *sep = s->tried.len ? ", " : "";
    if (!s->tried.len) set_library(e, path);
    if (n < 0 || (size_t)n >= sizeof path) {
      text_add(&s->tried, "%s%.40s... (%d chars, longer than PATH_MAX)", sep, path, n);
      continue;
    }
    const char *kind = file_kind(path);
    if (kind && !*kind) {
      set_library(e, path);
      return 1;
    }
    if (!kind) {
      text_add(&s->tried, "%s%s", sep, path);
      continue;
    }
    text_add(&s->tried, "%s%s (%s)", sep, path, kind);
    if (!s->odd[0]) snprintf(s->odd, sizeof s->odd, "%s is %s", path, kind);
  }
  return 0;
}

/* An absolute name as it is; a relative one against the INI file's folder,
 * each folder of $TILEPIPE_PLUGIN_PATH, then TP_PLUGIN_DIR. Without a
 * regular file, a candidate that exists as something else (a directory, a
 * device) is named: that is no library, rather than none found. */
static tp_status resolve_library(tp_registry_entry *e, const tp_registry *reg, int line) {
  char name[PATH_MAX];
  snprintf(name, sizeof name, "%s", e->library ? e->library : "");
  search s = {.tried.len = 0, .odd = ""};
  if (name[0] == '/') {
    if (try_folder(e, "", 0, name, &s)) return TP_OK;
  } else {
    const char *slash = strrchr(reg->path, '/');
    size_t ini_dir_len = slash == reg->path ? 1 : (size_t)(slash - reg->path);
    if (try_folder(e, reg->path, ini_dir_len, name, &s)) return TP_OK;
    const char *dirs = getenv("TILEPIPE_PLUGIN_PATH");
    while (dirs && *dirs) {
      size_t len = strcspn(dirs, ":");
      if (len && try_folder(e, dirs, len, name, &s)) return TP_OK;
      dirs += len + (dirs[len] == ':');
    }
    if (try_folder(e, TP_PLUGIN_DIR, strlen(TP_PLUGIN_DIR), name, &s)) return TP_OK;
  }
  if (s.odd[0])
    return mark_broken(e, reg, TP_ERR_PLUGIN, line, "library '%s': %s, not a shared library; "
                       "tried %s", name, s.odd, s.tried.buf);
  return mark_broken(e, reg, TP_ERR_NOT_FOUND, line, "library '%s' not found; tried %s", name,
                     s.tried.buf);
}

/* Load, init, tuning keys. On failure the entry is broken and unloaded. */
static void load_entry(tp_registry_entry *e, const tp_registry *reg) {
  const tp_ini_section *s = e->section;
  int library_line = find_key(s, "library")->line;
  if (resolve_library(e, reg, library_line) != TP_OK) return;
  if (!e->library) {
    mark_broken(e, reg, TP_ERR_OUT_OF_MEMORY, library_line, "out of memory");
    return;
  }
  tp_loaded_plugin *plugin = malloc(sizeof *plugin);
  tp_status st = plugin ? tp_loader_open(plugin, e->library, e->kind)
                        : tp_error_set(TP_ERR_OUT_OF_MEMORY, "out of memory");
  if (st != TP_OK) {
    free(plugin);
    mark_broken(e, reg, st, library_line, "%s", tp_error_message());
    return;
  }
  for (size_t k = 0; k < s->num_keys; k++) {
    const tp_ini_key *key = &s->keys[k];
    if (is_core_key(key->name)) continue;
    if (tp_loader_set_option(plugin, plugin->state, key->name, key->value) != TP_OK) {
      mark_broken(e, reg, TP_ERR_REGISTRY, key->line, "%s", tp_error_message());
      tp_loader_close(plugin);
      free(plugin);
      return;
    }
  }
  e->plugin = plugin;
}

static void build_entry(tp_registry *reg, size_t index) {
  tp_registry_entry *e = &reg->entries[index];
  e->section = &reg->ini->sections[index];
  e->enabled = 1;
  e->status = TP_OK;
  if (check_section_keys(e, reg) != TP_OK) return;
  size_t first = tp_name_index_find(&reg->names, e->section->name);
  if (first != index) {
    mark_broken(e, reg, TP_ERR_REGISTRY, e->section->line, "duplicate section [%s] (first at "
                "line %d)", e->section->name, reg->ini->sections[first].line);
    return;
  }
  if (e->enabled) load_entry(e, reg);
}

/* Names are what plans and tools refer to: [A-Za-z0-9_.-]+ (the reader has
 * already bounded their length). */
static tp_status check_section_names(const tp_ini_file *ini) {
  static const char allowed[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
  for (size_t i = 0; i < ini->num_sections; i++) {
    const tp_ini_section *s = &ini->sections[i];
    char quoted[TP_INI_QUOTE_MAX], shown[TP_ERROR_PATH_MAX];
    if (!*s->name || s->name[strspn(s->name, allowed)])
      return tp_error_set(TP_ERR_REGISTRY, "%s:%d: bad section name '%s': use 1 to %d of "
                          "A-Z a-z 0-9 _ . -", tp_error_path(ini->path, shown), s->line,
                          quote(s->name, quoted), TP_INI_MAX_NAME);
  }
  return TP_OK;
}

/* ----------------------------------------------------------------- the API */

tp_status tp_registry_open(tp_registry **registry, const char *path) {
  if (!registry) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "registry_open: registry is NULL");
  *registry = NULL;
  if (path && !*path) return tp_error_set(TP_ERR_INVALID_ARGUMENT, "registry_open: path is \"\"");
  char *file = NULL;
  tp_status st = path ? absolute_path(path, &file) : search_registry(&file);
  if (st != TP_OK) return st;
  tp_ini_file *ini = NULL;
  st = tp_ini_read(file, &ini);
  if (st == TP_OK) st = check_section_names(ini);
  tp_registry *reg = NULL;
  if (st == TP_OK) {
    reg = calloc(1, sizeof *reg);
    if (reg) reg->entries = calloc(ini->num_sections ? ini->num_sections : 1, sizeof *reg->entries);
    if (!reg || !reg->entries || tp_name_index_init(&reg->names, ini->num_sections) != 0)
      st = tp_error_set(TP_ERR_OUT_OF_MEMORY, "%s: out of memory for %zu plugins", file,
                        ini->num_sections);
  }
  if (st != TP_OK) {
    if (reg) {
      free(reg->entries);
      tp_name_index_free(&reg->names);
    }
    free(reg);
    tp_ini_free(ini);
    free(file);
    return st;
  }
  reg->magic = REGISTRY_MAGIC;
  atomic_init(&reg->holds, 1);
  atomic_init(&reg->closed, false);
  reg->path = file;
  tp_error_path(file, reg->shown);
  reg->ini = ini;
  reg->count = ini->num_sections;
  for (size_t i = 0; i < reg->count; i++) tp_name_index_add(&reg->names, ini->sections[i].name, i);
  for (size_t i = 0; i < reg->count; i++) build_entry(reg, i);
  *registry = reg;
  return TP_OK;
}

static bool is_open(const tp_registry *reg) { return reg && reg->magic == REGISTRY_MAGIC; }

static void registry_free(tp_registry *registry) {
  /* Reverse order: a plugin loaded later may rely on one loaded before. */
  for (size_t i = registry->count; i-- > 0;) {
    tp_registry_entry *e = &registry->entries[i];
    tp_loader_close(e->plugin);
    free(e->plugin);
    free(e->library);
    free(e->error);
  }
  registry->magic = 0;
  free(registry->entries);
  tp_name_index_free(&registry->names);
  tp_ini_free(registry->ini);
  free(registry->path);
  free(registry);
}

void tp_registry_hold(tp_registry *reg) { atomic_fetch_add(&reg->holds, 1); }

void tp_registry_release(tp_registry *reg) {
  if (atomic_fetch_sub(&reg->holds, 1) == 1) registry_free(reg);
}

bool tp_registry_closed(const tp_registry *reg) { return atomic_load(&reg->closed); }

void tp_registry_close(tp_registry *registry) {
  if (!is_open(registry) || atomic_exchange(&registry->closed, true)) return;
  tp_registry_release(registry);
}

const char *tp_registry_path(const tp_registry *registry) {
  return is_open(registry) ? registry->path : NULL;
}

size_t tp_registry_count(const tp_registry *registry) {
  return is_open(registry) ? registry->count : 0;
}

static void fill_info(const tp_registry *reg, const tp_registry_entry *e, tp_plugin_info *info) {
  const tp_plugin_desc *d = e->plugin ? &e->plugin->desc : NULL;
  *info = (tp_plugin_info){
      .name = e->section->name,
      .kind = e->kind,
      .library = e->library ? e->library : "",
      .version = d ? d->version : "",
      .plugin = d && d->name ? d->name : "",
      .enabled = e->enabled,
      .cuda_version = d ? d->cuda_version : 0,
      .has_device_code = d && tp_device_code_present(d),
      .status = e->status,
      .error = e->error ? e->error : e->status == TP_OK ? "" : "(no memory for the reason)",
      .ini_file = reg->path,
      .ini_line = e->section->line,
  };
}

/* The first entry called name (a later duplicate is broken anyway). */
static const tp_registry_entry *find_entry(const tp_registry *reg, const char *name) {
  size_t i = tp_name_index_find(&reg->names, name);
  return i == TP_NAME_INDEX_NONE ? NULL : &reg->entries[i];
}

/* ", "-separated names of the entries of `kind` (0: all), each once, up
 * to what the text holds. */
static void list_names(const tp_registry *reg, tp_plugin_kind kind, text *t) {
  for (size_t i = 0; i < reg->count && t->len < sizeof t->buf - 1; i++) {
    const tp_registry_entry *e = &reg->entries[i];
    if ((kind && e->kind != kind) || find_entry(reg, e->section->name) != e) continue;
    text_add(t, "%s%s", t->len ? ", " : "", e->section->name);
  }
  if (!t->len) text_add(t, "none");
}

tp_status tp_registry_get(const tp_registry *registry, size_t index, tp_plugin_info *info) {
  if (!registry || !info)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "registry_get: registry or info is NULL");
  if (!is_open(registry))
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "registry_get: not an open registry");
  if (index >= registry->count)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "registry_get: index %zu is out of range (%s "
                        "lists %zu plugins)", index, registry->shown, registry->count);
  fill_info(registry, &registry->entries[index], info);
  return TP_OK;
}

tp_status tp_registry_find(const tp_registry *registry, const char *name, tp_plugin_info *info) {
  if (!registry || !name || !info)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "registry_find: registry, name or info is NULL");
  if (!is_open(registry))
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "registry_find: not an open registry");
  const tp_registry_entry *e = find_entry(registry, name);
  if (!e) {
    text names = {.len = 0};
    list_names(registry, 0, &names);
    char quoted[TP_INI_QUOTE_MAX];
    return tp_error_set(TP_ERR_NOT_FOUND, "%s has no plugin '%s' (it lists: %s)", registry->shown,
                        quote(name, quoted), names.buf);
  }
  fill_info(registry, e, info);
  return TP_OK;
}

tp_status tp_registry_resolve(const tp_registry *reg, const char *name, tp_plugin_kind kind,
                              const tp_plugin_desc **desc, void **state) {
  if (!reg || !name || !desc || !state)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "registry_resolve: an argument is NULL");
  if (!is_open(reg) || tp_registry_closed(reg))
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "registry_resolve: not an open registry");
  const char *want = tp_plugin_kind_name(kind);
  const tp_registry_entry *e = find_entry(reg, name);
  if (!e) {
    text names = {.len = 0};
    list_names(reg, kind, &names);
    char quoted[TP_INI_QUOTE_MAX];
    return tp_error_set(TP_ERR_NOT_FOUND, "no %s plugin '%s' in %s (%s plugins there: %s)", want,
                        quote(name, quoted), reg->shown, want, names.buf);
  }
  if (e->kind && e->kind != kind)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "plugin '%s' is of kind %s, not %s (%s:%d)", name,
                        tp_plugin_kind_name(e->kind), want, reg->shown, e->section->line);
  if (e->status != TP_OK)
    return tp_error_set(e->status, "%s plugin '%s' is unusable: %s", want, name,
                        e->error ? e->error : "(no memory for the reason)");
  if (!e->enabled)
    return tp_error_set(TP_ERR_NOT_FOUND, "%s plugin '%s' is disabled (%s:%d)", want, name,
                        reg->shown, e->section->line);
  *desc = &e->plugin->desc;
  *state = e->plugin->state;
  return TP_OK;
}

/* ------------------------------------------------------- fresh states */

/* The longest tuning string a fresh state takes. */
#define TUNING_MAX 1024

/* s without its leading and trailing blanks, cut in place. */
static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = '\0';
  return s;
}

/* Each "key=value" of tuning handed to set_option on state. */
static tp_status apply_tuning(const tp_registry_entry *e, void *state, const char *tuning) {
  char buf[TUNING_MAX];
  if (strlen(tuning) >= sizeof buf)
    return tp_error_set(TP_ERR_REGISTRY, "tuning: %zu characters, more than %d", strlen(tuning),
                        TUNING_MAX - 1);
  snprintf(buf, sizeof buf, "%s", tuning);
  for (char *item = buf, *next; item != NULL; item = next) {
    next = strchr(item, ',');
    if (next) *next++ = '\0';
    char *eq = strchr(item, '=');
    if (eq == NULL)
      return tp_error_set(TP_ERR_REGISTRY, "tuning '%s': '%s' is not key=value", tuning,
                          trim(item));
    *eq = '\0';
    char *key = trim(item), *value = trim(eq + 1);
    if (!*key || is_core_key(key))
      return tp_error_set(TP_ERR_REGISTRY, "tuning '%s': '%s' is no tuning key (kind, "
                          "library and enabled are the registry's)", tuning, key);
    if (tp_loader_set_option(e->plugin, state, key, value) != TP_OK)
      return tp_error_wrap(TP_ERR_REGISTRY, "tuning '%s'", tuning);
  }
  return TP_OK;
}

tp_status tp_registry_state_fresh(const tp_registry *reg, const char *name, tp_plugin_kind kind,
                                  const char *tuning, void **state) {
  const tp_plugin_desc *desc;
  void *own;
  tp_status st = tp_registry_resolve(reg, name, kind, &desc, &own);
  if (st != TP_OK) return st;
  if (!tuning)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "fresh state of '%s': tuning is NULL", name);
  const tp_registry_entry *e = find_entry(reg, name);
  const tp_ini_section *s = e->section;
  st = tp_loader_init(e->plugin, e->library, state);
  for (size_t k = 0; k < s->num_keys && st == TP_OK; k++) {
    const tp_ini_key *key = &s->keys[k];
    if (is_core_key(key->name)) continue;
    if (tp_loader_set_option(e->plugin, *state, key->name, key->value) != TP_OK)
      st = tp_error_wrap(TP_ERR_REGISTRY, "%s:%d", reg->shown, key->line);
  }
  if (st == TP_OK && *tuning) st = apply_tuning(e, *state, tuning);
  if (st != TP_OK) {
    tp_registry_state_free(reg, name, *state);
    *state = NULL;
  }
  return st;
}

void tp_registry_state_free(const tp_registry *reg, const char *name, void *state) {
  const tp_registry_entry *e = reg && name ? find_entry(reg, name) : NULL;
  if (e && e->plugin) tp_loader_fini(e->plugin, state);
}
