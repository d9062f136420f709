# Tests (Check). GPU tests exit 77 (skip) where there is no GPU.
TESTS += $(check_PROGRAMS)
TP_TEST_CPP_FLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(CHECK_CFLAGS)
TP_TEST_LIBS = core/libtilepipe.la $(CHECK_LIBS)
