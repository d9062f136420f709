# tools/reference: libtilepipe_reference, the naive f64 reference that
# checks GEMM results, installed for the tests of payloads and epilogues in
# tree and out (include/tilepipe/reference.h; docs/writing-a-payload.md,
# "Tests"): random problems as each payload describes them
# (tp_problem_describe), runs on either backend, the f64 result and its
# per-dtype bounds. It uses only libtilepipe's public API, never plugin
# code, and links libtilepipe.
#
# As with the core, the code is built once into a convenience library;
# the installed library wraps it and exports only the API of
# include/tilepipe/reference.h. The tool and
# the tests link the installed one; a test that links the core's
# convenience library (internals) links this one's too, so that one copy
# of the core serves both.
noinst_LTLIBRARIES += tools/reference/libtilepipe_reference_core.la
tools_reference_libtilepipe_reference_core_la_SOURCES = \
	tools/reference/internal.h \
	tools/reference/codec.h \
	tools/reference/codec.c \
	tools/reference/tensors.c \
	tools/reference/problem.c \
	tools/reference/run.c \
	tools/reference/naive_gemm.c \
	tools/reference/rounding.c \
	tools/reference/compare.c \
	tools/reference/registry.c \
	tools/seeded_values.h
tools_reference_libtilepipe_reference_core_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)

lib_LTLIBRARIES += tools/reference/libtilepipe_reference.la
tools_reference_libtilepipe_reference_la_SOURCES =
tools_reference_libtilepipe_reference_la_LIBADD = tools/reference/libtilepipe_reference_core.la \
	core/libtilepipe.la $(LIBM)
tools_reference_libtilepipe_reference_la_LDFLAGS = -version-info $(TP_REF_LT_VERSION) \
	-no-undefined -export-symbols-regex '^tp_ref_(desc_tensor|index|tensor_fill|problem_(describe|create|destroy|desc|description|buffer|poison_d|unwritten|upload|device_desc|download_d|run|expect|expected|rounding|tolerance|check|verify)|gemm|gemm_at|rounding_at|operand_f32|acc_bits|tolerance_for|tolerance_for_gpu|compare|report_format|registry_open)$$'
pkgconfig_DATA += tools/reference/tilepipe-reference.pc
