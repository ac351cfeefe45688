#!/bin/sh
# Throughput of a model-backed sweep, local and on 1, 2 and 4 local
# worker processes (baton run --nats embedded --local-workers N), against
# the scripted model server (baton model serve --mission invoice) at each
# per-call latency given. Prints a Markdown table: the median of REPS runs
# of each row (wall clock), its units and model calls per second, and the
# CPU time (user + system) of baton and its worker processes.
#
#   sh bench/distributed-models.sh [LATENCY...]     (default: 0ms 20ms)
#
# Environment: REPS (default 3), SCENARIOS (default the 8 below), TRIALS
# (default 2). Every run starts a new embedded server, so no run is
# answered from another's cache: each pays for the same requests.
set -eu

REPS=${REPS:-3}
TRIALS=${TRIALS:-2}
SCENARIOS=${SCENARIOS:-S01, S02, S05, S14, S25, S31, S40, S49}
MUTANTS="ctl-boundary-payment-currency, cl-intake-action-currency, da-boundary-payment-fresh-key"
[ $# -gt 0 ] || set -- 0ms 20ms

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
server=
trap '[ -z "$server" ] || kill -INT $server 2>/dev/null; wait; rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/baton" ./cmd/baton)
baton=$work/baton

nscen=$(printf '%s\n' "$SCENARIOS" | awk -F, '{print NF}')
nmut=$(printf '%s\n' "$MUTANTS" | awk -F, '{print NF}')
units=$(( (nmut + 1) * nscen * TRIALS ))

# run LABEL ARGS...: one timed run into a new folder; prints
# "wall cpu made served".
run() {
	dir=$work/run-$$-$(date +%s%N)
	start=$(date +%s.%N)
	times0=$(awk '{print $14+$15+$16+$17}' /proc/$$/stat)
	"$baton" run --protocol "$work/p.yaml" --run-dir "$dir" -q "$@" >/dev/null 2>"$work/err" || {
		cat "$work/err" >&2
		exit 1
	}
	end=$(date +%s.%N)
	times1=$(awk '{print $14+$15+$16+$17}' /proc/$$/stat)
	tck=$(getconf CLK_TCK)
	made=$(awk '/"made":/ {gsub(/[^0-9]/, "", $2); s += $2} END {print s+0}' "$dir/manifest.json")
	served=$(awk '/"served":/ {gsub(/[^0-9]/, "", $2); s += $2} END {print s+0}' "$dir/manifest.json")
	echo "$start $end $times0 $times1 $tck $made $served" | awk '{printf "%.3f %.2f %d %d\n", $2-$1, ($4-$3)/$5, $6, $7}'
	rm -rf "$dir"
}

echo "Units: $units ($((nmut + 1)) builds x $nscen scenarios x $TRIALS trials); median of $REPS runs; $(nproc) CPUs."
echo
echo "| latency | sweep | wall s | units/s | endpoint calls | endpoint calls/s | answers/s | CPU s |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for latency in "$@"; do
	"$baton" model serve --mission invoice --latency "$latency" -q >"$work/url" &
	server=$!
	i=0
	until [ -s "$work/url" ]; do
		i=$((i + 1))
		[ $i -lt 200 ] || { echo "model server did not start" >&2; exit 1; }
		sleep 0.05
	done
	cat >"$work/p.yaml" <<EOF
name: bench-distributed
mission: {name: invoice}
trials: $TRIALS
seed: 3
scenarios:
  ids: [$SCENARIOS]
mutants:
  ids: [$MUTANTS]
cores:
  "*":
    core: model
    model: invoice-policy
    endpoint: $(cat "$work/url")
EOF
	for sweep in "local 1" "local 4" "workers 1" "workers 2" "workers 4"; do
		set -- $sweep
		if [ "$1" = local ]; then
			label="local, --workers $2"
			args="--workers $2"
		else
			label="--nats embedded --local-workers $2"
			args="--nats embedded --local-workers $2"
		fi
		: >"$work/rows"
		r=0
		while [ $r -lt "$REPS" ]; do
			# shellcheck disable=SC2086
			run $args >>"$work/rows"
			r=$((r + 1))
		done
		sort -n "$work/rows" | awk -v n="$REPS" -v u="$units" -v lat="$latency" -v label="$label" \
			'NR == int((n + 1) / 2) {printf "| %s | %s | %.2f | %.1f | %d | %.1f | %.0f | %.2f |\n", lat, label, $1, u / $1, $3, $3 / $1, ($3 + $4) / $1, $2}'
	done
	kill -INT $server
	wait $server || true
	server=
	rm -f "$work/url"
done
