# plugin/: the Slurm side, and the tests that run against real Slurm daemons.
EXTRA_DIST += tests/slurm
TESTS += tests/slurm_baseline.sh
