# Public headers, installed under $(includedir)/tilepipe. The pipeline and
# device headers are installed too: out-of-tree plugins build on them.
tpincludedir = $(includedir)/tilepipe
tpinclude_HEADERS = \
	include/tilepipe/tilepipe.h \
	include/tilepipe/status.h \
	include/tilepipe/dtype.h \
	include/tilepipe/tensor.h \
	include/tilepipe/gemm.h \
	include/tilepipe/tile.h \
	include/tilepipe/registry.h \
	include/tilepipe/plan.h \
	include/tilepipe/plugin.h

tppipelinedir = $(includedir)/tilepipe/pipeline
tppipeline_HEADERS =

TP_PUBLIC_HEADER_FILES = $(tpinclude_HEADERS) $(tppipeline_HEADERS)
