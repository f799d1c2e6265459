# cost_model/sim_out.c: the simulator's table, CSV/JSON files and gnuplot plots.
