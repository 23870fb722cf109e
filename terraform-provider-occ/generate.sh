#!/usr/bin/env bash
# Regenerates the provider's API client: the OpenAPI document from the API's route schemas
# (tools/provider-openapi.ts, no server needed), then internal/client/client.gen.go from it with the
# pinned oapi-codegen (a `tool` of this module's go.mod). Run from anywhere; needs the
# repository's npm dependencies (tsx) and Go. `generate.sh <file.go>` writes the client there
# instead (the acceptance test compares it with the committed one).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
doc=$(mktemp --suffix=.json)
trap 'rm -f "$doc"' EXIT
(cd "$root" && node_modules/.bin/tsx tools/provider-openapi.ts "$doc")
# The configuration's `output`, or the file given (oapi-codegen's -o does not override it).
out=$(realpath -m "${1:-$here/internal/client/client.gen.go}")
config=$(mktemp --suffix=.yaml)
trap 'rm -f "$doc" "$config"' EXIT
sed "s#^output: .*#output: $out#" "$here/internal/client/oapi-codegen.yaml" > "$config"
(cd "$here/internal/client" && go tool oapi-codegen -config "$config" "$doc")
