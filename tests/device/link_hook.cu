/* tests/device/link_hook.cu: the "epilogue" side of the link tests.
 *
 * Defines the hook that link_kernel.cu only declares. It is a plain
 * extern "C" __device__ function on purpose: marked __forceinline__ in its
 * own translation unit it would never be emitted and the link would fail
 * with "Unresolved extern function"; nvJitLink's LTO inlines it anyway. */

extern "C" __device__ float tp_test_hook(float x, float y) { return 2.0f * x + y; }
