#!/usr/bin/env bash
# run.sh DIR OUT [ROUNDS] — on the many-core machine: unpacks what
# prepare.sh packed into DIR and runs benchrun's cores table ROUNDS times
# (default 2) from the checkout's root (benchrun makes the snapshot htrace
# and the .rawheap of the V8 snapshot, and the Chrome traces from
# testdata): each input at --threads 1, 2 and every core, each run paired
# with the base build's where DIR has one, beside Perfetto's
# trace_processor_shell, the reference trace_streamer and
# rawheap_translator, the same inputs in the same minutes. Then one run of
# each big input at every core with --cpuprofile and --exectrace, written
# under OUT (the traces xz-compressed).
set -euo pipefail
dir=$(cd "${1:?usage: run.sh DIR OUT [ROUNDS]}" && pwd)
mkdir -p "${2:?usage: run.sh DIR OUT [ROUNDS]}"
out=$(cd "$2" && pwd)
rounds=${3:-2}
cd "$(dirname "$0")/../.."
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/bin" "$w/bench" "$w/peers"
echo "cores: $(nproc); $(grep -m1 'model name' /proc/cpuinfo); $(free -g | awk '/Mem:/{print $2" GB"}')"
# Threads per core: "siblings" above "cpu cores" means hyperthreads, which
# share a core and inflate each other's CPU time.
grep -m2 -E '^(siblings|cpu cores)' /proc/cpuinfo | tr -s '\t' ' '
unxz() { xz -dc "$1" >"$2"; chmod +x "$2"; }
unxz "$dir/tracestreamer.xz" "$w/bin/tracestreamer"
unxz "$dir/benchrun.xz" "$w/bin/benchrun"
unxz "$dir/mkhtrace.xz" "$w/bin/mkhtrace"
unxz "$dir/mkrawheap.xz" "$w/bin/mkrawheap"
echo "tracestreamer: $(cat "$dir/rev")"
base=()
if [ -f "$dir/base/tracestreamer.xz" ]; then
	mkdir -p "$w/base"
	unxz "$dir/base/tracestreamer.xz" "$w/base/tracestreamer"
	base=(-base "$w/base")
	echo "base: $(cat "$dir/base/rev")"
fi
for t in "$dir"/*.tar.xz; do tar -C "$w/peers" -xJf "$t"; done
xz -T0 -dc "$dir/snapshot.heapsnapshot.xz" >"$w/bench/snapshot.heapsnapshot"
for r in $(seq "$rounds"); do
	echo "== round $r"
	"$w/bin/benchrun" -bin "$w/bin" ${base[@]+"${base[@]}"} -cache "$w/bench" -peers "$w/peers" -only cores
done
for input in snapshot.htrace snapshot.rawheap trace-real.json; do
	n=${input/./-} # snapshot-htrace, snapshot-rawheap, trace-real-json
	"$w/bin/tracestreamer" -q --cpuprofile "$out/$n.cpu.pprof" --exectrace "$w/$n.trace" "$w/bench/$input" -o "$w/x.db"
	rm -f "$w/x.db"
	xz -T0 -c "$w/$n.trace" >"$out/$n.exectrace.xz"
done
ls -l "$out"
