#!/usr/bin/env bash
# run.sh — runs memlab (npm package memlab, pinned in package.json beside this
# file, installed once into .cache/memlab/node) on the leak fixture's three
# snapshots (testdata/leak, made by testdata/leak/app.js):
#   1. memlab's own command, find-leaks --trace-all-objects, whose summary and
#      leak traces it prints (and its default mode, which reports nothing for a
#      heap without a DOM);
#   2. dump.cjs, the same steps with their results as JSON, written to
#      testdata/leak/memlab.json.gz for TestLeaksAgreeWithMemlab.
# Needs node and the npm registry.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir="$root/.cache/memlab/node"
mkdir -p "$dir"
if ! cmp -s "$here/package.json" "$dir/package.json" || [ ! -d "$dir/node_modules/@memlab/core" ]; then
  cp "$here/package.json" "$dir/package.json"
  # memlab pulls puppeteer in, which is not needed to read snapshots: no browser download.
  (cd "$dir" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund --loglevel=error >&2)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for f in baseline target final; do
  zcat "$root/testdata/leak/$f.heapsnapshot.gz" > "$work/$f.heapsnapshot"
done
snaps=(--baseline "$work/baseline.heapsnapshot" --target "$work/target.heapsnapshot" --final "$work/final.heapsnapshot")
echo "== memlab find-leaks (default options)"
(cd "$dir" && npx --no-install memlab find-leaks "${snaps[@]}" --work-dir "$work/default" 2>&1 | grep -a "leak(s)\|No leaks" || true)
echo "== memlab find-leaks --trace-all-objects"
(cd "$dir" && npx --no-install memlab find-leaks "${snaps[@]}" --trace-all-objects --work-dir "$work/all" > "$work/all.txt" 2>&1) || { tail -20 "$work/all.txt"; exit 1; }
grep -a "leak(s)" "$work/all.txt" | sed 's/.*MemLab/MemLab/'
cp "$work/all/data/out/leaks.txt" "$root/.cache/memlab/leaks.txt"
echo "(leak traces as memlab prints them: .cache/memlab/leaks.txt)"
echo "== the same steps as JSON (dump.cjs)"
NODE_PATH="$dir/node_modules" node "$here/dump.cjs" "$work/baseline.heapsnapshot" "$work/target.heapsnapshot" \
  "$work/final.heapsnapshot" "$work/memlab.json" "$work/dump"
gzip -9nc "$work/memlab.json" > "$root/testdata/leak/memlab.json.gz"
echo "wrote testdata/leak/memlab.json.gz"
