# plugins/common: code several plugins share (checks, tuning keys, the CPU
# stage format and consumer, the epilogue loop, the structured kernel's
# planner and run arguments: kernel_*.c, declared in tilepipe/kernel/*.h),
# linked into each plugin .so.
# Plugins never link libtilepipe: they see the core only through the host
# API table and the header-only codecs (tilepipe/dtype_codec.h).
TP_PLUGIN_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)
TP_PLUGIN_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
TP_PLUGIN_LDFLAGS = -module -avoid-version -no-undefined -shared
TP_PLUGIN_LIBADD = plugins/common/libtp_plugin_common.la -lm

noinst_LTLIBRARIES += plugins/common/libtp_plugin_common.la
plugins_common_libtp_plugin_common_la_SOURCES = \
	plugins/common/errmsg.h \
	plugins/common/errmsg.c \
	plugins/common/checks.h \
	plugins/common/checks.c \
	plugins/common/tuning.h \
	plugins/common/tuning.c \
	plugins/common/stage_tensor.h \
	plugins/common/tile_load.h \
	plugins/common/tile_load.c \
	plugins/common/cpu_stage.h \
	plugins/common/cpu_stage.c \
	plugins/common/device_image.h \
	plugins/common/epilogue_apply.h \
	plugins/common/epilogue_apply.c \
	$(TP_KERNEL_PLAN_SOURCES)
plugins_common_libtp_plugin_common_la_CPPFLAGS = $(TP_PLUGIN_CPPFLAGS)
plugins_common_libtp_plugin_common_la_CFLAGS = $(TP_PLUGIN_CFLAGS)

# The structured kernel's planner and run arguments (tilepipe/kernel/*.h).
TP_KERNEL_PLAN_SOURCES = \
	plugins/common/kernel_plan.c \
	plugins/common/kernel_instances.c \
	plugins/common/kernel_shape.c \
	plugins/common/kernel_layout.c \
	plugins/common/kernel_launch.c \
	plugins/common/kernel_gpu_plan.c \
	plugins/common/kernel_args.c

# The same, installed as a static library for plugins built out of tree
# (examples/int8_w8a8 links it: -ltilepipe_kernel -lm), position
# independent and with hidden symbols, as a plugin's own code is.
lib_LIBRARIES = plugins/common/libtilepipe_kernel.a
plugins_common_libtilepipe_kernel_a_SOURCES = plugins/common/errmsg.c $(TP_KERNEL_PLAN_SOURCES)
plugins_common_libtilepipe_kernel_a_CPPFLAGS = $(TP_PLUGIN_CPPFLAGS)
plugins_common_libtilepipe_kernel_a_CFLAGS = $(TP_PLUGIN_CFLAGS) -fPIC
