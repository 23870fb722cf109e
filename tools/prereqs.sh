#!/usr/bin/env bash
# Installs what the tests need on a fresh machine of this project's kind, each step only when
# missing: PostgreSQL and the node runtime (Debian packages), the pinned Node.js release the
# tests run on (.tools/node, tools/node.sh), the npm dependencies, the cluster binaries, helm
# and kube-score, and OpenTofu with the OCC provider (tools/build-tofu.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
apt_updated=0
apt_install() { # $1 = what it is for, rest = Debian packages
  local why=$1; shift
  echo "prereqs: installing $why (Debian packages $*)"
  [ $apt_updated -eq 1 ] || { $SUDO apt-get update -qq; apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 && ! command -v postgres >/dev/null; then
  apt_install PostgreSQL postgresql
fi

# The console's browser tests (test/integration/e2e/console.e2e.test.ts) drive Debian's Chromium.
if ! command -v chromium >/dev/null; then
  apt_install "the browser for the console's tests" chromium
fi

# The deployed tests' node and image tools: containerd + runc (the container runtime), the CNI
# plugins (bridge, host-local, loopback), iptables (kube-proxy), ipset, iproute2 (the run's
# network namespace), and mmdebstrap + umoci + skopeo (`npm run image`).
node_packages=(containerd runc containernetworking-plugins iptables ipset iproute2 mmdebstrap umoci
  skopeo)
missing=()
for p in "${node_packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt_install "the node runtime and image tools" "${missing[@]}"
fi

# promtool (`promtool test rules` evaluates the chart's alerts): Debian's prometheus package
# ships the real promtool, so no cold Go build of Prometheus is needed on a fresh machine.
command -v promtool >/dev/null || apt_install promtool prometheus

# Node.js 24 from the npm registry's package (tools/node.sh) into .tools/node: tools/test.sh runs
# every test on it; the machine's own node only runs npm until then.
. tools/node.sh
if ! occ_node_use "$root"; then
  echo "prereqs: installing Node.js $OCC_NODE_VERSION into .tools/node ($OCC_NODE_PACKAGE from the npm registry)"
  occ_node_install "$root/.tools/node"
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "prereqs: installing npm dependencies"
  npm ci --no-audit --no-fund
fi

bash tools/build-cluster-tools.sh
# OpenTofu and the OCC provider, for the provider's acceptance test (test/integration/tofu).
bash tools/build-tofu.sh

# The CRDs the Helm chart's objects need in the test cluster (skipped when already copied).
bash tools/crds.sh
