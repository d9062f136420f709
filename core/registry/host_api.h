/* core/registry/host_api.h: the core's side of the plugin ABI, the one
 * tp_host_api table every plugin receives (in its entry function and init).
 * The table is static and constant: plugins may keep the pointer for as long
 * as they are loaded. */
#ifndef TP_CORE_REGISTRY_HOST_API_H
#define TP_CORE_REGISTRY_HOST_API_H

#include "tilepipe/plugin/abi.h"

const tp_host_api *tp_host_api_get(void);

#endif
