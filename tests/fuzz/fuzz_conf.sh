#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# TAP wrapper: run the configuration fuzz target over the rich example's
# files and the topology/block and topology.yaml examples as seeds (a few thousand mutations keep it to a few seconds).
top_src=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
top_build=${GP_TOP_BUILDDIR:-.}
bin="$top_build/tests/fuzz/fuzz_conf"
if [ ! -x "$bin" ]; then
	echo "1..0 # SKIP $bin not built"
	exit 0
fi
GP_FUZZ_ITERATIONS=${GP_FUZZ_ITERATIONS:-1500}
export GP_FUZZ_ITERATIONS
exec "$bin" "$top_src"/tests/data/conf/rich/*.conf "$top_src"/tests/data/conf/block/topology.conf \
	"$top_src"/tests/data/conf/yaml/topology.yaml
