# tools
include $(srcdir)/tools/reference/local.mk

# The tilepipe command-line tool (docs/tool.md): one file per subcommand over
# a shared option parser. It uses only the public API and links libtilepipe
# as any application does, and the reference (random inputs, the f64
# check); cuBLASLt, for bench, is opened with dlopen at run time, typed from
# the toolkit's cublasLt.h when configure found one.
bin_PROGRAMS += tools/tilepipe
tools_tilepipe_SOURCES = \
	tools/tilepipe.c \
	tools/commands.h \
	tools/cli.h \
	tools/cli.c \
	tools/registry_view.h \
	tools/registry_view.c \
	tools/cmd_list.c \
	tools/cmd_info.c \
	tools/dtype_args.h \
	tools/dtype_args.c \
	tools/align_rows.h \
	tools/align_rows.c \
	tools/gpu_problem.h \
	tools/gpu_problem.c \
	tools/timing.h \
	tools/timing.c \
	tools/cmd_run.c \
	tools/shapes.h \
	tools/shapes.c \
	tools/cublaslt.h \
	tools/cublaslt.c \
	tools/output_diff.h \
	tools/output_diff.c \
	tools/roofline.h \
	tools/roofline.c \
	tools/ceilings.h \
	tools/ceilings.c \
	tools/bench_report.h \
	tools/bench_report.c \
	tools/bench_shape.h \
	tools/bench_shape.c \
	tools/cmd_bench.c \
	tools/cmd_link.c \
	tools/cmd_warm.c
tools_tilepipe_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(CUDA_CPPFLAGS) \
	-DTP_BENCH_SHAPES_FILE='"$(tpbenchdir)/shapes.txt"'
tools_tilepipe_LDADD = tools/reference/libtp_reference.la core/libtilepipe.la

# The public benchmark shapes (a copy of ../shared/bench/shapes.txt), the
# default of `tilepipe bench`.
tpbenchdir = $(pkgdatadir)/bench
dist_tpbench_DATA = bench/shapes.txt
