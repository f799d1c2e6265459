# plugin/: fragment of the top-level Makefile.am
