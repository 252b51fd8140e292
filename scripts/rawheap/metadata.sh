#!/bin/sh
# metadata.sh CHECKOUT OUT.json — makes the ArkTS runtime's metadata.json the
# way its build does (BUILD.gn's metadata_generate action): the runtime's own
# script/metadata_generate.py over ecmascript/js_type_metadata, version 1.0.0.
# CHECKOUT is a checkout of openharmony/arkcompiler_ets_runtime (not part of
# this repository); the .rawheap fixtures carry the result inside them.
set -eu
src=${1:?usage: metadata.sh CHECKOUT OUT.json}
out=${2:?usage: metadata.sh CHECKOUT OUT.json}
python3 "$src/script/metadata_generate.py" \
	--enum "$src/ecmascript/js_type_metadata/type_enums.json" \
	--metadata "$src/ecmascript/js_type_metadata" \
	--output "$out" --version 1.0.0
