/* tilepipe/registry.h: the INI registry of plugins.
 *
 * A registry is an INI file with one section per plugin (docs/registry.md):
 *
 *     [standard]
 *     kind = payload
 *     library = plugins/libtp_standard.so
 *     enabled = true
 *     stages = 4            ; tuning keys: validated by the plugin
 *
 * tp_registry_open fails only when the file cannot be read, is not valid INI
 * or names a section badly (the message gives file:line). A section whose
 * kind, library or enabled key is wrong, whose library is missing or
 * refused, or whose keys the plugin rejects, stays in the registry marked
 * broken with its reason and line; the other plugins remain usable. */
#ifndef TILEPIPE_REGISTRY_H
#define TILEPIPE_REGISTRY_H

#include <stddef.h>
#include "tilepipe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_registry tp_registry;

typedef enum tp_plugin_kind {
  TP_PLUGIN_PAYLOAD = 1,  /* what the mainloop moves and multiplies */
  TP_PLUGIN_EPILOGUE = 2  /* what happens to the accumulators */
} tp_plugin_kind;

/* "payload", "epilogue", "?" */
const char *tp_plugin_kind_name(tp_plugin_kind kind);

/* What the registry knows of one plugin. Strings belong to the registry. */
typedef struct tp_plugin_info {
  const char *name;        /* the section name */
  tp_plugin_kind kind;     /* as the INI declares it */
  const char *library;     /* the path that was (or would be) opened */
  const char *version;     /* the plugin's own version; "" when not loaded */
  const char *plugin;      /* the plugin's own name (its descriptor's, e.g. "blockwise_fp8"),
                              whatever the section is called; "" when not loaded */
  int enabled;             /* the INI's enabled key; a disabled plugin is not loaded */
  int cuda_version;        /* toolkit of its device code (13000 = 13.0); 0: none */
  int has_device_code;     /* carries LTO-IR for the GPU backend */
  tp_status status;        /* TP_OK when nothing is wrong (usable if also enabled) */
  const char *error;       /* "file:line: why" when status is not TP_OK; else "" */
  const char *ini_file;    /* where the section is */
  int ini_line;
} tp_plugin_info;

/* Opens a registry. path == NULL searches, in order: $TILEPIPE_REGISTRY,
 * ./tilepipe.ini, then the installed $(sysconfdir)/tilepipe/registry.ini; the
 * first that exists is read (TP_ERR_NOT_FOUND, naming every place, if none).
 * Relative library paths resolve against the INI file's folder first, then
 * each folder of $TILEPIPE_PLUGIN_PATH (colon-separated), then the installed
 * plugin folder ("name" also tries "name.so"). Enabled plugins are loaded and
 * initialised here. tp_registry_path() is absolute. A file holds at most
 * 100,000 sections and 1,000,000 keys (docs/registry.md, "Limits");
 * opening costs time linear in the file, finding a name constant time. */
tp_status tp_registry_open(tp_registry **registry, const char *path);

/* Unloads every plugin (calling its fini first) and frees the registry.
 * Call it once per registry (a handle closed already is freed memory), and
 * destroy the plans made from it before: a plan still alive keeps the
 * plugins loaded until it is destroyed, and every run of it is refused
 * (TP_ERR_INVALID_ARGUMENT, "the plan's registry is closed"). The handle
 * must not be used after this call. NULL is a no-op. */
void tp_registry_close(tp_registry *registry);

/* The file the registry was read from. */
const char *tp_registry_path(const tp_registry *registry);

size_t tp_registry_count(const tp_registry *registry);

/* Fills *info for plugin `index` (in file order) or for the plugin `name`. */
tp_status tp_registry_get(const tp_registry *registry, size_t index, tp_plugin_info *info);
tp_status tp_registry_find(const tp_registry *registry, const char *name, tp_plugin_info *info);

#ifdef __cplusplus
}
#endif
#endif
