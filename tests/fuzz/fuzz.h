/* tests/fuzz/fuzz.h: what every harness of tests/fuzz/ provides and uses.
 *
 * A harness defines the two libFuzzer entry points below. Built with
 * --enable-fuzzers it links libFuzzer's main (`make fuzz` runs it); built
 * for `make check` it links tests/fuzz/replay.c instead, which feeds it
 * every file of its committed corpus (seeds and the inputs that once found
 * a defect), so the corpus is a regression test under every build.
 *
 * fuzz_input hands out the bytes of one input front to back; past the end
 * it yields zeros, so a decoder never needs to check what is left. */
#ifndef TP_TESTS_FUZZ_FUZZ_H
#define TP_TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzz_input {
  const uint8_t *data;
  size_t size;
} fuzz_input;

static inline uint8_t fuzz_u8(fuzz_input *in) {
  if (in->size == 0) return 0;
  in->size--;
  return *in->data++;
}

/* `bytes` (1..8) bytes, little-endian. */
static inline uint64_t fuzz_uint(fuzz_input *in, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v |= (uint64_t)fuzz_u8(in) << (8 * i);
  return v;
}

/* The next n bytes as an input of their own, and in moves past them
 * (whether or not it had them): a decoder that reads each field from a
 * record of fixed size keeps every later field at the same offset however
 * the fuzzer changes an earlier one. */
static inline fuzz_input fuzz_take(fuzz_input *in, size_t n) {
  fuzz_input part = {in->data, in->size < n ? in->size : n};
  in->data += part.size;
  in->size -= part.size;
  return part;
}

#endif
