/* tests/test_device.c: the public device API (tilepipe/device.h).
 *
 * Everywhere: every entry point refuses bad arguments (NULL pointers, size
 * 0, overlapping ranges of a copy within the device, a memset byte outside
 * 0..255, an unknown timer mark, a negative device ordinal) with
 * TP_ERR_INVALID_ARGUMENT and a message naming the function, before it
 * looks for a device. Without a GPU: every
 * call with good arguments says TP_ERR_NO_DEVICE with a reason, and leaves
 * its outputs NULL; the program then exits 77 (skip), since the round trip
 * below could not run. With a GPU: the properties are those of a Hopper
 * device, memory round-trips bytes exactly (odd sizes, offsets, memset and
 * a copy within the device leaving their neighbours alone), each device
 * selected in turn is the one the calls work on, an impossible
 * allocation is TP_ERR_OUT_OF_MEMORY, and the timer measures a positive
 * time only once both marks are recorded.
 * Runs without fork: CUDA does not survive fork() once the parent
 * initialised it, and main() does to decide what to test. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "config.h"

#include "tilepipe/device.h"
#include "tilepipe/status.h"

/* Never dereferenced: every call that gets it fails before using it. */
static void *const not_a_pointer = (void *)(uintptr_t)0x1000;

#define ck_assert_refused(call, status, needle)                                              \
  do {                                                                                       \
    ck_assert_int_eq((call), (status));                                                      \
    ck_assert_msg(strstr(tp_error_message(), (needle)) != NULL, "message '%s' lacks '%s'", \
                  tp_error_message(), (needle));                                             \
  } while (0)

START_TEST(test_bad_arguments) {
  char host[8] = {0};
  void *p = not_a_pointer;
  float ms = 1.0f;
  tp_device_timer *timer = (tp_device_timer *)not_a_pointer;
  ck_assert_refused(tp_device_info(NULL), TP_ERR_INVALID_ARGUMENT, "tp_device_info");
  ck_assert_refused(tp_device_count(NULL), TP_ERR_INVALID_ARGUMENT, "tp_device_count");
  ck_assert_refused(tp_device_select(-1), TP_ERR_INVALID_ARGUMENT, "ordinal -1");
  ck_assert_refused(tp_device_alloc(NULL, 16), TP_ERR_INVALID_ARGUMENT, "tp_device_alloc");
  ck_assert_refused(tp_device_alloc(&p, 0), TP_ERR_INVALID_ARGUMENT, "size is 0");
  ck_assert_ptr_null(p);
  ck_assert_refused(tp_device_copy_to(NULL, host, 4), TP_ERR_INVALID_ARGUMENT, "destination");
  ck_assert_refused(tp_device_copy_to(not_a_pointer, NULL, 4), TP_ERR_INVALID_ARGUMENT, "source");
  ck_assert_refused(tp_device_copy_from(NULL, not_a_pointer, 4), TP_ERR_INVALID_ARGUMENT,
                    "tp_device_copy_from");
  ck_assert_refused(tp_device_copy_from(host, NULL, 4), TP_ERR_INVALID_ARGUMENT, "source");
  ck_assert_refused(tp_device_copy_within(NULL, not_a_pointer, 4, NULL), TP_ERR_INVALID_ARGUMENT,
                    "tp_device_copy_within");
  ck_assert_refused(tp_device_copy_within(not_a_pointer, NULL, 4, NULL), TP_ERR_INVALID_ARGUMENT,
                    "source");
  /* Ranges 3 bytes apart overlap for 4 bytes, not for 3; one range is both. */
  char *const base = (char *)not_a_pointer;
  ck_assert_refused(tp_device_copy_within(base + 3, base, 4, NULL), TP_ERR_INVALID_ARGUMENT,
                    "overlap");
  ck_assert_refused(tp_device_copy_within(base, base + 3, 4, NULL), TP_ERR_INVALID_ARGUMENT,
                    "overlap");
  ck_assert_refused(tp_device_copy_within(base, base, 1, NULL), TP_ERR_INVALID_ARGUMENT,
                    "overlap");
  ck_assert_refused(tp_device_memset(NULL, 0, 4), TP_ERR_INVALID_ARGUMENT, "tp_device_memset");
  ck_assert_refused(tp_device_memset(not_a_pointer, 256, 4), TP_ERR_INVALID_ARGUMENT, "256");
  ck_assert_refused(tp_device_memset(not_a_pointer, -1, 4), TP_ERR_INVALID_ARGUMENT, "-1");
  ck_assert_refused(tp_device_timer_create(NULL), TP_ERR_INVALID_ARGUMENT, "timer");
  ck_assert_refused(tp_device_timer_record(NULL, TP_TIMER_START, NULL), TP_ERR_INVALID_ARGUMENT,
                    "tp_device_timer_record");
  ck_assert_refused(tp_device_timer_record(timer, (tp_timer_mark)7, NULL),
                    TP_ERR_INVALID_ARGUMENT, "mark 7");
  ck_assert_refused(tp_device_timer_elapsed_ms(NULL, &ms), TP_ERR_INVALID_ARGUMENT, "timer");
  ck_assert_refused(tp_device_timer_elapsed_ms(timer, NULL), TP_ERR_INVALID_ARGUMENT, "ms");
  ck_assert_int_eq(tp_device_free(NULL), TP_OK);
  tp_device_timer_destroy(NULL);
}
END_TEST

START_TEST(test_no_device) {
  tp_device_props props;
  char host[8] = {0};
  void *p = not_a_pointer;
  tp_device_timer *timer = (tp_device_timer *)not_a_pointer;
  ck_assert_refused(tp_device_info(&props), TP_ERR_NO_DEVICE, "CUDA");
#ifdef TP_NO_CUDA_REASON
  /* A build without the GPU parts names configure's reason. */
  ck_assert_refused(tp_device_info(&props), TP_ERR_NO_DEVICE, "(" TP_NO_CUDA_REASON ")");
#endif
  int count = 5;
  ck_assert_refused(tp_device_count(&count), TP_ERR_NO_DEVICE, "CUDA");
  ck_assert_int_eq(count, 0);
  ck_assert_refused(tp_device_select(0), TP_ERR_NO_DEVICE, "CUDA");
  ck_assert_refused(tp_device_alloc(&p, 16), TP_ERR_NO_DEVICE, "CUDA");
  ck_assert_ptr_null(p);
  ck_assert_refused(tp_device_copy_to(not_a_pointer, host, 4), TP_ERR_NO_DEVICE, "CUDA");
  ck_assert_refused(tp_device_copy_from(host, not_a_pointer, 4), TP_ERR_NO_DEVICE, "CUDA");
  ck_assert_refused(tp_device_copy_within((char *)not_a_pointer + 3, not_a_pointer, 3, NULL),
                    TP_ERR_NO_DEVICE, "CUDA");
  ck_assert_refused(tp_device_memset(not_a_pointer, 0, 4), TP_ERR_NO_DEVICE, "CUDA");
  ck_assert_refused(tp_device_synchronize(NULL), TP_ERR_NO_DEVICE, "CUDA");
  ck_assert_refused(tp_device_timer_create(&timer), TP_ERR_NO_DEVICE, "CUDA");
  ck_assert_ptr_null(timer);
}
END_TEST

START_TEST(test_properties) {
  tp_device_props props;
  ck_assert_int_eq(tp_device_info(&props), TP_OK);
  ck_assert(props.name[0] != '\0');
  ck_assert_int_gt(props.sm_count, 0);
  ck_assert_int_eq(props.cc_major, 9);
  ck_assert_int_eq(props.cc_minor, 0);
  ck_assert_int_ge(props.driver_version, 13000);
  ck_assert(props.total_memory >= ((size_t)1 << 30));
  ck_assert(props.l2_bytes >= ((size_t)1 << 20));
}
END_TEST

/* Each device selected in turn is the one the calls then work on (a GPU
 * other than a Hopper is refused, saying so); one past the last does not
 * exist. The device in use at the start is selected again at the end. */
START_TEST(test_select) {
  tp_device_props props, now;
  int count = 0;
  ck_assert_int_eq(tp_device_info(&props), TP_OK);
  ck_assert_int_eq(tp_device_count(&count), TP_OK);
  ck_assert_int_ge(count, 1);
  ck_assert(props.ordinal >= 0 && props.ordinal < count);
  for (int i = 0; i < count; i++) {
    const tp_status st = tp_device_select(i);
    if (st == TP_ERR_NO_DEVICE) {
      ck_assert_msg(strstr(tp_error_message(), "compute capability"), "%s", tp_error_message());
      continue;
    }
    ck_assert_msg(st == TP_OK, "%s", tp_error_message());
    ck_assert_int_eq(tp_device_info(&now), TP_OK);
    ck_assert_int_eq(now.ordinal, i);
  }
  char needle[32];
  snprintf(needle, sizeof needle, "device %d does not exist", count);
  ck_assert_refused(tp_device_select(count), TP_ERR_INVALID_ARGUMENT, needle);
  ck_assert_int_eq(tp_device_select(props.ordinal), TP_OK);
  ck_assert_int_eq(tp_device_info(&now), TP_OK);
  ck_assert_int_eq(now.ordinal, props.ordinal);
}
END_TEST

START_TEST(test_round_trip) {
  const size_t size = ((size_t)1 << 20) + 3; /* odd: no hidden rounding */
  unsigned char *in = malloc(size), *out = malloc(size);
  ck_assert(in && out);
  for (size_t i = 0; i < size; i++) in[i] = (unsigned char)(i * 131 + 7);
  void *dev = NULL;
  ck_assert_int_eq(tp_device_alloc(&dev, size), TP_OK);
  ck_assert_ptr_nonnull(dev);
  ck_assert_uint_eq((uintptr_t)dev % 256, 0);
  ck_assert_int_eq(tp_device_copy_to(dev, in, size), TP_OK);
  memset(out, 0, size);
  ck_assert_int_eq(tp_device_copy_from(out, dev, size), TP_OK);
  ck_assert(memcmp(in, out, size) == 0);

  /* memset 1000 bytes from offset 5: bytes around it keep their values. */
  ck_assert_int_eq(tp_device_memset((char *)dev + 5, 0xAB, 1000), TP_OK);
  ck_assert_int_eq(tp_device_copy_from(out, dev, size), TP_OK);
  for (size_t i = 0; i < 1100; i++)
    ck_assert_uint_eq(out[i], i >= 5 && i < 1005 ? 0xAB : in[i]);
  ck_assert(memcmp(in + 1005, out + 1005, size - 1005) == 0);

  /* A copy at an offset, and copies of zero bytes. */
  ck_assert_int_eq(tp_device_copy_to((char *)dev + 1, in + 100, 10), TP_OK);
  ck_assert_int_eq(tp_device_copy_from(out, (char *)dev + 1, 10), TP_OK);
  ck_assert(memcmp(out, in + 100, 10) == 0);
  ck_assert_int_eq(tp_device_copy_to(dev, in, 0), TP_OK);
  ck_assert_int_eq(tp_device_copy_from(out, dev, 0), TP_OK);

  /* Within the device, stream-ordered: the copy_from that follows on the
   * default stream sees it. An odd count between odd offsets; the bytes
   * around the destination keep their values. */
  ck_assert_int_eq(tp_device_copy_to(dev, in, size), TP_OK);
  const size_t half = size / 2, count = 777;
  ck_assert_int_eq(tp_device_copy_within((char *)dev + half + 1, (char *)dev + 3, count, NULL),
                   TP_OK);
  ck_assert_int_eq(tp_device_copy_within(dev, (char *)dev + half, 0, NULL), TP_OK);
  ck_assert_int_eq(tp_device_copy_from(out, dev, size), TP_OK);
  ck_assert(memcmp(out + half + 1, in + 3, count) == 0);
  ck_assert(memcmp(out, in, half + 1) == 0);
  ck_assert(memcmp(out + half + 1 + count, in + half + 1 + count, size - half - 1 - count) == 0);
  ck_assert_int_eq(tp_device_synchronize(NULL), TP_OK);
  ck_assert_int_eq(tp_device_free(dev), TP_OK);
  free(in);
  free(out);
}
END_TEST

START_TEST(test_out_of_memory) {
  void *dev = not_a_pointer;
  ck_assert_refused(tp_device_alloc(&dev, (size_t)1 << 60), TP_ERR_OUT_OF_MEMORY,
                    "out of device memory");
  ck_assert_ptr_null(dev);
}
END_TEST

START_TEST(test_timer) {
  tp_device_timer *timer = NULL;
  float ms = -1.0f;
  ck_assert_int_eq(tp_device_timer_create(&timer), TP_OK);
  ck_assert_ptr_nonnull(timer);
  /* Nothing recorded yet: the driver refuses, and so do we. */
  ck_assert_int_eq(tp_device_timer_elapsed_ms(timer, &ms), TP_ERR_CUDA);

  const size_t size = (size_t)64 << 20;
  void *dev = NULL, *host = calloc(1, size);
  ck_assert_ptr_nonnull(host);
  ck_assert_int_eq(tp_device_alloc(&dev, size), TP_OK);
  ck_assert_int_eq(tp_device_timer_record(timer, TP_TIMER_START, NULL), TP_OK);
  ck_assert_int_eq(tp_device_copy_to(dev, host, size), TP_OK);
  ck_assert_int_eq(tp_device_timer_record(timer, TP_TIMER_STOP, NULL), TP_OK);
  ck_assert_int_eq(tp_device_timer_elapsed_ms(timer, &ms), TP_OK);
  /* 64 MiB over PCIe or NVLink-C2C takes well over a microsecond and well
   * under ten seconds. */
  ck_assert_msg(ms > 0.001f && ms < 10000.0f, "64 MiB copy timed at %g ms", (double)ms);
  tp_device_timer_destroy(timer);
  ck_assert_int_eq(tp_device_free(dev), TP_OK);
  free(host);
}
END_TEST

int main(void) {
  tp_device_props props;
  const tp_status probe = tp_device_info(&props);
  const int have_gpu = probe == TP_OK;
  Suite *s = suite_create("device");
  TCase *args = tcase_create("arguments");
  tcase_add_test(args, test_bad_arguments);
  suite_add_tcase(s, args);
  TCase *tc = tcase_create(have_gpu ? "gpu" : "no_gpu");
  tcase_set_timeout(tc, 60);
  if (have_gpu) {
    tcase_add_test(tc, test_properties);
    tcase_add_test(tc, test_select);
    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_out_of_memory);
    tcase_add_test(tc, test_timer);
  } else {
    tcase_add_test(tc, test_no_device);
  }
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  if (failed) return 1;
  if (!have_gpu) {
    fprintf(stderr, "test_device: no usable GPU (%s): skipping the round trip\n",
            tp_error_message());
    return 77;
  }
  return 0;
}
