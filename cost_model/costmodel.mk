# cost_model/: fragment of the top-level Makefile.am
