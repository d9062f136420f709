# plugins: each a separately built .so
include $(srcdir)/plugins/common/local.mk
include $(srcdir)/plugins/standard/local.mk
include $(srcdir)/plugins/blockwise_fp8/local.mk
include $(srcdir)/plugins/block_scaled/local.mk
include $(srcdir)/plugins/store/local.mk
include $(srcdir)/plugins/residual/local.mk

# The default registry, listing the plugins above by plain library name.
registry_DATA = plugins/registry.ini
EXTRA_DIST += plugins/registry.ini
