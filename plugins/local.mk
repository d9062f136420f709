# plugins: each a separately built .so
include $(srcdir)/plugins/kit/local.mk
include $(srcdir)/plugins/standard/local.mk
include $(srcdir)/plugins/blockwise_fp8/local.mk
include $(srcdir)/plugins/block_scaled/local.mk
include $(srcdir)/plugins/store/local.mk
include $(srcdir)/plugins/residual/local.mk

# The default registry, listing the plugins above by plain library name.
registry_DATA = plugins/registry.ini
EXTRA_DIST += plugins/registry.ini

# The build tree's registry: the installed one with every library pointed at
# its build folder. It sits in the top build folder as tilepipe.ini, which is
# on the library's search path, so tools/tilepipe run from there finds the
# plugins of this build without --registry; the tests use it too.
noinst_DATA += tilepipe.ini
tilepipe.ini: $(srcdir)/plugins/registry.ini
	$(AM_V_GEN){ echo "; generated from plugins/registry.ini: the plugins of this build tree"; \
	  sed -e '/^;/d' \
	    -e 's|^library = tp_\(.*\)\.so$$|library = $(abs_top_builddir)/plugins/\1/.libs/tp_\1.so|' \
	    $(srcdir)/plugins/registry.ini; } > $@
CLEANFILES += tilepipe.ini
