# plugins/kit: the plugin kit, what every plugin builds on, in tree and out
# of tree alike (docs/writing-a-payload.md, "The kit"):
#   libtilepipe_kit  a static archive of PIC objects, installed into
#                    $(libdir), that each plugin links into its .so: error
#                    reports, the tuning keys, dtype and scale checks, the
#                    CPU stage and its loaders, the CPU epilogue loop (its
#                    headers: include/tilepipe/plugin/kit/), and the structured
#                    kernel's planner and run arguments (kernel_*.c, one
#                    concept each: include/tilepipe/plugin/kernel/);
#   tilepipe-embed   the device-blob embedder, installed into $(bindir);
#   plugin.mk        the Make fragment an out-of-tree plugin's Makefile
#                    includes (the .so, its device code, its test program,
#                    all/check/install/clean), installed into $(pkgdatadir);
#   tilepipe-kit.pc  `pkg-config --cflags --libs tilepipe-kit`.
# The kit never links libtilepipe: plugins see the core only through the
# host API table and the header-only codecs (tilepipe/plugin/dtype_codec.h).
# -static makes an installed static-only library under
# LT_INIT([disable-static]); -fPIC keeps its objects fit for a .so, and
# -fvisibility=hidden keeps its names out of each plugin's exports.
TP_PLUGIN_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)
TP_PLUGIN_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
TP_PLUGIN_LDFLAGS = -module -avoid-version -no-undefined -shared
TP_PLUGIN_LIBADD = plugins/kit/libtilepipe_kit.la $(LIBM)

lib_LTLIBRARIES += plugins/kit/libtilepipe_kit.la
plugins_kit_libtilepipe_kit_la_SOURCES = \
	plugins/kit/error.c \
	plugins/kit/checks.c \
	plugins/kit/tuning.c \
	plugins/kit/tile_load.c \
	plugins/kit/cpu_stage.c \
	plugins/kit/cpu_microkernel.c \
	plugins/kit/cpu_microkernel.h \
	plugins/kit/cpu_epilogue.c \
	plugins/kit/kernel_plan.c \
	plugins/kit/kernel_instances.c \
	plugins/kit/kernel_shape.c \
	plugins/kit/kernel_layout.c \
	plugins/kit/kernel_launch.c \
	plugins/kit/kernel_gpu_plan.c \
	plugins/kit/kernel_args.c
plugins_kit_libtilepipe_kit_la_CPPFLAGS = $(AM_CPPFLAGS)
plugins_kit_libtilepipe_kit_la_CFLAGS = $(TP_PLUGIN_CFLAGS) -fPIC
plugins_kit_libtilepipe_kit_la_LDFLAGS = -static

dist_bin_SCRIPTS = plugins/kit/tilepipe-embed
dist_pkgdata_DATA = plugins/kit/plugin.mk
pkgconfig_DATA += plugins/kit/tilepipe-kit.pc
