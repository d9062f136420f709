/* plugins/common/errmsg.c: see errmsg.h. */
#include <stdarg.h>
#include <stdio.h>

#include "plugins/common/errmsg.h"

tp_status tpc_fail(char *err, size_t errlen, tp_status status, const char *fmt, ...) {
  if (err != NULL && errlen > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return status;
}
