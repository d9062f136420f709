# plugins/block_scaled: MXFP8 and NVFP4 with per-vector scale factors.
plugin_LTLIBRARIES += plugins/block_scaled/tp_block_scaled.la
plugins_block_scaled_tp_block_scaled_la_SOURCES = \
	plugins/block_scaled/block_scaled.h \
	plugins/block_scaled/plugin.c \
	plugins/block_scaled/plan.c \
	plugins/block_scaled/problem.c \
	plugins/block_scaled/cpu.c \
	plugins/block_scaled/gpu.c \
	plugins/block_scaled/device/block_scaled_params.h
plugins_block_scaled_tp_block_scaled_la_CPPFLAGS = $(TP_PLUGIN_CPPFLAGS)
plugins_block_scaled_tp_block_scaled_la_CFLAGS = $(TP_PLUGIN_CFLAGS)
plugins_block_scaled_tp_block_scaled_la_LDFLAGS = $(TP_PLUGIN_LDFLAGS)
plugins_block_scaled_tp_block_scaled_la_LIBADD = $(TP_PLUGIN_LIBADD)
# Its device code: LTO-IR embedded in the .so (build-aux/device.mk), one
# image per operand group (MXFP8 W8A16, W4A16, bf16, MXFP8 W8A8 per fp8 pair), so that
# a plan's link reads only its group's kernels. The groups are the NAMEs
# of TP_BLOCK_SCALED_OPERANDS (device/block_scaled_params.h), read from
# its X(NAME, A, B, T) lines, the one list: plugin.c expects an image for
# each, and the .cu knows no other; a group's T (1: it has the transposed
# kernels too, 2: only those) reaches the .cu as TP_DEVICE_GROUP_T, read
# from the same line.
BLOCK_SCALED_GROUPS = ${shell sed -n 's/^ *X(\([a-z0-9_]*\), *TP_DTYPE_.*/\1/p' \
	$(srcdir)/plugins/block_scaled/device/block_scaled_params.h}
BLOCK_SCALED_GROUP_BLOBS = \
	$(BLOCK_SCALED_GROUPS:%=plugins/block_scaled/device/block_scaled_mainloop.%.ltoir.fatbin)
EXTRA_DIST += plugins/block_scaled/device/block_scaled_mainloop.cu \
	plugins/block_scaled/device/fold.h
if TP_HAVE_CUDA
nodist_plugins_block_scaled_tp_block_scaled_la_SOURCES = \
	plugins/block_scaled/device/block_scaled_mainloop.ltoir.h
TP_DEVICE_BLOBS += plugins/block_scaled/device/block_scaled_mainloop.ltoir.h
$(BLOCK_SCALED_GROUP_BLOBS): plugins/block_scaled/device/block_scaled_mainloop.%.ltoir.fatbin: \
		$(srcdir)/plugins/block_scaled/device/block_scaled_mainloop.cu \
		$(srcdir)/plugins/block_scaled/device/fold.h \
		$(srcdir)/plugins/block_scaled/device/block_scaled_params.h $(TP_DEVICE_HEADER_DEPS)
	@$(MKDIR_P) $(@D)
	$(AM_V_GEN)$(NVCC) $(NVCC_DEVICE_FLAGS) -DTP_DEVICE_GROUP=$* \
	  -DTP_DEVICE_GROUP_T=$$(sed -n 's/^ *X($*, [^,]*, [^,]*, *\([012]\)).*/\1/p' \
	    $(srcdir)/plugins/block_scaled/device/block_scaled_params.h) $< -o $@
plugins/block_scaled/device/block_scaled_mainloop.ltoir.h: $(BLOCK_SCALED_GROUP_BLOBS)
	$(AM_V_GEN)$(SHELL) $(top_srcdir)/plugins/kit/tilepipe-embed --nvcc $(NVCC) --groups $@ \
	  $(BLOCK_SCALED_GROUP_BLOBS)
CLEANFILES += $(BLOCK_SCALED_GROUP_BLOBS)
endif
