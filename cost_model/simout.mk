# cost_model/sim_out.c: the simulator's table, CSV/JSON files and gnuplot plots.
libgpuplace_core_la_SOURCES += cost_model/sim_out.c cost_model/sim.h
