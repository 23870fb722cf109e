#!/usr/bin/env bash
# The whole test suite, as CI runs it: prerequisites, static checks, unit and integration tests,
# then the deployed tests (tools/test-deployed.sh: the image on a real node), all on the pinned
# Node.js release the image runs (tools/node.sh, installed into .tools/node by prereqs.sh).
# The integration tests start a real etcd + kube-apiserver + kube-controller-manager and a real
# PostgreSQL; if either cannot start, the run fails (it never skips).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/prereqs.sh
# Everything below runs on the pinned Node.js release (tools/node.sh), the image's: prereqs.sh
# installed it into .tools/node.
. tools/node.sh
occ_node_use "$PWD" || { echo "test: .tools/node does not hold Node.js $OCC_NODE_VERSION" >&2; exit 1; }
echo "== node $(node --version) ($(command -v node))"
echo "== typecheck";    npx tsc -p tsconfig.json --noEmit && npx tsc -p console/tsconfig.json
echo "== lint";         npx eslint . --max-warnings 0
echo "== format";       npx prettier --check . --log-level warn
echo "== console build"; npm run build:console --silent >/dev/null
echo "== tests"
report=$(mktemp)
deployed=$(mktemp)
status=0
# R5 runs its 100 sequences from one fixed seed, so a red run is replayed exactly
# (`npm run test:model -- --seed <n> --path <p>`); new seeds are explored by the long run. 100,
# not 200 as until issue 40: the failover fault made a sequence dearer, and the suite must stay
# within 45 minutes on 2 cores (200 took 19.5 of them).
export OCC_MODEL_SEED="${OCC_MODEL_SEED:-20261202}"
npx vitest run --project unit --project integration --project model --reporter=default --reporter=json \
  --outputFile.json="$report" "$@" || status=$?
echo "== deployed tests"
OCC_DEPLOYED_REPORT="$deployed" bash tools/test-deployed.sh || status=$?
# One plain closing line with the counts of both runs, whatever the runners printed above it. A
# suite can fail without a failed test (an error in a hook such as afterAll): that is said too,
# and so is a red exit code that no report explains.
OCC_TEST_STATUS="$status" node -e '
  const fs = require("fs");
  const t = { passed: 0, failed: 0, skipped: 0, suites: 0 };
  for (const f of process.argv.slice(1)) {
    if (!fs.existsSync(f) || fs.statSync(f).size === 0) { console.log(`tests: no report in ${f} (a run did not start)`); t.failed++; continue; }
    const r = JSON.parse(fs.readFileSync(f, "utf8"));
    t.passed += r.numPassedTests; t.failed += r.numFailedTests; t.skipped += r.numPendingTests + r.numTodoTests;
    t.suites += r.numFailedTestSuites ?? 0;
  }
  console.log(`tests: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped`);
  if (t.failed === 0 && t.suites > 0) console.log(`tests: ${t.suites} suite(s) failed outside their tests (a hook such as afterAll, or an import); see the errors above`);
  const status = Number(process.env.OCC_TEST_STATUS);
  if (status !== 0 && t.failed === 0 && t.suites === 0) console.log(`tests: the run failed (exit code ${status}) outside any test; see the output above`);
' "$report" "$deployed" "$deployed.leftovers" || echo "tests: the test reports could not be read"
rm -f "$report" "$deployed" "$deployed.leftovers"
exit "$status"
