# cost_model/trace.*: job traces for the simulator (CSV, synthetic generator).
