# Tests (Check). GPU tests exit 77 (skip) where there is no GPU.
TESTS += $(check_PROGRAMS)
TP_TEST_CPP_FLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(CHECK_CFLAGS)
# Tests of the public API link the installed library; tests of internals
# (core/ functions not exported) link the convenience library instead.
TP_TEST_LIBS = core/libtilepipe.la $(CHECK_LIBS)
TP_TEST_INTERNAL_LIBS = core/libtilepipe_core.la $(CHECK_LIBS)
# Scratch folders and files: every test that writes files uses tests/tmpdir.c.
noinst_HEADERS += tests/tmpdir.h

check_PROGRAMS += tests/test_dtype
tests_test_dtype_CPPFLAGS = $(TP_TEST_CPP_FLAGS)
tests_test_dtype_LDADD = $(TP_TEST_LIBS)

check_PROGRAMS += tests/test_fast_div
tests_test_fast_div_CPPFLAGS = $(TP_TEST_CPP_FLAGS)
tests_test_fast_div_LDADD = $(CHECK_LIBS)

# The structured kernel's planner, linked from the plugin kit as plugins
# link it, against the table of what it decides (tests/kernel_plans.txt).
check_PROGRAMS += tests/test_kernel_plan
noinst_HEADERS += tests/kernel_plan_sweep.h
EXTRA_DIST += tests/kernel_plans.txt
tests_test_kernel_plan_CPPFLAGS = $(TP_TEST_CPP_FLAGS) \
	-DTP_KERNEL_PLANS_TABLE='"$(abs_top_srcdir)/tests/kernel_plans.txt"'
tests_test_kernel_plan_LDADD = plugins/kit/libtilepipe_kit.la $(TP_TEST_LIBS) $(LIBM)

# Registry and loader tests, with their purpose-built plugins (tests/plugins/,
# one defect per fixture). -rpath makes libtool build real shared modules
# although nothing installs them. The tests find them through
# TP_TEST_PLUGIN_DIR (their .libs folder, baked in as an absolute path) and
# set TILEPIPE_PLUGIN_PATH themselves, so they also run by hand; they write
# INI files only into fresh folders under $TMPDIR (default /tmp).
TP_REGISTRY_TEST_SOURCES = tests/registry_util.c tests/tmpdir.c
TP_FIXTURE_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
TP_FIXTURE_LDFLAGS = -module -avoid-version -rpath /nowhere -shared
TP_REGISTRY_TEST_CPP_FLAGS = $(TP_TEST_CPP_FLAGS) $(TP_INSTALL_PATH_DEFINES) \
	-DTP_TEST_PLUGIN_DIR='"$(abs_top_builddir)/tests/plugins/.libs"'
noinst_HEADERS += tests/plugins/fixture.h tests/plugins/link_fixture.h tests/registry_util.h

check_LTLIBRARIES += tests/plugins/fixture_payload.la
tests_plugins_fixture_payload_la_SOURCES = tests/plugins/fixture_payload.c
tests_plugins_fixture_payload_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_payload_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
check_LTLIBRARIES += tests/plugins/fixture_epilogue.la
tests_plugins_fixture_epilogue_la_SOURCES = tests/plugins/fixture_epilogue.c
tests_plugins_fixture_epilogue_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_epilogue_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
check_LTLIBRARIES += tests/plugins/fixture_tunable.la
tests_plugins_fixture_tunable_la_SOURCES = tests/plugins/fixture_tunable.c
tests_plugins_fixture_tunable_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_tunable_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
check_LTLIBRARIES += tests/plugins/fixture_no_device.la
tests_plugins_fixture_no_device_la_SOURCES = tests/plugins/fixture_no_device.c
tests_plugins_fixture_no_device_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_no_device_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
check_LTLIBRARIES += tests/plugins/fixture_no_entry.la
tests_plugins_fixture_no_entry_la_SOURCES = tests/plugins/fixture_no_entry.c
tests_plugins_fixture_no_entry_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_no_entry_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
check_LTLIBRARIES += tests/plugins/fixture_null_entry.la
tests_plugins_fixture_null_entry_la_SOURCES = tests/plugins/fixture_null_entry.c
tests_plugins_fixture_null_entry_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_null_entry_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
check_LTLIBRARIES += tests/plugins/fixture_abi_major.la
tests_plugins_fixture_abi_major_la_SOURCES = tests/plugins/fixture_abi_major.c
tests_plugins_fixture_abi_major_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_abi_major_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
check_LTLIBRARIES += tests/plugins/fixture_abi_minor.la
tests_plugins_fixture_abi_minor_la_SOURCES = tests/plugins/fixture_abi_minor.c
tests_plugins_fixture_abi_minor_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_abi_minor_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
check_LTLIBRARIES += tests/plugins/fixture_abi_first_minor.la
tests_plugins_fixture_abi_first_minor_la_SOURCES = tests/plugins/fixture_abi_first_minor.c
tests_plugins_fixture_abi_first_minor_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_abi_first_minor_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
check_LTLIBRARIES += tests/plugins/fixture_small_desc.la
tests_plugins_fixture_small_desc_la_SOURCES = tests/plugins/fixture_small_desc.c
tests_plugins_fixture_small_desc_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_small_desc_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
check_LTLIBRARIES += tests/plugins/fixture_kind_confused.la
tests_plugins_fixture_kind_confused_la_SOURCES = tests/plugins/fixture_kind_confused.c
tests_plugins_fixture_kind_confused_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_kind_confused_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
check_LTLIBRARIES += tests/plugins/fixture_missing_slot.la
tests_plugins_fixture_missing_slot_la_SOURCES = tests/plugins/fixture_missing_slot.c
tests_plugins_fixture_missing_slot_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_missing_slot_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
check_LTLIBRARIES += tests/plugins/fixture_init_fails.la
tests_plugins_fixture_init_fails_la_SOURCES = tests/plugins/fixture_init_fails.c
tests_plugins_fixture_init_fails_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_init_fails_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
check_LTLIBRARIES += tests/plugins/fixture_huge_tile.la
tests_plugins_fixture_huge_tile_la_SOURCES = tests/plugins/fixture_huge_tile.c
tests_plugins_fixture_huge_tile_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_huge_tile_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
check_LTLIBRARIES += tests/plugins/fixture_bad_images.la
tests_plugins_fixture_bad_images_la_SOURCES = tests/plugins/fixture_bad_images.c
tests_plugins_fixture_bad_images_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_bad_images_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
# A payload's description of its problem (tilepipe/problem.h): the slot
# describing per-row scale vectors, each way it can go wrong
# (fixture_problem); a payload built for 2.0, before the slot, is
# fixture_abi_first_minor.
check_LTLIBRARIES += tests/plugins/fixture_problem.la
tests_plugins_fixture_problem_la_SOURCES = tests/plugins/fixture_problem.c
tests_plugins_fixture_problem_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_problem_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)

# test_registry uses the public API only; test_loader also the internal
# tp_registry_resolve.
check_PROGRAMS += tests/test_registry
tests_test_registry_SOURCES = tests/test_registry.c $(TP_REGISTRY_TEST_SOURCES)
tests_test_registry_CPPFLAGS = $(TP_REGISTRY_TEST_CPP_FLAGS)
tests_test_registry_LDADD = $(TP_TEST_LIBS)
check_PROGRAMS += tests/test_loader
tests_test_loader_SOURCES = tests/test_loader.c $(TP_REGISTRY_TEST_SOURCES)
tests_test_loader_CPPFLAGS = $(TP_REGISTRY_TEST_CPP_FLAGS)
tests_test_loader_LDADD = $(TP_TEST_INTERNAL_LIBS)
# tp_problem_describe: the shipped payloads (the build tree's registry) and
# the fixtures, public API only.
check_PROGRAMS += tests/test_problem
tests_test_problem_SOURCES = tests/test_problem.c $(TP_REGISTRY_TEST_SOURCES)
tests_test_problem_CPPFLAGS = $(TP_REGISTRY_TEST_CPP_FLAGS) \
	-DTP_TEST_REGISTRY='"$(abs_top_builddir)/tilepipe.ini"'
tests_test_problem_LDADD = $(TP_TEST_LIBS)
EXTRA_tests_test_problem_DEPENDENCIES = tilepipe.ini

# The CPU backend's failures come back as statuses: fixture_huge_tile's
# accumulators fit no host (paired with fixture_skip_last as the epilogue).
check_PROGRAMS += tests/test_cpu_backend
tests_test_cpu_backend_SOURCES = tests/test_cpu_backend.c $(TP_REGISTRY_TEST_SOURCES)
tests_test_cpu_backend_CPPFLAGS = $(TP_REGISTRY_TEST_CPP_FLAGS)
tests_test_cpu_backend_LDADD = $(TP_TEST_LIBS)

# The GPU backend's host side. test_link_log needs no CUDA at all;
# test_cuda_link needs nvcc at build time (the LTO-IR of tests/device/) but no
# GPU; test_cuda_launch skips (77) without a GPU.
check_PROGRAMS += tests/test_link_log
tests_test_link_log_CPPFLAGS = $(TP_TEST_CPP_FLAGS)
tests_test_link_log_LDADD = $(TP_TEST_INTERNAL_LIBS)
EXTRA_DIST += tests/device/link_kernel.cu tests/device/link_hook.cu \
	tests/device/link_ws_unbounded.cu tests/device/warp_specialized.cuh
if TP_HAVE_CUDA
TP_TEST_CUDA_BLOBS = tests/device/link_kernel.ltoir.h tests/device/link_hook.ltoir.h \
	tests/device/link_ws_unbounded.ltoir.h
CLEANFILES += $(TP_TEST_CUDA_BLOBS) $(TP_TEST_CUDA_BLOBS:.ltoir.h=.ltoir.fatbin)
# Built first (BUILT_SOURCES): the fixtures of test_tool_link.sh include
# them, and a parallel first build must not compile those before nvcc ran.
BUILT_SOURCES += $(TP_TEST_CUDA_BLOBS)
tests/device/link_kernel.ltoir.fatbin tests/device/link_ws_unbounded.ltoir.fatbin: \
	$(srcdir)/tests/device/warp_specialized.cuh
noinst_HEADERS += tests/cuda_blobs.h
check_PROGRAMS += tests/test_cuda_link tests/test_cuda_launch
tests_test_cuda_link_SOURCES = tests/test_cuda_link.c tests/cuda_blobs.c tests/tmpdir.c \
	tests/nvjitlink_leak.c
tests_test_cuda_link_CPPFLAGS = $(TP_TEST_CPP_FLAGS) $(CUDA_CPPFLAGS) \
	-DTP_TEST_PLUGIN_DIR='"$(abs_top_builddir)/tests/plugins/.libs"'
tests_test_cuda_link_LDADD = $(TP_TEST_INTERNAL_LIBS)
tests_test_cuda_launch_SOURCES = tests/test_cuda_launch.c tests/cuda_blobs.c tests/tmpdir.c
tests_test_cuda_launch_CPPFLAGS = $(TP_TEST_CPP_FLAGS) $(CUDA_CPPFLAGS)
tests_test_cuda_launch_LDADD = $(TP_TEST_INTERNAL_LIBS)
# The generated headers exist only after nvcc ran: say so before the first
# build, when there is no dependency tracking yet.
tests/test_cuda_link-cuda_blobs.$(OBJEXT) \
tests/test_cuda_launch-cuda_blobs.$(OBJEXT): $(TP_TEST_CUDA_BLOBS)
endif

# The shipped plugins (plugins/) on the CPU backend against the naive f64
# reference (libtilepipe_reference, tools/reference/), and their
# validation. They load the plugins through the build tree's registry,
# tilepipe.ini (plugins/local.mk).
TP_PLUGIN_TEST_CPP_FLAGS = $(TP_TEST_CPP_FLAGS) \
	-DTP_TEST_REGISTRY='"$(abs_top_builddir)/tilepipe.ini"' \
	-DTP_TEST_INSTALLED_REGISTRY='"$(abs_top_srcdir)/plugins/registry.ini"' \
	-DTP_TEST_PLUGIN_BUILD_DIR='"$(abs_top_builddir)/plugins"'
TP_PLUGIN_TEST_LIBS = tools/reference/libtilepipe_reference.la $(TP_TEST_LIBS)

check_PROGRAMS += tests/test_plugins_cpu tests/test_plugins_validation
tests_test_plugins_cpu_SOURCES = tests/test_plugins_cpu.c tests/build_registry.c
tests_test_plugins_cpu_CPPFLAGS = $(TP_PLUGIN_TEST_CPP_FLAGS)
tests_test_plugins_cpu_LDADD = $(TP_PLUGIN_TEST_LIBS)
EXTRA_tests_test_plugins_cpu_DEPENDENCIES = tilepipe.ini
tests_test_plugins_validation_SOURCES = tests/test_plugins_validation.c tests/build_registry.c
tests_test_plugins_validation_CPPFLAGS = $(TP_PLUGIN_TEST_CPP_FLAGS)
# It runs the GPU planner (tilepipe/plugin/kernel/gpu_plan.h) itself, from the
# plugin kit.
tests_test_plugins_validation_LDADD = plugins/kit/libtilepipe_kit.la $(TP_PLUGIN_TEST_LIBS) \
	$(LIBM)
EXTRA_tests_test_plugins_validation_DEPENDENCIES = tilepipe.ini

# The pipeline core (include/tilepipe/internal/pipeline/) with its debug check on:
# host threads on the C11-atomic mbarrier, and the storage planner (its
# worked layouts take each payload kind's stage tensors from
# tests/tile_storage.h, shared with the device test).
noinst_HEADERS += tests/tile_storage.h
check_PROGRAMS += tests/test_pipeline_host tests/test_storage
tests_test_pipeline_host_CPPFLAGS = $(TP_TEST_CPP_FLAGS) -DTP_PIPELINE_DEBUG=1
tests_test_pipeline_host_LDADD = $(CHECK_LIBS)
tests_test_storage_CPPFLAGS = $(TP_TEST_CPP_FLAGS) -DTP_PIPELINE_DEBUG=1
tests_test_storage_LDADD = $(CHECK_LIBS)

# The pipeline on the GPU: a standalone CUDA program, compiled and linked by
# nvcc with cudart (never the sanitizer flags, which are for the host
# compiler). It skips (77) without an sm_90 GPU. `make check-pipeline-sanitize`
# runs it under compute-sanitizer racecheck, synccheck and memcheck.
EXTRA_DIST += tests/device/test_pipeline_device.cu tests/device/sanitize-pipeline
if TP_HAVE_CUDA
TP_NVCC_TEST_FLAGS = -std=c++17 -O2 -gencode arch=compute_90a,code=sm_90a
check_PROGRAMS += tests/device/test_pipeline_device
tests_device_test_pipeline_device_SOURCES =
tests_device_test_pipeline_device_LDADD = tests/device/test_pipeline_device.$(OBJEXT)
tests_device_test_pipeline_device_LINK = $(NVCC) $(TP_NVCC_TEST_FLAGS) -o $@
tests/device/test_pipeline_device.$(OBJEXT): $(srcdir)/tests/device/test_pipeline_device.cu \
	$(srcdir)/tests/tile_storage.h $(TP_DEVICE_HEADER_DEPS)
	@$(MKDIR_P) $(@D)
	$(AM_V_GEN)$(NVCC) $(TP_NVCC_TEST_FLAGS) -DTP_PIPELINE_DEBUG=1 -I$(top_srcdir)/include \
	  -I$(top_srcdir) -c $(srcdir)/tests/device/test_pipeline_device.cu -o $@
CLEANFILES += tests/device/test_pipeline_device.$(OBJEXT)
check-pipeline-sanitize: tests/device/test_pipeline_device$(EXEEXT)
	@CUDA_HOME='$(CUDA_HOME)' $(SHELL) $(srcdir)/tests/device/sanitize-pipeline \
	  tests/device/test_pipeline_device$(EXEEXT); rc=$$?; \
	  if test $$rc -eq 77; then echo "check-pipeline-sanitize: skipped"; else exit $$rc; fi
else
check-pipeline-sanitize:
	@echo "check-pipeline-sanitize: built without CUDA ($(TP_NO_CUDA_REASON))"
endif
.PHONY: check-pipeline-sanitize

# The standard, blockwise_fp8 and block_scaled payloads' fused GPU kernels
# (with store and residual) against the naive reference (tests/gpu_case.c runs a case);
# skip (77) without a GPU.
noinst_HEADERS += tests/tuned_registry.h tests/gpu_case.h tests/build_registry.h
TP_GPU_CASE_SOURCES = tests/gpu_case.c tests/tuned_registry.c tests/tmpdir.c
check_PROGRAMS += tests/test_gpu_gemm tests/test_gpu_blockwise tests/test_gpu_block_scaled
tests_test_gpu_gemm_SOURCES = tests/test_gpu_gemm.c $(TP_GPU_CASE_SOURCES)
tests_test_gpu_gemm_CPPFLAGS = $(TP_PLUGIN_TEST_CPP_FLAGS)
tests_test_gpu_gemm_LDADD = $(TP_PLUGIN_TEST_LIBS)
EXTRA_tests_test_gpu_gemm_DEPENDENCIES = tilepipe.ini
tests_test_gpu_blockwise_SOURCES = tests/test_gpu_blockwise.c $(TP_GPU_CASE_SOURCES)
tests_test_gpu_blockwise_CPPFLAGS = $(TP_PLUGIN_TEST_CPP_FLAGS)
tests_test_gpu_blockwise_LDADD = $(TP_PLUGIN_TEST_LIBS)
EXTRA_tests_test_gpu_blockwise_DEPENDENCIES = tilepipe.ini
tests_test_gpu_block_scaled_SOURCES = tests/test_gpu_block_scaled.c tests/mx_fold.c \
	$(TP_GPU_CASE_SOURCES)
tests_test_gpu_block_scaled_CPPFLAGS = $(TP_PLUGIN_TEST_CPP_FLAGS)
tests_test_gpu_block_scaled_LDADD = $(TP_PLUGIN_TEST_LIBS)
EXTRA_tests_test_gpu_block_scaled_DEPENDENCIES = tilepipe.ini

# The thread-safety contract (docs/threads.md): many threads planning and
# running from one registry, one plan run by many threads, errors per
# thread, on the CPU (CI runs it under ThreadSanitizer too); and on the GPU
# (skips, 77, without one), cold and warm kernels from threads on streams
# of their own (the driver's streams and the cache's statistics: internals).
noinst_HEADERS += tests/gemm_case.h
check_PROGRAMS += tests/test_threads
tests_test_threads_SOURCES = tests/test_threads.c tests/gemm_case.c tests/build_registry.c
tests_test_threads_CPPFLAGS = $(TP_PLUGIN_TEST_CPP_FLAGS)
tests_test_threads_LDADD = $(TP_PLUGIN_TEST_LIBS)
EXTRA_tests_test_threads_DEPENDENCIES = tilepipe.ini
if TP_HAVE_CUDA
check_PROGRAMS += tests/test_gpu_threads
tests_test_gpu_threads_SOURCES = tests/test_gpu_threads.c tests/gemm_case.c tests/tmpdir.c \
	tests/tuned_registry.c
tests_test_gpu_threads_CPPFLAGS = $(TP_PLUGIN_TEST_CPP_FLAGS) $(CUDA_CPPFLAGS)
tests_test_gpu_threads_LDADD = tools/reference/libtilepipe_reference_core.la \
	$(TP_TEST_INTERNAL_LIBS)
EXTRA_tests_test_gpu_threads_DEPENDENCIES = tilepipe.ini
endif

# GEMMs back to back on one stream, each launched as the programmatic
# dependent of the one before (tilepipe/internal/kernel/grid_dependency.h): reads
# after writes and writes after reads across them (skips, 77, without a GPU).
check_PROGRAMS += tests/test_gpu_chain
tests_test_gpu_chain_SOURCES = tests/test_gpu_chain.c tests/tmpdir.c tests/tuned_registry.c
tests_test_gpu_chain_CPPFLAGS = $(TP_PLUGIN_TEST_CPP_FLAGS)
tests_test_gpu_chain_LDADD = $(TP_PLUGIN_TEST_LIBS)
EXTRA_tests_test_gpu_chain_DEPENDENCIES = tilepipe.ini

# The comparator's teeth (tools/reference/compare.c): the GPU error model
# pinned to its formula and to errors measured on the H100, and faults
# injected into a correct D failing it; the correct D from the CPU backend
# (test_ref_faults) and from the GPU (test_gpu_faults, skips, 77, without
# one).
check_PROGRAMS += tests/test_ref_faults tests/test_gpu_faults
tests_test_ref_faults_SOURCES = tests/test_ref_faults.c tests/tuned_registry.c tests/tmpdir.c \
	tests/build_registry.c
tests_test_ref_faults_CPPFLAGS = $(TP_PLUGIN_TEST_CPP_FLAGS)
tests_test_ref_faults_LDADD = $(TP_PLUGIN_TEST_LIBS)
EXTRA_tests_test_ref_faults_DEPENDENCIES = tilepipe.ini
tests_test_gpu_faults_SOURCES = $(tests_test_ref_faults_SOURCES)
tests_test_gpu_faults_CPPFLAGS = $(TP_PLUGIN_TEST_CPP_FLAGS) -DFAULTS_ON_GPU
tests_test_gpu_faults_LDADD = $(TP_PLUGIN_TEST_LIBS)
EXTRA_tests_test_gpu_faults_DEPENDENCIES = tilepipe.ini

# Every GPU of a host (docs/threads.md): which device a call works on,
# decided without a driver (internal functions); and two GPUs driven from a
# thread each, with the refusal of a plan run under the other GPU's context
# (public API only; skips, 77, with fewer than two GPUs).
check_PROGRAMS += tests/test_device_choice tests/test_gpu_multi
tests_test_device_choice_CPPFLAGS = $(TP_TEST_CPP_FLAGS)
tests_test_device_choice_LDADD = $(TP_TEST_INTERNAL_LIBS)
tests_test_gpu_multi_SOURCES = tests/test_gpu_multi.c tests/gemm_case.c tests/tmpdir.c \
	tests/tuned_registry.c
tests_test_gpu_multi_CPPFLAGS = $(TP_PLUGIN_TEST_CPP_FLAGS)
tests_test_gpu_multi_LDADD = $(TP_PLUGIN_TEST_LIBS)
EXTRA_tests_test_gpu_multi_DEPENDENCIES = tilepipe.ini

# The tests of the reference library describe their problems through the
# build tree's registry plus fixture_problem's per-row scales
# (tests/problem_registry.h).
noinst_HEADERS += tests/problem_registry.h
TP_PROBLEM_REGISTRY_SOURCES = tests/problem_registry.c
TP_PROBLEM_REGISTRY_CPP_FLAGS = $(TP_TEST_CPP_FLAGS) \
	-DTP_TEST_REGISTRY='"$(abs_top_builddir)/tilepipe.ini"' \
	-DTP_TEST_PLUGIN_DIR='"$(abs_top_builddir)/tests/plugins/.libs"'
# The f64 reference reading scales by their maps, against cases worked by
# hand; the reference's problems (aligned rows against unaligned, the
# per-row scales, refusals, a whole case run and checked on the CPU, the
# device copy, a registry from INI text); the bound on the GPU's rounding
# of the operands (by hand, and block_scaled's W8A8 fold).
check_PROGRAMS += tests/test_naive_gemm tests/test_ref_problem tests/test_ref_rounding
tests_test_naive_gemm_CPPFLAGS = $(TP_TEST_CPP_FLAGS)
tests_test_naive_gemm_LDADD = tools/reference/libtilepipe_reference.la $(TP_TEST_LIBS)
tests_test_ref_problem_SOURCES = tests/test_ref_problem.c tests/tmpdir.c \
	$(TP_PROBLEM_REGISTRY_SOURCES)
tests_test_ref_problem_CPPFLAGS = $(TP_PROBLEM_REGISTRY_CPP_FLAGS)
tests_test_ref_problem_LDADD = tools/reference/libtilepipe_reference.la $(TP_TEST_LIBS)
EXTRA_tests_test_ref_problem_DEPENDENCIES = tilepipe.ini
noinst_HEADERS += tests/mx_fold.h
tests_test_ref_rounding_SOURCES = tests/test_ref_rounding.c tests/mx_fold.c \
	$(TP_PROBLEM_REGISTRY_SOURCES)
tests_test_ref_rounding_CPPFLAGS = $(TP_PROBLEM_REGISTRY_CPP_FLAGS)
tests_test_ref_rounding_LDADD = tools/reference/libtilepipe_reference.la $(TP_TEST_LIBS)
EXTRA_tests_test_ref_rounding_DEPENDENCIES = tilepipe.ini

# The tilepipe tool (tools/): the public device API (skips, 77, without a
# GPU after checking the no-GPU answers); and the command line end to end
# (test_tool.sh, from the top build folder, on tilepipe.ini and
# fixture_skip_last, a store that leaves D's last element unwritten).
check_PROGRAMS += tests/test_device
tests_test_device_CPPFLAGS = $(TP_TEST_CPP_FLAGS)
tests_test_device_LDADD = $(TP_TEST_LIBS)
# The benchmark's roofline: a shape's fewest bytes, its flops and its floor.
check_PROGRAMS += tests/test_roofline
tests_test_roofline_SOURCES = tests/test_roofline.c tools/roofline.c
tests_test_roofline_CPPFLAGS = $(TP_TEST_CPP_FLAGS)
tests_test_roofline_LDADD = $(TP_TEST_LIBS)
# The benchmark's seeded inputs: their host reference, and the device
# generator against it bit for bit (skips, 77, without a GPU).
check_PROGRAMS += tests/test_seeded_fill
tests_test_seeded_fill_SOURCES = tests/test_seeded_fill.c tools/seeded_role.c \
	tools/reference/codec.c $(TP_PROBLEM_REGISTRY_SOURCES)
tests_test_seeded_fill_CPPFLAGS = $(TP_PROBLEM_REGISTRY_CPP_FLAGS)
tests_test_seeded_fill_LDADD = tools/reference/libtilepipe_reference.la $(TP_TEST_LIBS)
EXTRA_tests_test_seeded_fill_DEPENDENCIES = tilepipe.ini
check_PROGRAMS += tests/test_seeded_gpu
tests_test_seeded_gpu_SOURCES = tests/test_seeded_gpu.c tools/seeded_device.c \
	tools/seeded_problem.c tools/seeded_role.c $(TP_PROBLEM_REGISTRY_SOURCES)
tests_test_seeded_gpu_CPPFLAGS = $(TP_PROBLEM_REGISTRY_CPP_FLAGS) $(CUDA_CPPFLAGS)
tests_test_seeded_gpu_LDADD = tools/reference/libtilepipe_reference.la $(TP_TEST_LIBS)
EXTRA_tests_test_seeded_gpu_DEPENDENCIES = tilepipe.ini
if TP_HAVE_CUDA
tests/test_seeded_gpu-seeded_device.$(OBJEXT): $(TP_SEEDED_CUBIN).h
endif
# The benchmark's accuracy check: the f64 reference on a sample of D; and
# which problems it asks cuBLASLt for (the rows "not compared").
check_PROGRAMS += tests/test_sampled_ref tests/test_cublaslt_problem
tests_test_sampled_ref_SOURCES = tests/test_sampled_ref.c tools/sample.c \
	$(TP_PROBLEM_REGISTRY_SOURCES)
tests_test_sampled_ref_CPPFLAGS = $(TP_PROBLEM_REGISTRY_CPP_FLAGS)
tests_test_sampled_ref_LDADD = tools/reference/libtilepipe_reference.la $(TP_TEST_LIBS)
EXTRA_tests_test_sampled_ref_DEPENDENCIES = tilepipe.ini
tests_test_cublaslt_problem_SOURCES = tests/test_cublaslt_problem.c tools/cublaslt_problem.c \
	$(TP_PROBLEM_REGISTRY_SOURCES)
tests_test_cublaslt_problem_CPPFLAGS = $(TP_PROBLEM_REGISTRY_CPP_FLAGS)
tests_test_cublaslt_problem_LDADD = tools/reference/libtilepipe_reference.la $(TP_TEST_LIBS)
EXTRA_tests_test_cublaslt_problem_DEPENDENCIES = tilepipe.ini
# The order in which the benchmark times its sides (a Williams design).
check_PROGRAMS += tests/test_timing_order
tests_test_timing_order_SOURCES = tests/test_timing_order.c tools/timing.c
tests_test_timing_order_CPPFLAGS = $(TP_TEST_CPP_FLAGS)
tests_test_timing_order_LDADD = $(TP_TEST_LIBS)
# The benchmark's progress lines, SVG picture and CSV and JSON records.
check_PROGRAMS += tests/test_bench_output
tests_test_bench_output_SOURCES = tests/test_bench_output.c tools/bench_progress.c \
	tools/bench_svg.c tools/bench_report.c tools/bench_table.c tools/roofline.c tests/tmpdir.c
tests_test_bench_output_CPPFLAGS = $(TP_TEST_CPP_FLAGS)
tests_test_bench_output_LDADD = $(TP_TEST_LIBS)
check_LTLIBRARIES += tests/plugins/fixture_skip_last.la
tests_plugins_fixture_skip_last_la_SOURCES = tests/plugins/fixture_skip_last.c
tests_plugins_fixture_skip_last_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_skip_last_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
TESTS += tests/test_tool.sh
EXTRA_DIST += tests/test_tool.sh tests/tool_expect.sh
# `bench --backend cpu` end to end: every payload on ragged tiny shapes
# against the BLAS found here (or ours alone), and its refusals.
TESTS += tests/test_tool_bench_cpu.sh
EXTRA_DIST += tests/test_tool_bench_cpu.sh
# The CPU backend's micro-kernels, each forced, and its thread splits.
TESTS += tests/test_cpu_kernels.sh
EXTRA_DIST += tests/test_cpu_kernels.sh
# bench/ab.sh's registry (bench/ab-registry.sh): every variant's sections
# renamed into one registry that `tilepipe bench --versus` takes.
TESTS += tests/test_ab_registry.sh
EXTRA_DIST += tests/test_ab_registry.sh
# bench/tune.sh's bookkeeping against a stand-in for the tool.
TESTS += tests/test_tune.sh
EXTRA_DIST += tests/test_tune.sh

# tp_gemm_desc's struct_size through the entry points, and a payload
# (fixture_desc_size) that says which size of descriptor it was handed.
check_LTLIBRARIES += tests/plugins/fixture_desc_size.la
tests_plugins_fixture_desc_size_la_SOURCES = tests/plugins/fixture_desc_size.c
tests_plugins_fixture_desc_size_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_desc_size_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
check_PROGRAMS += tests/test_gemm_desc
tests_test_gemm_desc_SOURCES = tests/test_gemm_desc.c $(TP_REGISTRY_TEST_SOURCES)
tests_test_gemm_desc_CPPFLAGS = $(TP_REGISTRY_TEST_CPP_FLAGS) \
	-DTP_TEST_REGISTRY='"$(abs_top_builddir)/tilepipe.ini"'
tests_test_gemm_desc_LDADD = $(TP_TEST_LIBS)
EXTRA_tests_test_gemm_desc_DEPENDENCIES = tilepipe.ini

# The bias operand: the core's generic checks (internal functions, so the
# convenience library) and the shipped epilogues' refusal.
check_PROGRAMS += tests/test_bias
tests_test_bias_SOURCES = tests/test_bias.c $(TP_REGISTRY_TEST_SOURCES)
tests_test_bias_CPPFLAGS = $(TP_REGISTRY_TEST_CPP_FLAGS) \
	-DTP_TEST_REGISTRY='"$(abs_top_builddir)/tilepipe.ini"'
tests_test_bias_LDADD = $(TP_TEST_INTERNAL_LIBS)
EXTRA_tests_test_bias_DEPENDENCIES = tilepipe.ini

# The core's generic descriptor rules, each broken alone, the CUDA
# backend's too, and at the edges of int64_t (where the plan fuzzer's
# corpus reaches them too): internal functions.
check_PROGRAMS += tests/test_gemm_check
tests_test_gemm_check_CPPFLAGS = $(TP_TEST_CPP_FLAGS)
tests_test_gemm_check_LDADD = $(TP_TEST_INTERNAL_LIBS)
# The CPU backend touches no byte outside its tensors: each copied next to
# a page it may not read (mmap), every payload, ragged shapes.
check_PROGRAMS += tests/test_cpu_bounds
tests_test_cpu_bounds_CPPFLAGS = $(TP_PLUGIN_TEST_CPP_FLAGS)
tests_test_cpu_bounds_LDADD = $(TP_PLUGIN_TEST_LIBS)
EXTRA_tests_test_cpu_bounds_DEPENDENCIES = tilepipe.ini
# The library's element load and store against the reference's own tables
# of every code's value (tools/reference/codec.c, compiled in).
check_PROGRAMS += tests/test_codec_tables
tests_test_codec_tables_SOURCES = tests/test_codec_tables.c tools/reference/codec.c
tests_test_codec_tables_CPPFLAGS = $(TP_TEST_CPP_FLAGS)
tests_test_codec_tables_LDADD = $(TP_TEST_LIBS) $(LIBM)

# The public link check (tilepipe/link.h) without a link: arguments, its
# versioned structs, the target, refusals, tuning for one link (the
# fixture_tunable payload reports its state's stages); on the build tree's
# registry.
check_PROGRAMS += tests/test_link_check
tests_test_link_check_SOURCES = tests/test_link_check.c $(TP_REGISTRY_TEST_SOURCES)
tests_test_link_check_CPPFLAGS = $(TP_PLUGIN_TEST_CPP_FLAGS) \
	-DTP_TEST_PLUGIN_DIR='"$(abs_top_builddir)/tests/plugins/.libs"'
tests_test_link_check_LDADD = $(TP_PLUGIN_TEST_LIBS)
EXTRA_tests_test_link_check_DEPENDENCIES = tilepipe.ini

# `tilepipe link` end to end (test_tool_link.sh, from the top build folder):
# the shipped pairs link clean without a GPU; fixture_bad_link, a payload
# carrying tests/device/link_ws_unbounded.cu, links with fixture_test_hook
# (tests/device/link_hook.cu) but fails the ptxas check; fixture_grouped_link
# links only the device image that lists its kernel, and fixture_small_link
# (its descriptor ending before device_images) its one device_image.
TESTS += tests/test_tool_link.sh
EXTRA_DIST += tests/test_tool_link.sh

# Without a driver, every GPU test skips naming the missing libcuda.so.1,
# as the library does (test_gpu_skips.sh: every tests/test_gpu_* program
# and the others it names).
TESTS += tests/test_gpu_skips.sh
EXTRA_DIST += tests/test_gpu_skips.sh
# The examples' tests, built out of tree against the tilepipe installed at
# the prefix (test_examples.sh; skips without one, or without a GPU).
TESTS += tests/test_examples.sh
EXTRA_DIST += tests/test_examples.sh
# The mutation audit (docs/testing.md): not run by make check.
EXTRA_DIST += tests/mutants/run.py tests/mutants/mutants.txt

# The C examples of README.md, docs/ and examples/*/README.md, compiled
# with this build's compiler and flags, and those that are programs run;
# their device-code blocks found, as excerpts, in the compiled files they
# name (test_doc_examples.sh; tests/doc_examples/ holds the surroundings of
# the C examples that are parts of a file).
TESTS += tests/test_doc_examples.sh
EXTRA_DIST += tests/test_doc_examples.sh tests/doc_examples
AM_TESTS_ENVIRONMENT = TP_TEST_CC='$(CC)' \
	TP_TEST_CPPFLAGS='-I$(top_srcdir)/include -I$(top_srcdir) -I$(top_builddir) $(CPPFLAGS)' \
	TP_TEST_CFLAGS='$(AM_CFLAGS) $(CFLAGS)' TP_TEST_LDFLAGS='$(LDFLAGS)' \
	TP_TEST_LIBTOOL='$(LIBTOOL)' TP_TEST_PYTHON3='$(PYTHON3)'; \
	export TP_TEST_CC TP_TEST_CPPFLAGS TP_TEST_CFLAGS TP_TEST_LDFLAGS TP_TEST_LIBTOOL \
	TP_TEST_PYTHON3;
# The Python package (python/) against this build's library and registry:
# its pytest suite (test_python.sh; skips without numpy, pytest, ml_dtypes).
TESTS += tests/test_python.sh
EXTRA_DIST += tests/test_python.sh python/pyproject.toml python/README.md \
	python/tilepipe/__init__.py python/tilepipe/abi.py python/tilepipe/calls.py \
	python/tilepipe/dtypes.py python/tilepipe/errors.py python/tilepipe/library.py \
	python/tilepipe/matmul.py python/tilepipe/operands.py python/tilepipe/plan_cache.py \
	python/tilepipe/registry.py python/tilepipe/torch_ops.py python/tilepipe/torch_tensors.py \
	python/tilepipe/warm.py \
	python/tests/conftest.py python/tests/reference.py python/tests/test_abi.py \
	python/tests/test_api.py python/tests/test_payloads.py python/tests/test_reference.py \
	python/tests/test_torch_cpu.py python/tests/test_torch_cuda.py python/tests/run_gpu.sh \
	python/bench.py python/examples/tensor_parallel.py
# The committed outputs of tools/gen/'s generators (wgmma_ops.h) are what
# the generators write now (test_generated.sh; python3, else it skips).
TESTS += tests/test_generated.sh
EXTRA_DIST += tests/test_generated.sh
if TP_HAVE_CUDA
check_LTLIBRARIES += tests/plugins/fixture_bad_link.la
tests_plugins_fixture_bad_link_la_SOURCES = tests/plugins/fixture_bad_link.c
nodist_tests_plugins_fixture_bad_link_la_SOURCES = tests/device/link_ws_unbounded.ltoir.h
tests_plugins_fixture_bad_link_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_bad_link_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
check_LTLIBRARIES += tests/plugins/fixture_test_hook.la
tests_plugins_fixture_test_hook_la_SOURCES = tests/plugins/fixture_test_hook.c
nodist_tests_plugins_fixture_test_hook_la_SOURCES = tests/device/link_hook.ltoir.h
tests_plugins_fixture_test_hook_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_test_hook_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
check_LTLIBRARIES += tests/plugins/fixture_small_link.la
tests_plugins_fixture_small_link_la_SOURCES = tests/plugins/fixture_small_link.c
nodist_tests_plugins_fixture_small_link_la_SOURCES = tests/device/link_kernel.ltoir.h
tests_plugins_fixture_small_link_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_small_link_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
check_LTLIBRARIES += tests/plugins/fixture_grouped_link.la
tests_plugins_fixture_grouped_link_la_SOURCES = tests/plugins/fixture_grouped_link.c
nodist_tests_plugins_fixture_grouped_link_la_SOURCES = tests/device/link_kernel.ltoir.h \
	tests/device/link_ws_unbounded.ltoir.h
tests_plugins_fixture_grouped_link_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_grouped_link_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
endif

# Warming the kernel cache (tilepipe/warm.h) without a GPU: its refusals,
# the named GPU targets, links by worker processes into a fresh folder
# (fixture_small_link's small kernels), a failing one (fixture_bad_link),
# and the standard kernel the link check then reads. test_gpu_warm: on a
# GPU, plans read what a warm linked (skips, 77, without one).
check_PROGRAMS += tests/test_warm tests/test_gpu_warm
tests_test_warm_SOURCES = tests/test_warm.c tests/tmpdir.c tests/nvjitlink_leak.c
tests_test_warm_CPPFLAGS = $(TP_PLUGIN_TEST_CPP_FLAGS) \
	-DTP_TEST_PLUGIN_DIR='"$(abs_top_builddir)/tests/plugins/.libs"'
tests_test_warm_LDADD = $(TP_PLUGIN_TEST_LIBS)
EXTRA_tests_test_warm_DEPENDENCIES = tilepipe.ini
TESTS += tests/test_tool_warm.sh
EXTRA_DIST += tests/test_tool_warm.sh
tests_test_gpu_warm_SOURCES = tests/test_gpu_warm.c tests/tmpdir.c
tests_test_gpu_warm_CPPFLAGS = $(TP_PLUGIN_TEST_CPP_FLAGS)
tests_test_gpu_warm_LDADD = $(TP_PLUGIN_TEST_LIBS)
EXTRA_tests_test_gpu_warm_DEPENDENCIES = tilepipe.ini

# What a hostile caller hands over (issue 40): registries that are FIFOs,
# binary, symbolic link loops or under a 3.8 KB path, a device_image of
# size 0 (fixture_empty_image); the registry's cost at 100k sections and
# keys and its limits (test_registry_scale; `test_registry_scale bench`
# times it); tp_plan_describe's length, a slot's status that is no
# tp_status (fixture_odd_status), a plan outliving its registry's close;
# kernel cache entries that are FIFOs, folders or devices (internals).
check_LTLIBRARIES += tests/plugins/fixture_empty_image.la tests/plugins/fixture_odd_status.la
tests_plugins_fixture_empty_image_la_SOURCES = tests/plugins/fixture_empty_image.c
tests_plugins_fixture_empty_image_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_empty_image_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
tests_plugins_fixture_odd_status_la_SOURCES = tests/plugins/fixture_odd_status.c
tests_plugins_fixture_odd_status_la_CFLAGS = $(TP_FIXTURE_CFLAGS)
tests_plugins_fixture_odd_status_la_LDFLAGS = $(TP_FIXTURE_LDFLAGS)
check_PROGRAMS += tests/test_registry_files tests/test_registry_scale tests/test_plan_contract \
	tests/test_cache_file
tests_test_registry_files_SOURCES = tests/test_registry_files.c $(TP_REGISTRY_TEST_SOURCES)
tests_test_registry_files_CPPFLAGS = $(TP_REGISTRY_TEST_CPP_FLAGS)
tests_test_registry_files_LDADD = $(TP_TEST_LIBS)
tests_test_registry_scale_SOURCES = tests/test_registry_scale.c $(TP_REGISTRY_TEST_SOURCES)
tests_test_registry_scale_CPPFLAGS = $(TP_REGISTRY_TEST_CPP_FLAGS)
tests_test_registry_scale_LDADD = $(TP_TEST_LIBS)
tests_test_plan_contract_SOURCES = tests/test_plan_contract.c $(TP_REGISTRY_TEST_SOURCES)
tests_test_plan_contract_CPPFLAGS = $(TP_REGISTRY_TEST_CPP_FLAGS) \
	-DTP_TEST_REGISTRY='"$(abs_top_builddir)/tilepipe.ini"'
tests_test_plan_contract_LDADD = $(TP_TEST_LIBS)
EXTRA_tests_test_plan_contract_DEPENDENCIES = tilepipe.ini
tests_test_cache_file_SOURCES = tests/test_cache_file.c tests/tmpdir.c
tests_test_cache_file_CPPFLAGS = $(TP_TEST_CPP_FLAGS)
tests_test_cache_file_LDADD = $(TP_TEST_INTERNAL_LIBS)
