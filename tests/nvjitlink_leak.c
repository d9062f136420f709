/* tests/nvjitlink_leak.c: the sanitizer settings nvJitLink needs, for the
 * test programs that link kernels for real: LeakSanitizer's suppression of
 * its own leak, and no interception of its thread-local storage (below).
 *
 * Under LeakSanitizer (configure --enable-sanitizers), nvJitLink 13.0
 * leaks 24 bytes inside nvJitLinkComplete per link with -kernels-used, as
 * every plan's link has; not ours to fix (test_tool_link.sh suppresses it
 * the same way, through LSAN_OPTIONS). Everything else stays checked. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libnvJitLink.so\n"; }

/* nvJitLink's thread-local block is one glibc mallocs when it is first
 * used. The __tls_get_addr interceptor of GCC's sanitizer runtime (up to
 * GCC 13) takes a block whose address falls 16 bytes into a page for one
 * with a glibc 2.19 header and reads a bogus range from before it, which
 * LeakSanitizer's scan then crashes on at exit ("Tracer caught signal
 * 11", google/sanitizers#1322): whether a run hits it depends on the heap
 * layout alone. With the interceptor off, dynamic TLS is not scanned;
 * nvJitLink's is the only one these programs have (libtilepipe's is
 * static). */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "intercept_tls_get_addr=0"; }
