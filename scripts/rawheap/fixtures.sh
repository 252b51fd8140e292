#!/bin/sh
# Makes the dynamic (V1 "1.0.0", its 2024 form, V2 "2.0.0") .rawheap fixtures
# of testdata/rawheap and rawheap_translator's .heapsnapshot of each, the
# oracle ingest's TestRawheapTranslatorEquality compares with. Needs:
#  - the runtime's metadata.json (scripts/rawheap/metadata.sh CHECKOUT .cache/metadata.json),
#  - the translator bundle unpacked under .cache/peers:
#      mkdir -p .cache/peers && tar -C .cache/peers -xJf rawheap_translator-2.0.0.tar.xz
# With arguments, makes only the fixtures they name (fixtures.sh v1-napi).
set -eu
only="$*"
cd "$(dirname "$0")/../.."
T=${TRANSLATOR:-.cache/peers/rawheap_translator-2.0.0/run.sh}
M=${METADATA:-.cache/metadata.json}
W=.cache/rawheap-fixtures
D=testdata/rawheap
mkdir -p "$W" "$D"
go build -o "$W/mkrawheap" ./cmd/mkrawheap

# one makes NAME from a V8 heap with mkrawheap's further flags.
one() {
	name=$1 heap=$2
	shift 2
	case " ${only:-$name} " in *" $name "*) ;; *) return 0 ;; esac
	"$W/mkrawheap" -meta "$M" "$@" "$heap" "$W/$name.rawheap"
	rm -f "$W/$name.heapsnapshot"
	"$T" "$W/$name.rawheap" "$W/$name.heapsnapshot" >/dev/null
	test -s "$W/$name.heapsnapshot" || { echo "translator wrote nothing for $name" >&2; exit 1; }
	gzip -9nc "$W/$name.rawheap" >"$D/$name.rawheap.gz"
	gzip -9nc "$W/$name.heapsnapshot" >"$D/$name.translated.heapsnapshot.gz"
}

N=testdata/node/snapshot.heapsnapshot.gz
# 2024: eight zero bytes, no timestamp, two object sections.
one v1-2024 $N -max 4000 -version 2024
# 2025: version and timestamp.
one v1 $N -max 4000 -version 1.0.0
one v2 $N -max 4000 -version 2.0.0
# V1 with wrapped NAPI objects (JS_WRAPPED_NAPI_OBJECT) and the native
# pointers of their NativePointers arrays: the NativeAddressN edges. Of the
# V8 heap only its root (no object): a small file, mostly the metadata.
one v1-napi $N -max 1 -version 1.0.0 -napi
# 2026: space/heap/VM header fields, handle-root groups, global-ref group
# (tracking off), JsLeakWatcher's hashes in the ids.
one v2-2026 $N -max 4000 -version 2.0.0 -header -roots -hash
# Three dumps of one process, 60 s apart (as the static trio): a timeline of
# one heap each, which SmartPerf-Host would otherwise draw on top of each other.
ts=1764000000000000 # µs, the runtime's system clock
for s in baseline target final; do
	one v1-2026-leak-$s testdata/leak/$s.heapsnapshot.gz -max 25000 -version 1.0.0 -header -roots -hash \
		-focus CacheEntry,RequestContext,Session,TransientRecord -timestamp $ts
	ts=$((ts + 60000000))
done
ls -l "$D"
