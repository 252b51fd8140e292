#!/usr/bin/env bash
# Captures testdata/chromium/trace.json.gz: a startup trace of Debian's
# headless chromium (apt-get install chromium) loading testdata/chromium/page.html.
# Tests only read the committed file; chromium is not needed to run them.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chromium --headless=new --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
  --trace-startup=toplevel,blink.user_timing,loading,v8.execute \
  --trace-startup-file="$work/trace.json" --trace-startup-duration=2 --trace-startup-format=json \
  --virtual-time-budget=2000 "file://$PWD/chromium/page.html" >/dev/null 2>&1
gzip -9 -c "$work/trace.json" > chromium/trace.json.gz
ls -l chromium/trace.json.gz
