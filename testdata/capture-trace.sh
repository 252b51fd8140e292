#!/usr/bin/env bash
# Captures a small real Trace Event Format file with node's built-in tracing
# (X, B/E, b/e, I and M events) into testdata/node/trace.json.
set -euo pipefail
out=$(cd "$(dirname "$0")" && pwd)/node/trace.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
node --trace-events-enabled --trace-event-categories v8,node,node.async_hooks,node.perf -e "
const {performance} = require('perf_hooks');
performance.mark('a'); let x = 0; for (let i = 0; i < 1e6; i++) x += i; performance.mark('b');
performance.measure('loop', 'a', 'b');
setTimeout(() => { require('fs').readFileSync('/etc/hostname'); }, 10);
"
cp node_trace.1.log "$out"
