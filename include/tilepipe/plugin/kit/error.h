/* tilepipe/plugin/kit/error.h: how a plugin slot reports a failure.
 *
 *     return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED, "A is %s; ...", name);
 *
 * writes the one-line reason into the caller's buffer (truncated, always
 * NUL-terminated, as abi.h asks) and returns the status, so a failing
 * path is one line. The core prefixes the plugin's name (and, for a tuning
 * key, the INI file and line); messages start with the tensor or key they
 * are about. Part of the plugin kit (libtilepipe_kit, `pkg-config --libs
 * tilepipe-kit`): plugins never link libtilepipe, whose own error state is
 * the core's. */
#ifndef TILEPIPE_PLUGIN_KIT_ERROR_H
#define TILEPIPE_PLUGIN_KIT_ERROR_H

#include <stddef.h>

#include "tilepipe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TP_KIT_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TP_KIT_PRINTF(fmt, args)
#endif

/* Formats the reason into err (nothing where err is NULL or errlen 0) and
 * returns status. */
tp_status tp_kit_fail(char *err, size_t errlen, tp_status status, const char *fmt, ...)
    TP_KIT_PRINTF(4, 5);

#ifdef __cplusplus
}
#endif

#endif
