#!/bin/sh
# Makes the static ("3.0.0") .rawheap fixtures of testdata/rawheap and
# rawheap_translator's .heapsnapshot of each (the oracle the tests compare
# with). Needs the translator bundle unpacked under .cache/peers
# (see /work/shared/tools/README.md or the issue on .rawheap):
#   mkdir -p .cache/peers && tar -C .cache/peers -xJf rawheap_translator-2.0.0.tar.xz
set -eu
cd "$(dirname "$0")/../.."
T=${TRANSLATOR:-.cache/peers/rawheap_translator-2.0.0/run.sh}
W=.cache/rawheap-fixtures
D=testdata/rawheap
mkdir -p "$W" "$D"
go build -o "$W/mkstaticheap" ./cmd/mkstaticheap

# translate makes the translator's output of NAME and gzips both.
translate() {
	name=$1
	rm -f "$W/$name.heapsnapshot"
	"$T" "$W/$name.rawheap" "$W/$name.heapsnapshot" >/dev/null
	test -s "$W/$name.heapsnapshot" || { echo "translator wrote nothing for $name" >&2; exit 1; }
	gzip -9nc "$W/$name.rawheap" >"$D/$name.rawheap.gz"
	gzip -9nc "$W/$name.heapsnapshot" >"$D/$name.translated.heapsnapshot.gz"
}

"$W/mkstaticheap" -max 3000 testdata/node/snapshot.heapsnapshot.gz "$W/static-node.rawheap"
translate static-node
# Three dumps of one process: one numbering of objects.
"$W/mkstaticheap" -max 1500 -focus CacheEntry,RequestContext,Session,TransientRecord \
	testdata/leak/baseline.heapsnapshot.gz "$W/static-leak-baseline.rawheap" \
	testdata/leak/target.heapsnapshot.gz "$W/static-leak-target.rawheap" \
	testdata/leak/final.heapsnapshot.gz "$W/static-leak-final.rawheap"
for s in baseline target final; do
	translate static-leak-$s
done
ls -l "$D"
