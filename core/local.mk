# libtilepipe: the core. Host C11 only; the GPU backend reaches the driver and
# nvJitLink through dlopen, so nothing here links against CUDA.
lib_LTLIBRARIES += core/libtilepipe.la
core_libtilepipe_la_SOURCES = \
	core/error.h \
	core/status.c \
	core/version.c
core_libtilepipe_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(INIH_CFLAGS) $(CUDA_CPPFLAGS) \
	-DTP_PLUGIN_DIR='"$(plugindir)"' -DTP_REGISTRY_FILE='"$(registrydir)/registry.ini"'
core_libtilepipe_la_LIBADD = $(INIH_LIBS)
core_libtilepipe_la_LDFLAGS = -version-info $(TP_LT_VERSION) -no-undefined \
	-export-symbols-regex '^tp_'
