/* core/registry/registry_internal.h: what the rest of the core (plans) needs
 * from a registry beyond the public API. Internal to libtilepipe. */
#ifndef TP_CORE_REGISTRY_INTERNAL_H
#define TP_CORE_REGISTRY_INTERNAL_H

#include <stdbool.h>

#include "tilepipe/plugin/abi.h"
#include "tilepipe/registry.h"

/* A plan's hold on the open registry it was made from: the registry's
 * plugins stay loaded, and its memory valid, until every hold is released,
 * tp_registry_close giving up only the handle's. Thread-safe. */
void tp_registry_hold(tp_registry *reg);
void tp_registry_release(tp_registry *reg);

/* Whether tp_registry_close was called on reg (which a hold keeps
 * readable): a plan refuses to run then. */
bool tp_registry_closed(const tp_registry *reg);

/* The loaded plugin `name` of `kind`: its checked descriptor (desc->payload or
 * desc->epilogue is set, with every required slot) and the state its init
 * made for that registry section. Both stay valid until tp_registry_close.
 * Fails, with a message naming the registry file and line where there is
 * one, for: an unknown name (TP_ERR_NOT_FOUND; the message lists the names of
 * that kind), a plugin of the other kind (TP_ERR_INVALID_ARGUMENT), a broken
 * one (its own status and reason), a disabled one (TP_ERR_NOT_FOUND). */
tp_status tp_registry_resolve(const tp_registry *reg, const char *name, tp_plugin_kind kind,
                              const tp_plugin_desc **desc, void **state);

/* A state of section `name` of `kind` of its own, for one plan or link that
 * must differ from the section's (tilepipe/link.h's tp_link_check_with):
 * the plugin's init, the section's tuning keys replayed in file order,
 * then those of `tuning` ("key=value,key=value", blanks around either
 * ignored; "" for none), each through set_option as an INI key after the
 * section's. The section's own state is never touched. Fails as
 * tp_registry_resolve does, as the plugin's init does, and with
 * TP_ERR_REGISTRY, as a refused key breaks a section, naming the key the
 * plugin refuses or the text that is no "key=value" (file:line for the
 * section's keys; "tuning '...'" for the others); *state is then NULL.
 * Free it with tp_registry_state_free. */
tp_status tp_registry_state_fresh(const tp_registry *reg, const char *name, tp_plugin_kind kind,
                                  const char *tuning, void **state);

/* The plugin's fini on a state tp_registry_state_fresh made. */
void tp_registry_state_free(const tp_registry *reg, const char *name, void *state);

#endif
