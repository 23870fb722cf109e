#!/usr/bin/env bash
# `npm run test:deployed`: the deployed tests. Builds the image (`npm run image`), then runs the
# vitest project `deployed` against it. Extra arguments go to vitest (a file filter, say).
# OCC_DEPLOYED_REPORT=<file> also writes vitest's JSON report there (tools/test.sh counts it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
start=$SECONDS
bash tools/image.sh
reporters=(--reporter=default)
if [ -n "${OCC_DEPLOYED_REPORT:-}" ]; then
  reporters+=(--reporter=json "--outputFile.json=$OCC_DEPLOYED_REPORT")
fi
status=0
npx vitest run --project deployed "${reporters[@]}" "$@" || status=$?
echo "test-deployed: image and deployed tests took $((SECONDS - start)) s"
exit "$status"
