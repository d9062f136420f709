# Device code: a .cu file becomes LTO-IR data inside the .so that owns it.
#
#   foo.cu --nvcc -dc -fatbin code=lto_90a--> foo.ltoir.fatbin --bin2c--> foo.ltoir.h
#
# The owning C file includes foo.ltoir.h, so the .so carries the LTO-IR as a
# byte array and never registers a kernel with cudart. The core links such
# blobs with nvJitLink at plan time (see docs/architecture.md).
#
# The embedder is the kit's tilepipe-embed (plugins/kit/), the one that is
# installed for plugins built out of tree; --nvcc records nvcc's version in
# foo.ltoir.h for the descriptor (tilepipe/plugin/kit/device_image.h). A payload
# whose kernels come in groups (tp_device_image) builds its .cu once per
# group G with -DTP_DEVICE_GROUP=G into foo.G.ltoir.fatbin, and
# `tilepipe-embed --groups` writes them all into foo.ltoir.h as
# tp_device_blob_G; its local.mk holds those rules
# (plugins/standard/local.mk).
NVCC_DEVICE_FLAGS = -std=c++17 -O3 -dc -fatbin \
	-gencode arch=compute_$(CUDA_ARCH),code=lto_$(CUDA_ARCH) \
	-I$(top_srcdir)/include -I$(top_srcdir) -I$(top_builddir) $(NVCC_EXTRA_FLAGS)

# Every device translation unit depends on the public device headers.
TP_DEVICE_HEADER_DEPS = $(TP_PUBLIC_HEADER_FILES:%=$(top_srcdir)/%)

%.ltoir.fatbin: %.cu $(TP_DEVICE_HEADER_DEPS)
	@$(MKDIR_P) $(@D)
	$(AM_V_GEN)$(NVCC) $(NVCC_DEVICE_FLAGS) $< -o $@

%.ltoir.h: %.ltoir.fatbin
	$(AM_V_GEN)$(SHELL) $(top_srcdir)/plugins/kit/tilepipe-embed --nvcc $(NVCC) $< $@

EXTRA_DIST += build-aux/device.mk
CLEANFILES += $(TP_DEVICE_BLOBS) $(TP_DEVICE_BLOBS:.ltoir.h=.ltoir.fatbin)
.PRECIOUS: %.ltoir.fatbin
