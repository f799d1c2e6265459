# power/: fragment of the top-level Makefile.am
# Rack power/cooling headroom, power-cap speed model, live telemetry poller.
libgpuplace_core_la_SOURCES += power/power.h power/estimate.c power/capspeed.c \
	power/parse.c power/telemetry.c
