#!/usr/bin/env bash
# Installs what the tests need on a fresh machine of this project's kind, each step only when
# missing: PostgreSQL (Debian package), the npm dependencies, and the cluster binaries + helm.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 && ! command -v postgres >/dev/null; then
  echo "prereqs: installing PostgreSQL (Debian package postgresql)"
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "prereqs: installing npm dependencies"
  npm ci --no-audit --no-fund
fi

bash tools/build-cluster-tools.sh

# The CRDs the Helm chart's objects need in the test cluster (skipped when already copied).
bash tools/crds.sh
