#!/usr/bin/env bash
# Builds the real cluster binaries (etcd, kube-apiserver, kube-controller-manager, kubectl) from
# the pinned Go wrapper module in tools/k8s, and the real helm from tools/helm, into .tools/bin.
# Each group is rebuilt only when a binary is missing or its inputs (go.mod, go.sum, wrapper
# sources, Go version) changed since the last successful build; a stamp file records that.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/.tools/bin"
stamps="$root/.tools/stamps"
mkdir -p "$bin" "$stamps"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod

inputs_key() { # $1 = module dir
  { go version; cat "$0"; find "$1" -type f \( -name '*.go' -o -name go.mod -o -name go.sum \) -print0 |
      sort -z | xargs -0 sha256sum; } | sha256sum | cut -c1-64
}

build_group() { # $1 = name, $2 = module dir, $3 = binaries, $4 = ldflags, rest = packages
  local name=$1 dir=$2 bins=$3 ldflags=$4; shift 4
  local key; key=$(inputs_key "$dir")
  local missing=0
  for b in $bins; do [ -x "$bin/$b" ] || missing=1; done
  if [ $missing -eq 0 ] && [ "$(cat "$stamps/$name" 2>/dev/null)" = "$key" ]; then
    echo "cluster-tools: $name up to date ($bins)"
    return
  fi
  echo "cluster-tools: building $name ($bins); a cold build takes several minutes..."
  local start=$SECONDS
  (cd "$dir" && /usr/bin/time -f "cluster-tools: $name peak RSS %M KiB, wall %e s" \
    go build -ldflags="$ldflags" -o "$bin/" "$@")
  echo "$key" > "$stamps/$name"
  echo "cluster-tools: $name built in $((SECONDS - start)) s"
}

# Stamp the release into the binaries as the Kubernetes release build does, so that
# `kubectl version` and the API server's /version report the pinned release, not v0.0.0.
k8s_version=$(awk '$1 == "k8s.io/kubernetes" {print $2}' "$root/tools/k8s/go.mod")
k8s_minor=$(echo "$k8s_version" | cut -d. -f2)
k8s_ldflags=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  k8s_ldflags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$k8s_minor"
  k8s_ldflags+=" -X $pkg.gitTreeState=clean"
done
build_group kubernetes "$root/tools/k8s" "etcd kube-apiserver kube-controller-manager kubectl" \
  "$k8s_ldflags" \
  ./cmd/etcd k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kubectl
helm_version=$(awk '$1 == "helm.sh/helm/v3" {print $2}' "$root/tools/helm/go.mod")
build_group helm "$root/tools/helm" "helm" "-X helm.sh/helm/v3/internal/version.version=$helm_version" \
  helm.sh/helm/v3/cmd/helm

"$bin/kubectl" version --client=true -o yaml | grep gitVersion | head -1
"$bin/helm" version --short
