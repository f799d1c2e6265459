# tools/: the gpuplace command.
bin_PROGRAMS += gpuplace
gpuplace_SOURCES = tools/gpuplace.c tools/commands.h
gpuplace_LDADD = $(GP_LIBS)
