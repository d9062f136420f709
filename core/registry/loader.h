/* core/registry/loader.h: loads one plugin library and checks it against the
 * ABI of tilepipe/plugin/abi.h.
 *
 * The core never reads a plugin's structs beyond the struct_size the plugin
 * reports: tp_loaded_plugin keeps copies of the descriptor and of its ops
 * table (zero-filled past the plugin's size), and desc.payload or
 * desc.epilogue point at those copies. So a tp_loaded_plugin must stay where
 * it is (not be copied or moved) while loaded. */
#ifndef TP_CORE_REGISTRY_LOADER_H
#define TP_CORE_REGISTRY_LOADER_H

#include "tilepipe/plugin/abi.h"

typedef struct tp_loaded_plugin {
  void *handle;                /* dlopen's; NULL when nothing is loaded */
  tp_plugin_desc desc;         /* the checked copy the core uses */
  tp_payload_ops payload_ops;  /* copy behind desc.payload (payload plugins) */
  tp_epilogue_ops epilogue_ops;/* copy behind desc.epilogue (epilogue plugins) */
  void *state;                 /* what init returned for this registry section */
} tp_loaded_plugin;

/* dlopens library (RTLD_NOW | RTLD_LOCAL), calls its TP_PLUGIN_ENTRY_NAME,
 * checks the descriptor (size, ABI, name, kind == `kind`, the kind's ops and
 * their required slots) and runs init. On failure nothing stays loaded,
 * *plugin is zeroed and the message says why: TP_ERR_PLUGIN. */
tp_status tp_loader_open(tp_loaded_plugin *plugin, const char *library, tp_plugin_kind kind);

/* Runs the loaded plugin's init for a state of one registry section (the
 * section's own, made by tp_loader_open, or one more: core/registry/
 * registry.c's fresh states); *state is NULL when it has no init. On
 * failure TP_ERR_PLUGIN, naming the plugin and library. */
tp_status tp_loader_init(const tp_loaded_plugin *plugin, const char *library, void **state);

/* The plugin's fini on a state tp_loader_init made (a no-op without one). */
void tp_loader_fini(const tp_loaded_plugin *plugin, void *state);

/* Hands one tuning key to the plugin's set_option for `state`.
 * TP_ERR_NOT_FOUND: the plugin does not know the key (or takes none);
 * TP_ERR_INVALID_ARGUMENT: it refused the value. The message carries the
 * plugin's reason. */
tp_status tp_loader_set_option(const tp_loaded_plugin *plugin, void *state, const char *key,
                               const char *value);

/* fini, then dlclose; *plugin is zeroed. A plugin not loaded is a no-op. */
void tp_loader_close(tp_loaded_plugin *plugin);

#endif
