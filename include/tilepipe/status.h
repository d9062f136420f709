/* tilepipe/status.h: status codes and the per-thread message of the last error.
 *
 * Every entry point returns a tp_status. On failure it also leaves a message
 * for the calling thread that names the problem ("plan: A's row stride 100 is
 * not a multiple of 8 elements (TMA needs 16-byte rows)"); registry errors
 * name the file and line. The message stays until the thread's next failing
 * call; successful calls do not clear it. */
#ifndef TILEPIPE_STATUS_H
#define TILEPIPE_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tp_status {
  TP_OK = 0,
  TP_ERR_INVALID_ARGUMENT, /* NULL pointer, zero or negative size, bad stride, bad alignment */
  TP_ERR_UNSUPPORTED,      /* valid request that this payload/epilogue/backend does not take */
  TP_ERR_NOT_FOUND,        /* no such plugin, file or registry entry */
  TP_ERR_REGISTRY,         /* malformed registry (the message gives file and line) */
  TP_ERR_PLUGIN,           /* a library refused as a plugin (not one, ABI, kind, init failure) */
  TP_ERR_NO_DEVICE,        /* CUDA asked for, but no driver or no usable GPU */
  TP_ERR_CUDA,             /* the CUDA driver returned an error */
  TP_ERR_LINK,             /* nvJitLink failed, or its log shows a forbidden diagnostic */
  TP_ERR_OUT_OF_MEMORY,
  TP_ERR_IO,               /* a file could not be read or written */
  TP_ERR_INTERNAL,         /* a bug in tilepipe: please report it */
  TP_STATUS_COUNT
} tp_status;

/* A short constant description of a status ("invalid argument"); never NULL. */
const char *tp_status_string(tp_status status);

/* The calling thread's message for its most recent failure; "" if none yet.
 * The pointer stays valid until the thread's next tilepipe call. */
const char *tp_error_message(void);

#ifdef __cplusplus
}
#endif
#endif
