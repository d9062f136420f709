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

#endif
