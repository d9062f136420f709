/* core/backend/cuda/device_choice.h: which GPU a call works on, as pure
 * decisions over ordinals, apart from the driver that supplies them (so
 * that they are tested without one).
 *
 * A plan belongs to the device of the calling thread's current CUDA context
 * when it is created, or, with no context current, to the default device:
 * $TILEPIPE_DEVICE, else 0. Work that belongs to a device (a plan, a loaded
 * kernel) runs under a context of that device or under none (the device's
 * primary context is then made current); under another device's context it
 * is refused. Internal to libtilepipe. */
#ifndef TP_CORE_BACKEND_CUDA_DEVICE_CHOICE_H
#define TP_CORE_BACKEND_CUDA_DEVICE_CHOICE_H

#include "tilepipe/status.h"

/* No context is current on the calling thread. */
#define TP_CUDA_NO_CONTEXT (-1)

/* The default device among count: env is $TILEPIPE_DEVICE's value (NULL or
 * "": unset, device 0). TP_ERR_NO_DEVICE when count is 0;
 * TP_ERR_INVALID_ARGUMENT, naming the value and the valid range, when env
 * is not a decimal ordinal below count. */
tp_status tp_cuda_default_ordinal(const char *env, int count, int *ordinal);

/* The device that work belonging to device owner runs on when the calling
 * thread's current context is on device current (TP_CUDA_NO_CONTEXT:
 * none): TP_OK, and owner, when current is owner or no context; else
 * TP_ERR_INVALID_ARGUMENT, the message saying that what ("run: the plan")
 * belongs to owner while the current context is on current. */
tp_status tp_cuda_device_for(const char *what, int owner, int current);

#endif
