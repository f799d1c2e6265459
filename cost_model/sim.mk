# cost_model/sim.*: the discrete-event simulator and `gpuplace simulate`.
libgpuplace_core_la_SOURCES += cost_model/sim.c cost_model/sim.h
