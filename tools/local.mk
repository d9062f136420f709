# tools
include $(srcdir)/tools/reference/local.mk

# The tilepipe command-line tool (docs/tool.md): one file per subcommand over
# a shared option parser. It uses only the public API and links libtilepipe
# as any application does, and libtilepipe_reference (random problems, runs,
# the f64 check); cuBLASLt, for bench, is opened with dlopen at run time,
# typed from the toolkit's cublasLt.h when configure found one.
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
	tools/timing.h \
	tools/timing.c \
	tools/cmd_run.c \
	tools/shapes.h \
	tools/shapes.c \
	tools/cublaslt.h \
	tools/cublaslt.c \
	tools/cublaslt_problem.h \
	tools/cublaslt_problem.c \
	tools/output_diff.h \
	tools/output_diff.c \
	tools/roofline.h \
	tools/roofline.c \
	tools/ceilings.h \
	tools/ceilings.c \
	tools/bench_report.h \
	tools/bench_report.c \
	tools/bench_svg.h \
	tools/bench_svg.c \
	tools/bench_table.h \
	tools/bench_table.c \
	tools/bench_progress.h \
	tools/bench_progress.c \
	tools/seeded_device.h \
	tools/seeded_device.c \
	tools/seeded_role.h \
	tools/seeded_role.c \
	tools/seeded_problem.h \
	tools/seeded_problem.c \
	tools/sample.h \
	tools/sample.c \
	tools/bench_accuracy.h \
	tools/bench_accuracy.c \
	tools/bench_shape.h \
	tools/bench_shape.c \
	tools/cpu_blas.h \
	tools/cpu_blas.c \
	tools/bench_cpu.h \
	tools/bench_cpu.c \
	tools/cmd_bench.c \
	tools/cmd_link.c \
	tools/cmd_warm.c
tools_tilepipe_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(CUDA_CPPFLAGS) \
	-DTP_BENCH_SHAPES_FILE='"$(tpbenchdir)/shapes.txt"'
tools_tilepipe_LDADD = tools/reference/libtilepipe_reference.la core/libtilepipe.la

# bench's input generator (tools/seeded_device.h): its kernel as a cubin
# for the one device architecture, carried as data (tilepipe-embed) and
# loaded through the driver at run time; a build without nvcc carries
# none and says so when asked to open it.
EXTRA_DIST += tools/device/seeded_fill.cu
if TP_HAVE_CUDA
TP_SEEDED_CUBIN = tools/device/seeded_fill.cubin
nodist_tools_tilepipe_SOURCES = $(TP_SEEDED_CUBIN).h
BUILT_SOURCES += $(TP_SEEDED_CUBIN).h
CLEANFILES += $(TP_SEEDED_CUBIN) $(TP_SEEDED_CUBIN).h
$(TP_SEEDED_CUBIN): tools/device/seeded_fill.cu $(srcdir)/tools/seeded_values.h \
	$(TP_DEVICE_HEADER_DEPS)
	@$(MKDIR_P) $(@D)
	$(AM_V_GEN)$(NVCC) -std=c++17 -O3 -cubin \
	  -gencode arch=compute_$(CUDA_ARCH),code=sm_$(CUDA_ARCH) -I$(top_srcdir)/include \
	  -I$(top_srcdir) $(NVCC_EXTRA_FLAGS) $(srcdir)/tools/device/seeded_fill.cu -o $@
$(TP_SEEDED_CUBIN).h: $(TP_SEEDED_CUBIN)
	$(AM_V_GEN)$(SHELL) $(top_srcdir)/plugins/kit/tilepipe-embed $< $@
# Before the first build there is no dependency tracking yet.
tools/tilepipe-seeded_device.$(OBJEXT): $(TP_SEEDED_CUBIN).h
endif

# The public benchmark shapes (a copy of ../shared/bench/shapes.txt), the
# default of `tilepipe bench`.
tpbenchdir = $(pkgdatadir)/bench
dist_tpbench_DATA = bench/shapes.txt
