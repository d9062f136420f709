/* core/error.h: how the core reports a failure.
 *
 *     return tp_error_set(TP_ERR_INVALID_ARGUMENT, "plan: A is NULL");
 *
 * stores the message for tp_error_message() on the calling thread and returns
 * the status, so a failing path is one line. Internal to libtilepipe. */
#ifndef TP_CORE_ERROR_H
#define TP_CORE_ERROR_H

#include "tilepipe/status.h"

#if defined(__GNUC__)
#define TP_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TP_PRINTF(fmt, args)
#endif

/* Sets the calling thread's message (printf-style) and returns status. */
tp_status tp_error_set(tp_status status, const char *fmt, ...) TP_PRINTF(2, 3);

/* Prefixes the current message with "prefix: " (for context added on the
 * way up) and returns status. */
tp_status tp_error_wrap(tp_status status, const char *fmt, ...) TP_PRINTF(2, 3);

/* A plugin slot's failure (status != TP_OK) as the library's: the
 * message is "kind 'name': err" (the status's words when err is ""); a
 * status that is no tp_status failure (a plugin's bug) becomes
 * TP_ERR_PLUGIN, "kind 'name': its SLOT slot returned 999, which is no
 * tilepipe status (err)", so callers only ever see the library's
 * statuses. kind NULL: no "kind 'name': " prefix, for a caller whose own
 * message names the plugin. */
tp_status tp_error_slot(tp_status status, const char *kind, const char *name, const char *slot,
                        const char *err);

/* The longest path a message quotes, its NUL included. */
#define TP_ERROR_PATH_MAX 256

/* path as a message quotes it: as it is when it fits TP_ERROR_PATH_MAX,
 * else its head and its tail around "...", so that what the message says
 * after the path ("file:12: why") still fits the thread's message. Returns
 * buf. */
const char *tp_error_path(const char *path, char buf[TP_ERROR_PATH_MAX]);

#endif
