# steer/: what the plugin decides beyond one submission that needs no Slurm
# type (its ledger's power, Slurm's wait-for-switch request, the steering
# rules for pending jobs), shared by job_submit/gpuplace and the
# simulator's plugin-faithful mode.  Its own layer over the engine: not in
# libgpuplace (nothing of it is installed or exported).
libgp_steer_la_SOURCES += steer/steer_rules.c steer/steer_rules.h
