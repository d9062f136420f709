# plugins/standard: the standard payload (bf16, f16, fp8 operands).
plugin_LTLIBRARIES += plugins/standard/tp_standard.la
plugins_standard_tp_standard_la_SOURCES = \
	plugins/standard/standard.h \
	plugins/standard/plugin.c \
	plugins/standard/gpu.c \
	plugins/standard/device/standard_params.h \
	plugins/standard/plan.c \
	plugins/standard/problem.c
plugins_standard_tp_standard_la_CPPFLAGS = $(TP_PLUGIN_CPPFLAGS)
plugins_standard_tp_standard_la_CFLAGS = $(TP_PLUGIN_CFLAGS)
plugins_standard_tp_standard_la_LDFLAGS = $(TP_PLUGIN_LDFLAGS)
plugins_standard_tp_standard_la_LIBADD = $(TP_PLUGIN_LIBADD)
# Its device code: LTO-IR embedded in the .so (build-aux/device.mk), one
# image per operand pair, so that a plan's link reads only its pair's 32
# kernels (docs/kernel.md, "Cold start"). The pairs are the NAMEs of
# TP_STANDARD_OPERANDS (device/standard_params.h), read from its
# X(NAME, A, B) lines, the one list: plugin.c expects an image for each,
# and the .cu knows no other.
STANDARD_GROUPS = ${shell sed -n 's/^ *X(\([a-z0-9_]*\), *TP_DTYPE_.*/\1/p' \
	$(srcdir)/plugins/standard/device/standard_params.h}
STANDARD_GROUP_BLOBS = $(STANDARD_GROUPS:%=plugins/standard/device/standard_mainloop.%.ltoir.fatbin)
EXTRA_DIST += plugins/standard/device/standard_mainloop.cu
if TP_HAVE_CUDA
nodist_plugins_standard_tp_standard_la_SOURCES = plugins/standard/device/standard_mainloop.ltoir.h
TP_DEVICE_BLOBS += plugins/standard/device/standard_mainloop.ltoir.h
$(STANDARD_GROUP_BLOBS): plugins/standard/device/standard_mainloop.%.ltoir.fatbin: \
		$(srcdir)/plugins/standard/device/standard_mainloop.cu $(TP_DEVICE_HEADER_DEPS)
	@$(MKDIR_P) $(@D)
	$(AM_V_GEN)$(NVCC) $(NVCC_DEVICE_FLAGS) -DTP_DEVICE_GROUP=$* $< -o $@
plugins/standard/device/standard_mainloop.ltoir.h: $(STANDARD_GROUP_BLOBS)
	$(AM_V_GEN)$(SHELL) $(top_srcdir)/plugins/kit/tilepipe-embed --nvcc $(NVCC) --groups $@ \
	  $(STANDARD_GROUP_BLOBS)
CLEANFILES += $(STANDARD_GROUP_BLOBS)
endif
