# cost_model/sim.*: the discrete-event simulator and `gpuplace simulate`.
