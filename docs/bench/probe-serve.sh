#!/usr/bin/env bash
# probe-serve.sh: hostile clients against `reactorviz serve` on every
# transport and protocol (docs/security.md, "serve"). For each, a fresh
# server (2 workers) gets, one after another: slowloris, endless headers, a
# 1 MB request line, a pipelining flood without reading, a giant RESP bulk
# length, resets mid-request, 5 000 connections at once and 20 000
# connect/close cycles; then 40 fresh connections must all be answered. The
# server's descriptors, threads and resident memory are printed before and
# after, so what holds today (descriptors back to baseline, every later
# connection answered) keeps holding.
#
# Then, per transport, the server runs under `ulimit -n 64` while a client
# holds 100 connections (most are refused at accept), releases them, and 40
# fresh connections must be answered, ROUNDS times.
#
#   docs/bench/probe-serve.sh                          # about 5 minutes
#   TRANSPORTS="io_uring" PROTOS="http" docs/bench/probe-serve.sh
#
# Linux only; io_uring is skipped where the kernel refuses it.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TRANSPORTS=${TRANSPORTS:-"nio epoll io_uring"}
PROTOS=${PROTOS:-"echo http resp"}
ROUNDS=${ROUNDS:-4}
PORT=${PORT:-18199}
OUT_DIR=${OUT_DIR:-$(mktemp -d /tmp/probe-serve.XXXXXX)}
BIN=${BIN:-$OUT_DIR/reactorviz}
PROBE=$OUT_DIR/probe

(cd "$here" && go build -o "$BIN" ./cmd/reactorviz && go build -o "$PROBE" ./docs/bench/probe) || {
	echo "probe-serve: build failed" >&2
	exit 1
}
ulimit -n 20000 2>/dev/null || echo "probe-serve: could not raise ulimit -n; 5000 connections may fail on the client side" >&2

# snap PID: descriptors, threads and resident memory of the server.
snap() {
	local fds threads rss
	fds=$(ls /proc/"$1"/fd 2>/dev/null | wc -l)
	threads=$(awk '/^Threads:/ {print $2}' /proc/"$1"/status 2>/dev/null)
	rss=$(awk '/^VmRSS:/ {printf "%.0f", $2/1024}' /proc/"$1"/status 2>/dev/null)
	echo "fds $fds threads $threads rss ${rss}MB"
}

# start TRANSPORT PROTO [ulimit]: a server in the background; sets pid.
start() {
	local lim=${3:-}
	if [[ -n $lim ]]; then
		(ulimit -n "$lim" && exec "$BIN" serve --headless --workers 2 --transport "$1" --protocol "$2" --addr 127.0.0.1:$PORT) >"$OUT_DIR/serve-$1-$2.log" 2>&1 &
	else
		"$BIN" serve --headless --workers 2 --transport "$1" --protocol "$2" --addr 127.0.0.1:$PORT >"$OUT_DIR/serve-$1-$2.log" 2>&1 &
	fi
	pid=$!
	for _ in $(seq 50); do
		"$PROBE" -addr 127.0.0.1:$PORT -proto "$2" -n 1 answer 2>/dev/null | grep -q answered && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "  (server did not start: $(tail -1 "$OUT_DIR/serve-$1-$2.log"))"
	pid=
	return 1
}

stop() {
	[[ -n ${pid:-} ]] || return
	kill -INT "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=
}

for t in $TRANSPORTS; do
	for p in $PROTOS; do
		echo "== $t $p"
		start "$t" "$p" || continue
		echo "  before: $(snap "$pid")"
		probes="slowloris flood rst"
		case $p in
		http) probes="$probes headers longline" ;;
		resp) probes="$probes headers bulk" ;;
		esac
		for pr in $probes; do
			echo "  $("$PROBE" -addr 127.0.0.1:$PORT -proto "$p" -n 100 -d 3s "$pr")"
		done
		echo "  $("$PROBE" -addr 127.0.0.1:$PORT -proto "$p" -n 5000 conns)"
		echo "  $("$PROBE" -addr 127.0.0.1:$PORT -proto "$p" -n 20000 cycles)"
		sleep 1 # let the last closes reach the server
		echo "  $("$PROBE" -addr 127.0.0.1:$PORT -proto "$p" -n 40 answer)"
		echo "  after:  $(snap "$pid")"
		stop
	done
done

for t in $TRANSPORTS; do
	echo "== $t under ulimit -n 64: 100 held connections, then 40 fresh ones, $ROUNDS rounds"
	start "$t" http 64 || continue
	echo "  before: $(snap "$pid")"
	for r in $(seq "$ROUNDS"); do
		fifo=$OUT_DIR/hold.$r
		mkfifo "$fifo"
		"$PROBE" -addr 127.0.0.1:$PORT -proto http -n 100 hold <"$fifo" >"$OUT_DIR/hold.$r.log" &
		hp=$!
		exec 7>"$fifo"
		sleep 2
		exec 7>&-
		wait "$hp"
		rm -f "$fifo"
		sleep 1
		echo "  round $r: $(head -1 "$OUT_DIR/hold.$r.log"); $("$PROBE" -addr 127.0.0.1:$PORT -proto http -n 40 answer)"
	done
	echo "  after:  $(snap "$pid")"
	stop
done
echo "logs: $OUT_DIR"
