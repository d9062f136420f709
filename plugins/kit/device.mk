# device.mk: a tilepipe plugin's device code, built out of tree (GNU make).
# Installed into tilepipe's $(pkgdatadir); a plugin's Makefile includes it
#
#   include $(shell pkg-config --variable=device_mk tilepipe-kit)
#
# and gets
#   NVCC             nvcc: the caller's, else the one on PATH, else
#                    $(CUDA_HOME)/bin/nvcc (CUDA_HOME default /usr/local/cuda);
#                    empty where there is none (NVCC= asks for none): the
#                    plugin is then built without device code
#   %.ltoir.fatbin   from %.cu: LTO-IR for the architecture the installed core
#                    links (`pkg-config --variable=cuda_arch tilepipe-kit`),
#                    with the installed headers, plus the caller's NVCC_FLAGS
#   %.ltoir.h        from %.ltoir.fatbin: its bytes as tp_device_blob[] and
#                    TP_DEVICE_CUDA_VERSION, that nvcc's version
#                    (tilepipe-embed), which tilepipe/plugin/kit/device_image.h puts
#                    into the plugin's descriptor
# A .cu's own headers are prerequisites the Makefile adds
# (`hook.ltoir.fatbin: hook_args.h`). Never a cubin: the core links the
# plugin's LTO-IR with the other plugin's at plan time.
PKG_CONFIG ?= pkg-config
CUDA_HOME ?= /usr/local/cuda
ifeq ($(origin NVCC),undefined)
NVCC := $(shell command -v nvcc 2>/dev/null || \
          { test -x "$(CUDA_HOME)/bin/nvcc" && echo "$(CUDA_HOME)/bin/nvcc"; })
endif
TP_EMBED := $(shell $(PKG_CONFIG) --variable=embed tilepipe-kit)
TP_CUDA_ARCH := $(shell $(PKG_CONFIG) --variable=cuda_arch tilepipe-kit)
TP_NVCC_FLAGS := -std=c++17 -O3 -dc -fatbin \
  -gencode arch=compute_$(TP_CUDA_ARCH),code=lto_$(TP_CUDA_ARCH) \
  $(shell $(PKG_CONFIG) --cflags tilepipe-kit)

%.ltoir.fatbin: %.cu
	"$(NVCC)" $(TP_NVCC_FLAGS) $(NVCC_FLAGS) $< -o $@

%.ltoir.h: %.ltoir.fatbin
	"$(TP_EMBED)" --nvcc "$(NVCC)" $< $@
