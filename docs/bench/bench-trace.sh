#!/usr/bin/env bash
# bench-trace.sh: what recording a trace costs `reactorviz serve`. Two servers
# per protocol run side by side, one with --no-trace and one writing a JSONL
# trace (--trace), each pinned to SERVER_CPU, with one worker loop, and the
# same clients as ../shared/peers (wrk, redis-benchmark, pinned to CLIENT_CPU)
# load them in turn, round after round (off on off on ...), so that the
# machine's drift hits both alike. It prints, per bench, the median req/s of
# each, the median of the per-round ratios on/off, and the server CPU, then
# the trace's size and how many events it recorded and dropped.
#
#   docs/bench/bench-trace.sh                     # about 3 minutes
#   ROUNDS=5 BENCHES="http" docs/bench/bench-trace.sh
#
# Needs wrk and redis-benchmark (Debian: wrk redis-tools) and taskset.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5}           # seconds per wrk run
REDIS_N=${REDIS_N:-3000000}       # requests per redis-benchmark run
CONNS=${CONNS:-64}
DEPTH=${DEPTH:-16}                # pipeline depth of http_pipe and the PING benches
BENCHES=${BENCHES:-"http http_pipe ping_inline ping_mbulk"}
SERVER_CPU=${SERVER_CPU:-1}
CLIENT_CPU=${CLIENT_CPU:-0}
BASE_PORT=${BASE_PORT:-18180}
OUT_DIR=${OUT_DIR:-$(mktemp -d /tmp/bench-trace.XXXXXX)}
mkdir -p "$OUT_DIR"
BIN=${BIN:-$OUT_DIR/reactorviz}   # built from this tree unless given

die() { echo "bench-trace: $*" >&2; exit 1; }
for c in wrk redis-benchmark taskset; do command -v "$c" >/dev/null || die "$c not found"; done
if [[ ! -x $BIN ]]; then
	(cd "$here" && go build -o "$BIN" ./cmd/reactorviz) || die "build failed"
fi

# One server per protocol and mode: index = 2*protocol + mode.
protos=(http resp) modes=(off on) pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port_of() { echo $((BASE_PORT + 2 * $1 + $2)); }
start() { # proto-index mode-index
	local port args
	port=$(port_of "$1" "$2")
	args=(serve --protocol "${protos[$1]}" --addr "127.0.0.1:$port" --workers 1 --headless)
	if [[ ${modes[$2]} == on ]]; then
		args+=(--trace "$OUT_DIR/${protos[$1]}.jsonl")
	else
		args+=(--no-trace)
	fi
	setsid taskset -c "$SERVER_CPU" "$BIN" "${args[@]}" >"$OUT_DIR/${protos[$1]}-${modes[$2]}.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
		sleep 0.1
	done
	die "server on $port did not start; see $OUT_DIR"
}

cpu_ticks() { awk '{ sub(/^.*\) /, ""); split($0, f, " "); print f[12] + f[13] }' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

run() { # bench proto-index mode-index pid -> "req/s srv%"
	local b=$1 port out c0 c1 t0 t1 rps
	port=$(port_of "$2" "$3")
	c0=$(cpu_ticks "$4") t0=$(date +%s%N)
	case $b in
	http) out=$(taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNS" -d"${DURATION}s" "http://127.0.0.1:$port/") ;;
	http_pipe) out=$(taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNS" -d"${DURATION}s" \
		-s "$here/docs/bench/pipeline.lua" "http://127.0.0.1:$port/" -- "$DEPTH") ;;
	# redis-benchmark warns that CONFIG GET failed: the server answers
	# only PING, as the peers do.
	ping_*) out=$(taskset -c "$CLIENT_CPU" redis-benchmark -h 127.0.0.1 -p "$port" -c "$CONNS" \
		-n "$REDIS_N" -P "$DEPTH" -t "$b" --csv 2> >(grep -v 'Could not fetch server CONFIG' >&2)) ;;
	esac
	t1=$(date +%s%N) c1=$(cpu_ticks "$4")
	case $b in
	http*)
		grep -qE 'Socket errors|Non-2xx' <<<"$out" && die "$b: client errors: $out"
		rps=$(awk '/^Requests\/sec:/ { print $2 }' <<<"$out") ;;
	*) rps=$(awk -F'"' '/^"PING/ { print $4 }' <<<"$out") ;;
	esac
	echo "$rps $(awk -v c=$((c1 - c0)) -v hz="$hz" -v ns=$((t1 - t0)) 'BEGIN { printf "%.0f", 100 * c / hz / (ns / 1e9) }')"
}

for p in 0 1; do for m in 0 1; do start "$p" "$m"; done; done
echo "binary: $BIN; $ROUNDS rounds; server cpu $SERVER_CPU, client cpu $CLIENT_CPU; results in $OUT_DIR" >&2
: >"$OUT_DIR/raw.tsv"
for b in $BENCHES; do # one warm-up run each, discarded
	p=0; [[ $b == ping_* ]] && p=1
	for m in 0 1; do run "$b" "$p" "$m" "${pids[2 * p + m]}" >/dev/null; done
done
for ((r = 1; r <= ROUNDS; r++)); do
	for b in $BENCHES; do
		p=0; [[ $b == ping_* ]] && p=1
		for m in 0 1; do
			read -r rps srv <<<"$(run "$b" "$p" "$m" "${pids[2 * p + m]}")"
			printf '%s\t%s\t%s\t%s\t%s\n' "$r" "$b" "${modes[$m]}" "$rps" "$srv" >>"$OUT_DIR/raw.tsv"
			printf '  r%-3s %-12s %-4s %12s req/s  srv %3s%%\n' "$r" "$b" "${modes[$m]}" "$rps" "$srv" >&2
		done
	done
done

# Stop the servers so the trace files get their end lines.
cleanup
pids=()
echo
awk -F'\t' -v order="$BENCHES" '
function med(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
{ rps[$2, $3] = rps[$2, $3] " " $4; srv[$2, $3] = srv[$2, $3] " " $5; R[$1, $2, $3] = $4; if ($1 > nr) nr = $1 }
END {
	printf "%-12s %12s %12s %7s %8s %8s\n", "bench", "off req/s", "on req/s", "on/off", "off srv%", "on srv%"
	n = split(order, B, " ")
	for (i = 1; i <= n; i++) {
		b = B[i]; q = ""
		for (r = 1; r <= nr; r++) if (R[r, b, "off"] > 0) q = q " " R[r, b, "on"] / R[r, b, "off"]
		printf "%-12s %12.0f %12.0f %7.2f %8.0f %8.0f\n", b, med(rps[b, "off"]), med(rps[b, "on"]), med(q), med(srv[b, "off"]), med(srv[b, "on"])
	}
}' "$OUT_DIR/raw.tsv"
echo
for p in "${protos[@]}"; do
	f=$OUT_DIR/$p.jsonl
	[[ -f $f ]] || continue
	printf '%s trace: %s MiB, end line: %s\n' "$p" "$(($(stat -c %s "$f") >> 20))" "$(tail -c 300 "$f" | tail -1)"
	rm -f "$f" # they grow by tens of MB a second
done
