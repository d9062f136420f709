# tools/reference: the naive f64 reference, random inputs and the result
# check, shared by the tests and the tilepipe tool; also the host reference
# of the tool's device input generator (tools/seeded_values.h). It uses
# only the public API of libtilepipe (dtype codecs, tensor spans, the
# payloads' own descriptions of their problems: tp_problem_describe), never
# plugin code; users link core/libtilepipe.la themselves.
noinst_LTLIBRARIES += tools/reference/libtp_reference.la
tools_reference_libtp_reference_la_SOURCES = \
	tools/reference/naive_gemm.h \
	tools/reference/naive_gemm.c \
	tools/reference/random_fill.h \
	tools/reference/random_fill.c \
	tools/seeded_values.h \
	tools/reference/seeded_fill.h \
	tools/reference/seeded_fill.c \
	tools/reference/compare.h \
	tools/reference/compare.c \
	tools/reference/sample.h \
	tools/reference/sample.c \
	tools/reference/problem.h \
	tools/reference/problem.c
tools_reference_libtp_reference_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)
