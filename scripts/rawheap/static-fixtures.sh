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

# one makes NAME from a V8 heap with mkstaticheap's further flags.
one() {
	name=$1 heap=$2
	shift 2
	"$W/mkstaticheap" "$@" "$heap" "$W/$name.rawheap"
	rm -f "$W/$name.heapsnapshot"
	"$T" "$W/$name.rawheap" "$W/$name.heapsnapshot" >/dev/null
	test -s "$W/$name.heapsnapshot" || { echo "translator wrote nothing for $name" >&2; exit 1; }
	gzip -9nc "$W/$name.rawheap" >"$D/$name.rawheap.gz"
	gzip -9nc "$W/$name.heapsnapshot" >"$D/$name.translated.heapsnapshot.gz"
}

one static-node testdata/node/snapshot.heapsnapshot.gz -max 3000
for s in baseline target final; do
	one static-leak-$s testdata/leak/$s.heapsnapshot.gz -max 1500 -focus CacheEntry,RequestContext,Session,TransientRecord
done
ls -l "$D"
