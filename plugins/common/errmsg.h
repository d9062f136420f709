/* plugins/common/errmsg.h: how a plugin slot reports a failure.
 *
 *     return tpc_fail(err, errlen, TP_ERR_UNSUPPORTED, "A is %s; ...", name);
 *
 * writes the one-line reason into the caller's buffer (truncated, always
 * NUL-terminated, as plugin.h asks) and returns the status, so a failing path
 * is one line. The core prefixes the plugin's name; messages start with the
 * tensor or key they are about. Plugins cannot use core/error.h: they never
 * link libtilepipe. */
#ifndef TP_PLUGINS_COMMON_ERRMSG_H
#define TP_PLUGINS_COMMON_ERRMSG_H

#include <stddef.h>
#include "tilepipe/status.h"

#if defined(__GNUC__)
#define TPC_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TPC_PRINTF(fmt, args)
#endif

tp_status tpc_fail(char *err, size_t errlen, tp_status status, const char *fmt, ...)
    TPC_PRINTF(4, 5);

#endif
