#!/usr/bin/env bash
# Regenerates the provider's API client: the OpenAPI document from the API's route schemas
# (tools/provider-openapi.ts, no server needed), then internal/client/client.gen.go from it with the
# pinned oapi-codegen (a `tool` of this module's go.mod). Run from anywhere; needs the
# repository's npm dependencies (tsx) and Go.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
doc=$(mktemp --suffix=.json)
trap 'rm -f "$doc"' EXIT
(cd "$root" && node_modules/.bin/tsx tools/provider-openapi.ts "$doc")
(cd "$here/internal/client" && go tool oapi-codegen -config oapi-codegen.yaml "$doc")
