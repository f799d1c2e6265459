# cost_model/: fragment of the top-level Makefile.am

# communication cost model
libgpuplace_core_la_SOURCES += cost_model/cost.h cost_model/cost.c \
	cost_model/jobspec.c cost_model/cost_shape.c
# cost_model/{request,features,candidates}.*: job request and candidate node sets.
libgpuplace_core_la_SOURCES += cost_model/request.c cost_model/request.h \
	cost_model/features.c cost_model/candidates.c cost_model/candidates.h
