#!/usr/bin/env bash
# The whole test suite, as CI runs it: prerequisites, static checks, unit and integration tests.
# The integration tests start a real etcd + kube-apiserver + kube-controller-manager and a real
# PostgreSQL; if either cannot start, the run fails (it never skips).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/prereqs.sh
echo "== typecheck";    npx tsc -p tsconfig.json --noEmit
echo "== lint";         npx eslint . --max-warnings 0
echo "== format";       npx prettier --check . --log-level warn
echo "== tests"
report=$(mktemp)
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?
# One plain closing line with the counts, whatever the runner printed above it.
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
' "$report" || echo "tests: no test report was written (the run did not start)"
rm -f "$report"
exit "$status"
