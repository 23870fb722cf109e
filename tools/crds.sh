#!/usr/bin/env bash
# Copies the CustomResourceDefinitions that the Helm chart's objects need (Gateway API's
# Gateway, GatewayClass and HTTPRoute; Envoy Gateway's EnvoyProxy) from the Go module sources of
# the projects that publish them into the git-ignored .tools/crds/, where the chart tests install
# them into the test cluster. The versions are pinned here; `go mod download -json` fetches each
# module through the Go module proxy (no go.mod needed) and reports its folder. Skipped when the
# files are present and the stamp records the same versions.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/.tools/crds"
stamps="$root/.tools/stamps"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod

gateway_api="sigs.k8s.io/gateway-api@v1.6.1"
envoy_gateway="github.com/envoyproxy/gateway@v1.9.1"

# module@version|path inside the module|file name under .tools/crds
files=(
  "$gateway_api|config/crd/standard/gateway.networking.k8s.io_gatewayclasses.yaml|gateway.networking.k8s.io_gatewayclasses.yaml"
  "$gateway_api|config/crd/standard/gateway.networking.k8s.io_gateways.yaml|gateway.networking.k8s.io_gateways.yaml"
  "$gateway_api|config/crd/standard/gateway.networking.k8s.io_httproutes.yaml|gateway.networking.k8s.io_httproutes.yaml"
  "$envoy_gateway|charts/gateway-helm/charts/crds/crds/generated/gateway.envoyproxy.io_envoyproxies.yaml|gateway.envoyproxy.io_envoyproxies.yaml"
)

key=$({ cat "$0"; printf '%s\n' "${files[@]}"; } | sha256sum | cut -c1-64)
present=1
for entry in "${files[@]}"; do [ -s "$out/${entry##*|}" ] || present=0; done
if [ $present -eq 1 ] && [ "$(cat "$stamps/crds" 2>/dev/null)" = "$key" ]; then
  echo "crds: up to date ($gateway_api, $envoy_gateway)"
  exit 0
fi

mkdir -p "$out" "$stamps"
module_dir() { # $1 = module@version → the folder of its extracted source in the module cache
  (cd "$out" && go mod download -json "$1") |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const m=JSON.parse(s);if(m.Error){console.error(m.Error);process.exit(1)}console.log(m.Dir)})'
}
for entry in "${files[@]}"; do
  IFS='|' read -r module path name <<<"$entry"
  dir=$(module_dir "$module")
  cp "$dir/$path" "$out/$name"
  chmod 0644 "$out/$name"
done
echo "$key" > "$stamps/crds"
echo "crds: copied ${#files[@]} CRDs from $gateway_api and $envoy_gateway into .tools/crds"
