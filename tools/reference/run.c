/* tools/reference/run.c: running a problem (tilepipe/reference.h): its
 * copy in device memory, a run of a plan on either backend through
 * libtilepipe's public device API (tilepipe/device.h), and a case planned,
 * run and judged in one call.
 *
 * The copy has a device buffer per host buffer, of the same size and
 * contents (padding included), so the device descriptor has the same
 * shapes and strides as the host one and only its pointers differ: each
 * tensor points at the same offset in the device buffer as in the host
 * buffer it points into (C living in D's buffer lives in D's copy). */
#include <string.h>

#include "tilepipe/device.h"
#include "tools/reference/internal.h"

static const char *const names[TP_REF_TENSORS] = {"A", "B", "a_scale", "b_scale", "C", "D",
                                                  "bias"};

/* err <- what failed: the device API's message. */
static tp_status device_failed(tp_status st, const char *what, char *err, size_t errlen) {
  tp_ref_fail(err, errlen, "%s: %s", what, tp_error_message());
  return st;
}

/* Which buffer host pointer `host` of tensor `which` lies in, and where:
 * its index into *buffer and its offset into *offset; -1 for a NULL
 * pointer. */
static tp_status locate(const tp_ref_problem *p, int which, const void *host, int *buffer,
                        int64_t *offset, char *err, size_t errlen) {
  *buffer = -1;
  *offset = 0;
  if (host == NULL) return TP_OK;
  for (int i = 0; i < TP_REF_TENSORS; i++) {
    const char *base = p->buffer[i];
    if (base == NULL || (const char *)host < base || (const char *)host >= base + p->bytes[i])
      continue;
    *buffer = i;
    *offset = (const char *)host - base;
    return TP_OK;
  }
  tp_ref_fail(err, errlen, "upload: %s points outside the problem's buffers", names[which]);
  return TP_ERR_INVALID_ARGUMENT;
}

tp_status tp_ref_problem_upload(tp_ref_problem *p, char *err, size_t errlen) {
  int buffer[TP_REF_TENSORS];
  int64_t offset[TP_REF_TENSORS];
  tp_status st = TP_OK;
  for (int i = 0; i < TP_REF_TENSORS && st == TP_OK; i++)
    st = locate(p, i, tp_ref_desc_tensor(&p->desc, (tp_ref_tensor)i)->data, &buffer[i],
                &offset[i], err, errlen);
  if (st != TP_OK) return st;
  for (int i = 0; i < TP_REF_TENSORS && st == TP_OK && !p->uploaded; i++)
    if (p->buffer[i] != NULL) st = tp_device_alloc(&p->device[i], (size_t)p->bytes[i]);
  if (st != TP_OK) {
    for (int i = 0; i < TP_REF_TENSORS; i++) tp_device_free(p->device[i]);
    memset(p->device, 0, sizeof p->device);
    return device_failed(st, "upload: device memory", err, errlen);
  }
  p->uploaded = 1;
  for (int i = 0; i < TP_REF_TENSORS && st == TP_OK; i++)
    if (p->buffer[i] != NULL)
      st = tp_device_copy_to(p->device[i], p->buffer[i], (size_t)p->bytes[i]);
  if (st != TP_OK) return device_failed(st, "upload: copying to the device", err, errlen);
  p->device_desc = p->desc;
  for (int i = 0; i < TP_REF_TENSORS; i++)
    tp_ref_desc_tensor(&p->device_desc, (tp_ref_tensor)i)->data =
        buffer[i] < 0 ? NULL : (char *)p->device[buffer[i]] + offset[i];
  return TP_OK;
}

const tp_gemm_desc *tp_ref_problem_device_desc(const tp_ref_problem *p) {
  return p->uploaded ? &p->device_desc : NULL;
}

tp_status tp_ref_problem_download_d(tp_ref_problem *p, char *err, size_t errlen) {
  if (!p->uploaded) {
    tp_ref_fail(err, errlen, "download: the problem has no device copy (tp_ref_problem_upload)");
    return TP_ERR_INVALID_ARGUMENT;
  }
  const tp_status st = tp_device_copy_from(p->buffer[TP_REF_D], p->device[TP_REF_D],
                                           (size_t)p->bytes[TP_REF_D]);
  return st == TP_OK ? st : device_failed(st, "download: copying D back", err, errlen);
}

tp_status tp_ref_problem_run(tp_ref_problem *p, tp_plan *plan, char *err, size_t errlen) {
  tp_ref_problem_poison_d(p);
  if (tp_plan_backend(plan) != TP_BACKEND_CUDA) {
    const tp_status st = tp_plan_run(plan, &p->desc, NULL);
    return st == TP_OK ? st : device_failed(st, "run", err, errlen);
  }
  tp_status st = tp_ref_problem_upload(p, err, errlen);
  if (st != TP_OK) return st;
  st = tp_plan_run(plan, &p->device_desc, NULL);
  if (st == TP_OK) st = tp_device_synchronize(NULL);
  if (st != TP_OK) return device_failed(st, "run", err, errlen);
  return tp_ref_problem_download_d(p, err, errlen);
}

tp_status tp_ref_problem_verify(tp_ref_problem *p, tp_registry *reg, const char *payload,
                                const char *epilogue, tp_backend backend,
                                const tp_ref_tolerance *tol, tp_ref_report *report, char *err,
                                size_t errlen) {
  if (p->ref == NULL) {
    tp_ref_fail(err, errlen, "no expected values to judge D by (tp_ref_problem_expect)");
    return TP_ERR_INVALID_ARGUMENT;
  }
  tp_plan *plan = NULL;
  tp_status st = tp_plan_create(&plan, reg, payload, epilogue, &p->desc, backend);
  if (st != TP_OK) return device_failed(st, "plan", err, errlen);
  if (backend != TP_BACKEND_AUTO && tp_plan_backend(plan) != backend) {
    tp_ref_fail(err, errlen, "plan: asked for the %s backend, planned for %s",
                tp_backend_name(backend), tp_backend_name(tp_plan_backend(plan)));
    st = TP_ERR_INTERNAL;
  }
  if (st == TP_OK) st = tp_ref_problem_run(p, plan, err, errlen);
  tp_plan_destroy(plan);
  if (st == TP_OK && (st = tp_ref_problem_check(p, tol, report)) != TP_OK)
    tp_ref_fail(err, errlen, "check: the report's struct_size is below this version's");
  return st;
}
