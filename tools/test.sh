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
echo "== tests";        npx vitest run "$@"
