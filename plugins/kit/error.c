/* plugins/kit/error.c: see tilepipe/plugin/kit/error.h. */
#include <stdarg.h>
#include <stdio.h>

#include "tilepipe/plugin/kit/error.h"

tp_status tp_kit_fail(char *err, size_t errlen, tp_status status, const char *fmt, ...) {
  if (err != NULL && errlen > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return status;
}
