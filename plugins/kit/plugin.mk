# plugin.mk: a tilepipe plugin built out of tree (GNU make), its test
# program, its install. Installed into tilepipe's $(pkgdatadir); a plugin's
# Makefile says what is its own, then includes it:
#
#   PLUGIN = mine
#   PLUGIN_SOURCES = plugin.c plan.c cpu.c
#   PLUGIN_GPU_SOURCES = gpu.c
#   PLUGIN_DEVICE_SOURCE = mine_kernel.cu
#   PLUGIN_HEADERS = mine.h mine_params.h
#   PLUGIN_TEST_ARGS = $(MORE)
#   PKG_CONFIG ?= pkg-config
#   include $(or $(shell $(PKG_CONFIG) --variable=plugin_mk tilepipe-kit),\
#     $(error pkg-config finds no tilepipe-kit: install tilepipe, or set PKG_CONFIG_PATH to its lib/pkgconfig))
#
#   PLUGIN                the plugin's name: tp_$(PLUGIN).so, tested by test_$(PLUGIN).c
#   PLUGIN_SOURCES        its host C sources
#   PLUGIN_GPU_SOURCES    host C sources built only with device code (gpu_plan, gpu_args)
#   PLUGIN_DEVICE_SOURCE  its .cu, if it has device code
#   PLUGIN_HEADERS        its own headers: prerequisites of the .so and the LTO-IR
#   PLUGIN_TEST_ARGS      the test's arguments after the .so's absolute path
# Only PLUGIN and PLUGIN_SOURCES are required. Targets:
#   all (the default)  tp_$(PLUGIN).so and test_$(PLUGIN)
#   check              runs ./test_$(PLUGIN) /abs/path/tp_$(PLUGIN).so $(PLUGIN_TEST_ARGS)
#                      (its exit 77, the CUDA backend not checked, is a SKIP)
#   install            copies tp_$(PLUGIN).so into $(DESTDIR)$(INSTALL_PLUGINDIR)
#   clean              removes what the others made
#
# Device code is built when there is both a PLUGIN_DEVICE_SOURCE and an
# nvcc: the .cu becomes LTO-IR for the architecture the installed core
# links (`pkg-config --variable=cuda_arch tilepipe-kit`, with the installed
# headers and the caller's NVCC_FLAGS; never a cubin: the core links it
# with the other plugin's at plan time), and tilepipe-embed turns that into
# the header $(PLUGIN_DEVICE_SOURCE:.cu=.ltoir.h): its bytes as
# tp_device_blob[] and TP_DEVICE_CUDA_VERSION, that nvcc's version, which
# <tilepipe/plugin/kit/device_image.h> puts into the descriptor. The host
# sources are compiled with TP_KIT_DEVICE_CODE 1 then, and with 0 (and
# without PLUGIN_GPU_SOURCES) otherwise: the plugin carries no device code
# and its plans run on the CPU backend. Switching between the two needs a
# `make clean`.
#
# The .so: the host sources with -fPIC -fvisibility=hidden (only
# tp_plugin_entry, declared TP_PLUGIN_EXPORT, is exported) and
# -Wl,-z,defs (every symbol resolved by the kit, libc and libm), linked
# with the kit (`pkg-config --libs tilepipe-kit`), never libtilepipe: a
# plugin reaches the core only through the host API table. The test
# program: test_$(PLUGIN).c linked with libtilepipe and its f64 reference
# (tilepipe-reference.pc) with an rpath, so it runs without
# LD_LIBRARY_PATH, and compiled with TP_PLUGINDIR, the installed plugin
# folder, where it finds the shipped plugins.
#
# The user's variables (make VAR=value):
#   PKG_CONFIG   pkg-config to ask for tilepipe (default pkg-config; point
#                PKG_CONFIG_PATH at a tilepipe installed elsewhere)
#   CUDA_HOME    CUDA toolkit root, searched for nvcc when it is not on PATH
#                (default /usr/local/cuda)
#   NVCC         nvcc to use; empty (NVCC=) builds a CPU-only plugin
#   NVCC_FLAGS   more nvcc flags for the device source
#   PREFIX       where `make install` puts the plugin: PREFIX's tilepipe
#                plugin folder, laid out as tilepipe's own (default:
#                tilepipe's own prefix, so the registry finds the plugin by
#                its plain name); DESTDIR is honoured
#   CC, CFLAGS   the C compiler and its flags (default -O2 -g)
PKG_CONFIG ?= pkg-config
CUDA_HOME ?= /usr/local/cuda
CFLAGS ?= -O2 -g
ifeq ($(origin NVCC),undefined)
NVCC := $(shell command -v nvcc 2>/dev/null || \
          { test -x "$(CUDA_HOME)/bin/nvcc" && echo "$(CUDA_HOME)/bin/nvcc"; })
endif
ifeq ($(strip $(PLUGIN)),)
$(error set PLUGIN, the plugin's name, before including plugin.mk)
endif
ifeq ($(strip $(PLUGIN_SOURCES)),)
$(error set PLUGIN_SOURCES, the plugin's host C sources, before including plugin.mk)
endif

TP_KIT := $(shell $(PKG_CONFIG) --cflags --libs tilepipe-kit)
TP_REF_CFLAGS := $(shell $(PKG_CONFIG) --cflags tilepipe-reference)
TP_REF_LIBS := $(shell $(PKG_CONFIG) --libs tilepipe-reference) \
  -Wl,-rpath,$(shell $(PKG_CONFIG) --variable=libdir tilepipe-reference)
TP_PLUGINDIR := $(shell $(PKG_CONFIG) --variable=plugindir tilepipe)
PREFIX ?= $(shell $(PKG_CONFIG) --variable=prefix tilepipe)
INSTALL_PLUGINDIR := $(shell $(PKG_CONFIG) --define-variable=prefix=$(PREFIX) \
                       --variable=plugindir tilepipe)
TP_WARN = -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes

TP_SO = tp_$(PLUGIN).so
TP_TEST = test_$(PLUGIN)
ifneq ($(and $(strip $(NVCC)),$(strip $(PLUGIN_DEVICE_SOURCE))),)
TP_DEVICE_HEADER = $(PLUGIN_DEVICE_SOURCE:.cu=.ltoir.h)
TP_HOST_SOURCES = $(PLUGIN_SOURCES) $(PLUGIN_GPU_SOURCES)
TP_DEVICE_CPPFLAGS = -DTP_KIT_DEVICE_CODE=1
TP_BUILT = with device code ($(NVCC))
else
TP_DEVICE_HEADER =
TP_HOST_SOURCES = $(PLUGIN_SOURCES)
TP_DEVICE_CPPFLAGS = -DTP_KIT_DEVICE_CODE=0
TP_BUILT = CPU-only (no device code: $(if $(strip $(NVCC)),no PLUGIN_DEVICE_SOURCE,NVCC is empty))
endif

.DEFAULT_GOAL := all
.PHONY: all check install clean
all: $(TP_SO) $(TP_TEST)
	@echo "$(PLUGIN): built $(TP_BUILT)"

ifneq ($(TP_DEVICE_HEADER),)
TP_EMBED := $(shell $(PKG_CONFIG) --variable=embed tilepipe-kit)
TP_CUDA_ARCH := $(shell $(PKG_CONFIG) --variable=cuda_arch tilepipe-kit)
TP_NVCC_FLAGS := -std=c++17 -O3 -dc -fatbin \
  -gencode arch=compute_$(TP_CUDA_ARCH),code=lto_$(TP_CUDA_ARCH) \
  $(shell $(PKG_CONFIG) --cflags tilepipe-kit)

$(PLUGIN_DEVICE_SOURCE:.cu=.ltoir.fatbin): $(PLUGIN_DEVICE_SOURCE) $(PLUGIN_HEADERS)
	"$(NVCC)" $(TP_NVCC_FLAGS) $(NVCC_FLAGS) $< -o $@

$(TP_DEVICE_HEADER): $(PLUGIN_DEVICE_SOURCE:.cu=.ltoir.fatbin)
	"$(TP_EMBED)" --nvcc "$(NVCC)" $< $@
endif

$(TP_SO): $(TP_HOST_SOURCES) $(PLUGIN_HEADERS) $(TP_DEVICE_HEADER)
	$(CC) $(TP_WARN) $(CFLAGS) -fPIC -fvisibility=hidden -shared -Wl,-z,defs \
	  $(TP_DEVICE_CPPFLAGS) -I. $(TP_HOST_SOURCES) -o $@ $(TP_KIT)

$(TP_TEST): $(TP_TEST).c
	$(CC) $(TP_WARN) -D_POSIX_C_SOURCE=200809L $(CFLAGS) $(TP_REF_CFLAGS) \
	  -DTP_PLUGINDIR='"$(TP_PLUGINDIR)"' $< -o $@ $(TP_REF_LIBS) -lm

# The test exits 77 when it could not check the CUDA backend (no GPU, no
# device code): a skip, said so and not an error.
check: $(TP_SO) $(TP_TEST)
	@./$(TP_TEST) "$(CURDIR)/$(TP_SO)" $(PLUGIN_TEST_ARGS); rc=$$?; \
	if [ $$rc -eq 77 ]; then echo "$(PLUGIN): SKIP (the CUDA backend was not checked)"; \
	else exit $$rc; fi

install: $(TP_SO)
	mkdir -p "$(DESTDIR)$(INSTALL_PLUGINDIR)"
	cp $(TP_SO) "$(DESTDIR)$(INSTALL_PLUGINDIR)/$(TP_SO)"

clean:
	rm -f $(TP_SO) $(TP_TEST) $(PLUGIN_DEVICE_SOURCE:.cu=.ltoir.fatbin) \
	  $(PLUGIN_DEVICE_SOURCE:.cu=.ltoir.h)
