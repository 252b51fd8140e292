#!/bin/sh
# Makes the hybrid pair fixture of testdata/rawheap: a dynamic (V2)
# dump and the static dump of the same process, and rawheap_translator's
# .heapsnapshot of the pair (two-file mode: dynamic first) and of the dynamic
# dump alone. Both halves come from small cuts of node's heaps: the dynamic
# one from testdata/leak/baseline (cmd/mkrawheap, with the runtime's
# metadata.json that scripts/rawheap/metadata.sh makes), the static one from
# testdata/node/snapshot (cmd/mkstaticheap), its cross-VM references joining
# objects of the same constructor on both sides.
#   scripts/rawheap/hybrid-fixtures.sh METADATA.json
set -eu
cd "$(dirname "$0")/../.."
meta=${1:?usage: hybrid-fixtures.sh METADATA.json}
T=${TRANSLATOR:-.cache/peers/rawheap_translator-2.0.0/run.sh}
W=.cache/rawheap-fixtures
D=testdata/rawheap
mkdir -p "$W" "$D"
go build -o "$W/mkstaticheap" ./cmd/mkstaticheap
go build -o "$W/mkrawheap" ./cmd/mkrawheap

"$W/mkstaticheap" -cut -max 1500 testdata/leak/baseline.heapsnapshot.gz "$W/hybrid-dyn.heapsnapshot"
"$W/mkrawheap" -meta "$meta" -version 2.0.0 "$W/hybrid-dyn.heapsnapshot" "$W/hybrid.dyn.rawheap"
"$W/mkstaticheap" -max 1000 -hybrid -dyn "$W/hybrid-dyn.heapsnapshot" testdata/node/snapshot.heapsnapshot.gz "$W/hybrid.sta.rawheap"
rm -f "$W/hybrid.heapsnapshot" "$W/hybrid.dyn.heapsnapshot"
"$T" "$W/hybrid.dyn.rawheap" "$W/hybrid.dyn.heapsnapshot" >/dev/null
"$T" "$W/hybrid.dyn.rawheap" "$W/hybrid.sta.rawheap" "$W/hybrid.heapsnapshot" >/dev/null
for f in hybrid.dyn.heapsnapshot hybrid.heapsnapshot; do
	test -s "$W/$f" || { echo "translator wrote no $f" >&2; exit 1; }
done
gzip -9nc "$W/hybrid.dyn.rawheap" >"$D/hybrid.dyn.rawheap.gz"
gzip -9nc "$W/hybrid.sta.rawheap" >"$D/hybrid.sta.rawheap.gz"
gzip -9nc "$W/hybrid.dyn.heapsnapshot" >"$D/hybrid.dyn.translated.heapsnapshot.gz"
gzip -9nc "$W/hybrid.heapsnapshot" >"$D/hybrid.translated.heapsnapshot.gz"
ls -l "$D"/hybrid.*
