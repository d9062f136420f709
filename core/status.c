/* core/status.c: status strings and the per-thread last-error message. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"

/* Long enough for a path, a line number and a sentence. */
#define TP_ERROR_MESSAGE_MAX 1024

static _Thread_local char last_message[TP_ERROR_MESSAGE_MAX];

const char *tp_status_string(tp_status status) {
  switch (status) {
  case TP_OK: return "ok";
  case TP_ERR_INVALID_ARGUMENT: return "invalid argument";
  case TP_ERR_UNSUPPORTED: return "unsupported";
  case TP_ERR_NOT_FOUND: return "not found";
  case TP_ERR_REGISTRY: return "registry error";
  case TP_ERR_PLUGIN: return "plugin refused";
  case TP_ERR_NO_DEVICE: return "no CUDA device";
  case TP_ERR_CUDA: return "CUDA driver error";
  case TP_ERR_LINK: return "device link error";
  case TP_ERR_OUT_OF_MEMORY: return "out of memory";
  case TP_ERR_IO: return "I/O error";
  case TP_ERR_INTERNAL: return "internal error";
  case TP_STATUS_COUNT: break;
  }
  return "unknown status";
}

const char *tp_error_message(void) { return last_message; }

tp_status tp_error_set(tp_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_message, sizeof last_message, fmt, ap);
  va_end(ap);
  return status;
}

tp_status tp_error_wrap(tp_status status, const char *fmt, ...) {
  char prefix[256];
  char old[TP_ERROR_MESSAGE_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  memcpy(old, last_message, sizeof old);
  snprintf(last_message, sizeof last_message, "%s: %s", prefix, old);
  return status;
}

const char *tp_error_path(const char *path, char buf[TP_ERROR_PATH_MAX]) {
  size_t len = strlen(path);
  if (len < TP_ERROR_PATH_MAX) {
    memcpy(buf, path, len + 1);
    return buf;
  }
  /* 64 + 3 + 188 chars + NUL: the head says where, the tail which file. */
  enum { HEAD = 64, TAIL = TP_ERROR_PATH_MAX - 1 - HEAD - 3 };
  memcpy(buf, path, HEAD);
  memcpy(buf + HEAD, "...", 3);
  memcpy(buf + HEAD + 3, path + len - TAIL, TAIL + 1);
  return buf;
}

tp_status tp_error_slot(tp_status status, const char *kind, const char *name, const char *slot,
                        const char *err) {
  char who[128] = "";
  if (kind) snprintf(who, sizeof who, "%s '%s': ", kind, name);
  if (status > TP_OK && status < TP_STATUS_COUNT)
    return tp_error_set(status, "%s%s", who, err[0] ? err : tp_status_string(status));
  return tp_error_set(TP_ERR_PLUGIN, "%sits %s slot returned %d, which is no tilepipe status (%s)",
                      who, slot, (int)status, err[0] ? err : "no reason given");
}
