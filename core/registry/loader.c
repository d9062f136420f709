/* core/registry/loader.c: dlopen, the ABI checks of a plugin descriptor, init,
 * set_option, and unloading (fini before dlclose, so the plugin frees its
 * state with its own code still mapped).
 *
 * Checks run in an order where each one only reads what the previous ones
 * proved is there: struct_size (always present) says whether the ABI version
 * can be read; the version says whether the layout is one we know; only then
 * is the descriptor copied and its fields trusted, its device code fields
 * last (device_code.h). */
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#include "core/error.h"
#include "core/registry/device_code.h"
#include "core/registry/host_api.h"
#include "core/registry/loader.h"

/* Where a field ends: the least struct_size that contains it. */
#define END_OF(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

/* A plugin's reason, as long as the core keeps it. */
#define PLUGIN_ERR_MAX 256

/* A plugin's struct must reach past every field the core requires; the
 * optional fields after them (device_image, device_images, the GPU slots,
 * the problem slot) read as NULL when its struct_size stops short of them. Minors only append,
 * so this holds for every plugin of our major. */
static const size_t desc_required_size = END_OF(tp_plugin_desc, epilogue);

/* The ops table of one kind: the slots the core requires (all must be set)
 * and the struct_size that holds them. */
typedef struct ops_layout {
  size_t required_size;
  size_t num_slots;
  struct { const char *name; size_t offset; } slots[3];
} ops_layout;

static const ops_layout payload_layout = {
    END_OF(tp_payload_ops, cpu_mma), 3,
    {{"plan", offsetof(tp_payload_ops, plan)},
     {"cpu_load", offsetof(tp_payload_ops, cpu_load)},
     {"cpu_mma", offsetof(tp_payload_ops, cpu_mma)}}};

static const ops_layout epilogue_layout = {
    END_OF(tp_epilogue_ops, cpu_apply), 2,
    {{"plan", offsetof(tp_epilogue_ops, plan)},
     {"cpu_apply", offsetof(tp_epilogue_ops, cpu_apply)}}};

/* Copies the plugin's struct up to its own size; the rest of ours is zero. */
static void copy_prefix(void *dst, size_t dst_size, const void *src, size_t src_size) {
  memset(dst, 0, dst_size);
  memcpy(dst, src, src_size < dst_size ? src_size : dst_size);
}

/* Checks the ops table `ops` of the kind `layout` describes and copies it to
 * `copy` (copy_size bytes). Both ops structs begin with uint32_t struct_size. */
static tp_status copy_ops(const char *library, const char *kind, const ops_layout *layout,
                          const void *ops, void *copy, size_t copy_size) {
  if (!ops) return tp_error_set(TP_ERR_PLUGIN, "'%s': its %s ops table is NULL", library, kind);
  uint32_t size;
  memcpy(&size, ops, sizeof size);
  if (size < layout->required_size)
    return tp_error_set(TP_ERR_PLUGIN, "'%s': %s ops struct_size %u is too small for the "
                        "required slots (%zu bytes)", library, kind, size, layout->required_size);
  copy_prefix(copy, copy_size, ops, size);
  for (size_t i = 0; i < layout->num_slots; i++) {
    void (*slot)(void);
    memcpy(&slot, (const char *)copy + layout->slots[i].offset, sizeof slot);
    if (!slot)
      return tp_error_set(TP_ERR_PLUGIN, "'%s': required %s ops slot '%s' is NULL", library, kind,
                          layout->slots[i].name);
  }
  return TP_OK;
}

/* The descriptor checks; p->desc is the checked copy when this returns TP_OK. */
static tp_status check_desc(tp_loaded_plugin *p, const tp_plugin_desc *d, const char *library,
                            tp_plugin_kind kind) {
  uint32_t size = d->struct_size;
  if (size < END_OF(tp_plugin_desc, abi_minor))
    return tp_error_set(TP_ERR_PLUGIN, "'%s': descriptor struct_size %u is too small to hold "
                        "even the ABI version", library, size);
  if (d->abi_major != TP_PLUGIN_ABI_MAJOR)
    return tp_error_set(TP_ERR_PLUGIN, "'%s' is built for plugin ABI %u.%u, this tilepipe has "
                        "ABI %d.%d (the major versions differ)", library, d->abi_major,
                        d->abi_minor, TP_PLUGIN_ABI_MAJOR, TP_PLUGIN_ABI_MINOR);
  if (d->abi_minor > TP_PLUGIN_ABI_MINOR)
    return tp_error_set(TP_ERR_PLUGIN, "'%s' needs plugin ABI %u.%u, newer than this "
                        "tilepipe's ABI %d.%d", library, d->abi_major, d->abi_minor,
                        TP_PLUGIN_ABI_MAJOR, TP_PLUGIN_ABI_MINOR);
  if (size < desc_required_size)
    return tp_error_set(TP_ERR_PLUGIN, "'%s': descriptor struct_size %u is too small for the "
                        "required fields (%zu bytes)", library, size, desc_required_size);
  copy_prefix(&p->desc, sizeof p->desc, d, size);
  tp_plugin_desc *c = &p->desc;
  if (!c->name || !*c->name || !c->version)
    return tp_error_set(TP_ERR_PLUGIN, "'%s': descriptor lacks its name or version", library);
  if (c->kind != kind)
    return tp_error_set(TP_ERR_PLUGIN, "'%s' (plugin '%s') is of kind %s, but the registry "
                        "says kind = %s", library, c->name, tp_plugin_kind_name(c->kind),
                        tp_plugin_kind_name(kind));
  if (kind == TP_PLUGIN_PAYLOAD) {
    if (c->epilogue)
      return tp_error_set(TP_ERR_PLUGIN, "'%s' (plugin '%s') declares kind payload but carries "
                          "epilogue ops", library, c->name);
    c->payload = &p->payload_ops;
    return copy_ops(library, "payload", &payload_layout, d->payload, &p->payload_ops,
                    sizeof p->payload_ops);
  }
  if (c->payload)
    return tp_error_set(TP_ERR_PLUGIN, "'%s' (plugin '%s') declares kind epilogue but carries "
                        "payload ops", library, c->name);
  c->epilogue = &p->epilogue_ops;
  return copy_ops(library, "epilogue", &epilogue_layout, d->epilogue, &p->epilogue_ops,
                  sizeof p->epilogue_ops);
}

static tp_status entry_and_init(tp_loaded_plugin *p, void *handle, const char *library,
                                tp_plugin_kind kind) {
  dlerror();
  void *sym = dlsym(handle, TP_PLUGIN_ENTRY_NAME);
  const char *why = dlerror();
  if (why || !sym)
    return tp_error_set(TP_ERR_PLUGIN, "'%s' is not a tilepipe plugin: no %s symbol (%s)",
                        library, TP_PLUGIN_ENTRY_NAME, why ? why : "it is NULL");
  tp_plugin_entry_fn entry = (tp_plugin_entry_fn)sym;
  const tp_plugin_desc *desc = entry(tp_host_api_get());
  if (!desc)
    return tp_error_set(TP_ERR_PLUGIN, "'%s': %s() returned NULL", library, TP_PLUGIN_ENTRY_NAME);
  tp_status st = check_desc(p, desc, library, kind);
  if (st == TP_OK) st = tp_device_code_check(&p->desc, library);
  if (st == TP_OK) st = tp_loader_init(p, library, &p->state);
  return st;
}

tp_status tp_loader_init(const tp_loaded_plugin *plugin, const char *library, void **state) {
  *state = NULL;
  if (!plugin->desc.init) return TP_OK;
  char err[PLUGIN_ERR_MAX] = "";
  tp_status st = plugin->desc.init(tp_host_api_get(), state, err, sizeof err);
  err[sizeof err - 1] = '\0';
  if (st != TP_OK) {
    *state = NULL;
    return tp_error_set(TP_ERR_PLUGIN, "plugin '%s' (%s): init failed: %s", plugin->desc.name,
                        library, *err ? err : "(no reason given)");
  }
  return TP_OK;
}

void tp_loader_fini(const tp_loaded_plugin *plugin, void *state) {
  if (plugin->desc.fini) plugin->desc.fini(state);
}

tp_status tp_loader_open(tp_loaded_plugin *plugin, const char *library, tp_plugin_kind kind) {
  if (!plugin || !library)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "loader: plugin or library is NULL");
  memset(plugin, 0, sizeof *plugin);
  void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return tp_error_set(TP_ERR_PLUGIN, "cannot load '%s': %s", library, dlerror());
  tp_status st = entry_and_init(plugin, handle, library, kind);
  if (st != TP_OK) {
    dlclose(handle);
    memset(plugin, 0, sizeof *plugin);
    return st;
  }
  plugin->handle = handle;
  return TP_OK;
}

tp_status tp_loader_set_option(const tp_loaded_plugin *plugin, void *state, const char *key,
                               const char *value) {
  const char *name = plugin->desc.name;
  if (!plugin->desc.set_option)
    return tp_error_set(TP_ERR_NOT_FOUND, "plugin '%s' takes no tuning keys, so not '%s'", name,
                        key);
  char err[PLUGIN_ERR_MAX] = "";
  tp_status st = plugin->desc.set_option(state, key, value, err, sizeof err);
  err[sizeof err - 1] = '\0';
  const char *why = *err ? err : "(no reason given)";
  if (st == TP_OK) return TP_OK;
  if (st == TP_ERR_NOT_FOUND)
    return tp_error_set(TP_ERR_NOT_FOUND, "plugin '%s' has no tuning key '%s': %s", name, key,
                        why);
  return tp_error_set(TP_ERR_INVALID_ARGUMENT, "plugin '%s' refused %s = %s: %s", name, key,
                      value, why);
}

void tp_loader_close(tp_loaded_plugin *plugin) {
  if (!plugin || !plugin->handle) return;
  tp_loader_fini(plugin, plugin->state);
  dlclose(plugin->handle);
  memset(plugin, 0, sizeof *plugin);
}
