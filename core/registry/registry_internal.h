/* core/registry/registry_internal.h: what the rest of the core (plans) needs
 * from a registry beyond the public API. Internal to libtilepipe. */
#ifndef TP_CORE_REGISTRY_INTERNAL_H
#define TP_CORE_REGISTRY_INTERNAL_H

#include "tilepipe/plugin.h"
#include "tilepipe/registry.h"

/* The loaded plugin `name` of `kind`: its checked descriptor (desc->payload or
 * desc->epilogue is set, with every required slot) and the state its init
 * made for that registry section. Both stay valid until tp_registry_close.
 * Fails, with a message naming the registry file and line where there is
 * one, for: an unknown name (TP_ERR_NOT_FOUND; the message lists the names of
 * that kind), a plugin of the other kind (TP_ERR_INVALID_ARGUMENT), a broken
 * one (its own status and reason), a disabled one (TP_ERR_NOT_FOUND). */
tp_status tp_registry_resolve(const tp_registry *reg, const char *name, tp_plugin_kind kind,
                              const tp_plugin_desc **desc, void **state);

#endif
