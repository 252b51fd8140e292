#!/usr/bin/env bash
# prepare.sh DIR [BASE] — packs into DIR what run.sh needs on a machine with
# neither Go nor node (the lent 16-core machine, which carries only the
# checkout, 64 MiB of ignored files at most: DIR must be inside it and
# git-ignored, e.g. .cache/cores): static builds of the working tree's
# tracestreamer, benchrun, mkhtrace and mkrawheap, with BASE (a commit) a
# build of that commit's tracestreamer too (DIR/base: run.sh then pairs each
# run of the new build with its run), the peers' bundles, and the
# benchmark's V8 snapshot, all xz-compressed (about 52 MB with BASE). The
# snapshot htrace and the .rawheap are made of the snapshot there by
# benchrun (mkhtrace, mkrawheap), and the Chrome traces from testdata, so
# they need not travel.
#
# Environment: SNAPSHOT, the V8 snapshot (default
# .cache/bench/snapshot.heapsnapshot, `make bench`'s); TOOLS, the peers'
# bundles (default ../shared/tools).
set -euo pipefail
dir=${1:?usage: prepare.sh DIR [BASE]}
base=${2:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
snap=${SNAPSHOT:-$root/.cache/bench/snapshot.heapsnapshot}
tools=${TOOLS:-$root/../shared/tools}
[ -f "$snap" ] || { echo "prepare.sh: no snapshot $snap (make bench writes it)" >&2; exit 1; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
git -C "$root" check-ignore -q "$dir" ||
	{ echo "prepare.sh: $dir must be a git-ignored folder inside the checkout" >&2; exit 1; }
cd "$root"
export CGO_ENABLED=0
build() { go build -trimpath -ldflags='-s -w' -o "$1" "$2"; xz -T0 -f "$1"; }
build "$dir/tracestreamer" ./cmd/tracestreamer
git describe --always --dirty >"$dir/rev"
build "$dir/benchrun" ./internal/cmd/benchrun
build "$dir/mkhtrace" ./cmd/mkhtrace
build "$dir/mkrawheap" ./cmd/mkrawheap
rm -rf "$dir/base"
if [ -n "$base" ]; then
	src=$(mktemp -d)
	trap 'rm -rf "$src"' EXIT
	git archive "$base" | tar -x -C "$src"
	mkdir -p "$dir/base"
	(cd "$src" && build "$dir/base/tracestreamer" ./cmd/tracestreamer)
	git rev-parse --short "$base" >"$dir/base/rev"
fi
cp -f "$tools/trace_processor_shell-v58.2.tar.xz" "$tools/trace_streamer-4.3.7.tar.xz" \
	"$tools/rawheap_translator-2.0.0.tar.xz" "$dir/"
rm -f "$dir/snapshot.htrace.xz" # what earlier versions of this script packed
if [ ! -f "$dir/snapshot.heapsnapshot.xz" ] || [ "$snap" -nt "$dir/snapshot.heapsnapshot.xz" ]; then
	xz -T0 -9 -c "$snap" >"$dir/snapshot.heapsnapshot.xz.tmp"
	mv "$dir/snapshot.heapsnapshot.xz.tmp" "$dir/snapshot.heapsnapshot.xz"
fi
du -sh "$dir"/*
du -sh "$dir"
