/* tests/nvjitlink_leak.c: LeakSanitizer's suppression of nvJitLink's own
 * leak, for the test programs that link kernels for real.
 *
 * Under LeakSanitizer (configure --enable-sanitizers), nvJitLink 13.0
 * leaks 24 bytes inside nvJitLinkComplete per link with -kernels-used, as
 * every plan's link has; not ours to fix (test_tool_link.sh suppresses it
 * the same way, through LSAN_OPTIONS). Everything else stays checked. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libnvJitLink.so\n"; }
