#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Telemetry= Prometheus source against the real servers: a Prometheus
# (Debian 12: 2.42) scraping a Pushgateway every second, both on loopback
# with private ports and a private data directory, stopped by PID.  Rack
# power series are pushed, Prometheus scrapes them, and `gpuplace power
# show` reads them through Prometheus's HTTP API (/api/v1/query): one
# series per rack, a query summing several series per rack, a rack with no
# series, a series that disappears, and every series gone stale when the
# Pushgateway stops.  The loopback server of tests/unit/http_server.c stays for
# fault injection (tests/unit/test_telemetry).  Prints TAP; SKIP without the
# prometheus and prometheus-pushgateway packages.
# Environment: PROMETHEUS, PUSHGATEWAY (binaries), GP_PROM_PORT (29090),
# GP_PUSHGW_PORT (29091).
s=${GP_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
b=${GP_TOP_BUILDDIR:-.}
gp=$b/gpuplace
prom=${PROMETHEUS:-$(command -v prometheus)}
pgw=${PUSHGATEWAY:-$(command -v prometheus-pushgateway)}
pport=${GP_PROM_PORT:-29090}
gport=${GP_PUSHGW_PORT:-29091}
N=7
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
[ -n "$prom" ] && [ -x "$prom" ] || skip_all "prometheus is not installed (Debian: prometheus)"
[ -n "$pgw" ] && [ -x "$pgw" ] || skip_all "prometheus-pushgateway is not installed"
command -v curl >/dev/null 2>&1 || skip_all "curl is not installed"
for p in $pport $gport; do
	curl -s -o /dev/null "http://127.0.0.1:$p/" && skip_all "port $p is in use"
done

D=$(mktemp -d "${TMPDIR:-/tmp}/gp-prom.XXXXXX") || exit 1
gpid=
ppid_=
cleanup() {
	for pid in $ppid_ $gpid; do
		kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
	rm -rf "$D"
}
trap cleanup EXIT INT TERM

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() {
	n=$((n + 1)); echo "not ok $n - $1"
	sed 's/^/# /' "$D/out" "$D/err" 2>/dev/null | head -20
}
check() { if eval "$2"; then ok "$1"; else nok "$1"; fi; }

# wait up to 30 s for a command to succeed
until_ok() {
	i=0
	while ! eval "$1"; do
		i=$((i + 1))
		[ $i -ge 60 ] && return 1
		sleep 0.5
	done
	return 0
}
api() { curl -sf "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1"; }
count_is() { api "count(gp_rack_power_watts)" | grep -q "\"value\":\[[0-9.]*,\"$1\"\]"; }
none_left() { api "gp_rack_power_watts" | grep -q '"result":\[\]'; }
push() { printf '%b' "$2" | curl -sf --data-binary @- "http://127.0.0.1:$gport/metrics/job/pdu/instance/$1"; }
show() { "$gp" power show --conf-dir "$D/conf" >"$D/out" 2>"$D/err"; }
# field F of rack R's row in the output of show (1 RACK, 4 MEASURED_KW, 8 SOURCE)
col() { awk -v r="$1" -v f="$2" '$1 == r { print $f }' "$D/out"; }

echo "1..$N"
"$pgw" --web.listen-address="127.0.0.1:$gport" >"$D/pushgateway.log" 2>&1 &
gpid=$!
cat >"$D/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: pushgateway
    honor_labels: true
    static_configs:
      - targets: ['127.0.0.1:$gport']
EOF
"$prom" --config.file="$D/prometheus.yml" --storage.tsdb.path="$D/data" \
	--web.listen-address="127.0.0.1:$pport" >"$D/prometheus.log" 2>&1 &
ppid_=$!
if ! until_ok "curl -sf -o /dev/null http://127.0.0.1:$pport/-/ready" ||
   ! until_ok "curl -sf -o /dev/null http://127.0.0.1:$gport/-/ready"; then
	for i in $(seq 1 $N); do echo "not ok $i - servers did not start"; done
	tail -5 "$D/prometheus.log" "$D/pushgateway.log" | sed 's/^/# /'
	exit 0
fi

# the site: etc/mixed-pcie (racks rack1-3) with one Prometheus source
mkdir "$D/conf"
cp "$s"/etc/mixed-pcie/*.conf "$D/conf/"
printf '\nTelemetry=prom Type=prometheus URL=http://127.0.0.1:%s Query="sum by (rack) (gp_rack_power_watts)" Interval=5 Timeout=2\n' \
	"$pport" >>"$D/conf/gpuplace.conf"

# rack1: one series; rack2: two PDUs, summed by the query; rack3: none
push r1 'gp_rack_power_watts{rack="rack1"} 4000\n'
push r2 'gp_rack_power_watts{rack="rack2",pdu="a"} 3000\ngp_rack_power_watts{rack="rack2",pdu="b"} 2000.5\n'
until_ok "count_is 3" || echo "# Prometheus did not scrape the pushed series in 30 s"

show; rc=$?
check "power show reads one series per rack through /api/v1/query" \
	'[ $rc -eq 0 ] && [ "$(col rack1 4)" = 4.00 ] && [ "$(col rack1 8)" = prom ]'
check "a query over several series (two PDUs) gives their sum" '[ "$(col rack2 4)" = 5.00 ]'
check "a rack with no series falls back to its estimate and is named" \
	'[ "$(col rack3 4)" = - ] && grep -q "telemetry prom: partial.*rack3" "$D/out"'

# a series that disappears: the group is deleted, Prometheus marks it stale
curl -sf -X DELETE "http://127.0.0.1:$gport/metrics/job/pdu/instance/r1"
until_ok "count_is 2" || echo "# Prometheus still returns rack1's series after 30 s"
show; rc=$?
check "a series that disappears is no longer read" \
	'[ $rc -eq 0 ] && [ "$(col rack1 4)" = - ] && [ "$(col rack2 4)" = 5.00 ]'
# new value for rack2 is read on the next scrape
push r2 'gp_rack_power_watts{rack="rack2",pdu="a"} 6000\ngp_rack_power_watts{rack="rack2",pdu="b"} 1000\n'
until_ok "api 'sum(gp_rack_power_watts)' | grep -q '\"7000\"'" || echo "# new value not scraped"
show
check "a new value is read after the next scrape" '[ "$(col rack2 4)" = 7.00 ]'

# every series stale: the Pushgateway stops, the scrape fails, Prometheus
# marks its series stale and the instant query returns none
kill "$gpid" && wait "$gpid" 2>/dev/null
gpid=
until_ok none_left || echo "# series still returned 30 s after the Pushgateway stopped"
show; rc=$?
check "stale series (target down): no rack measured, the command still answers" \
	'[ $rc -eq 0 ] && [ "$(col rack1 4)" = - ] && [ "$(col rack2 4)" = - ] && [ "$(col rack3 4)" = - ]'
check "the source is reported without samples" 'grep -q "^telemetry prom: " "$D/out"'
