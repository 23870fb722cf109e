#!/usr/bin/env bash
# Builds the real cluster binaries (etcd, kube-apiserver, kube-controller-manager, kubectl) and
# the node components (kubelet, kube-scheduler, kube-proxy) from the pinned Go wrapper module in
# tools/k8s, the real helm from tools/helm and kube-score from tools/kube-score into .tools/bin,
# and the node's pause image from the kubelet's own pause.c into .tools/images/pause.tar.
# Each group is rebuilt only when a binary is missing or its inputs (go.mod, go.sum, wrapper
# sources, Go version, its packages and link flags) changed since the last successful build; a
# stamp file records that. Editing this script for one group leaves the others' stamps valid.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/.tools/bin"
stamps="$root/.tools/stamps"
mkdir -p "$bin" "$stamps"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod

inputs_key() { # $1 = module dir, rest = what else the build depends on (link flags, packages)
  local dir=$1; shift
  { go version; echo "$@"; find "$dir" -type f \( -name '*.go' -o -name go.mod -o -name go.sum \) -print0 |
      sort -z | xargs -0 sha256sum; } | sha256sum | cut -c1-64
}

build_group() { # $1 = name, $2 = module dir, $3 = binaries, $4 = ldflags, rest = packages
  local name=$1 dir=$2 bins=$3 ldflags=$4; shift 4
  local key; key=$(inputs_key "$dir" "$ldflags" "$@")
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
# The node components for the deployed tests (tools/test-deployed.sh), a group of their own so
# that the cluster binaries above stay up to date when only this group changes.
build_group node "$root/tools/k8s" "kubelet kube-scheduler kube-proxy" "$k8s_ldflags" \
  k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kube-proxy

# kube-router's NetworkPolicy controller (the deployed tests run it with --run-firewall only, so
# that tenant isolation is proven by traffic): a module of its own (its Kubernetes client
# libraries are older than tools/k8s's), pinned in tools/kube-router/go.mod.
build_group kube-router "$root/tools/kube-router" "kube-router" "" \
  github.com/cloudnativelabs/kube-router/v2/cmd/kube-router

# The pause image (the sandbox of every pod): the kubelet's own pause.c from the pinned module,
# linked statically, as the only file of a one-layer image, for containerd's `sandbox_image`.
pause_ref="occ.local/pause:$k8s_version"
pause_tar="$root/.tools/images/pause.tar"
pause_src=$(cd "$root/tools/k8s" && go list -m -f '{{.Dir}}' k8s.io/kubernetes)/build/pause/linux/pause.c
pause_key=$({ echo "$pause_ref"; gcc --version | head -1; sha256sum "$pause_src"; } | sha256sum | cut -c1-64)
if [ -s "$pause_tar" ] && [ "$(cat "$stamps/pause" 2>/dev/null)" = "$pause_key" ]; then
  echo "cluster-tools: pause image up to date ($pause_ref)"
else
  work=$(mktemp -d)
  gcc -Os -static -DVERSION="$k8s_version" -o "$work/pause" "$pause_src"
  umoci init --layout "$work/oci"
  umoci new --image "$work/oci:pause"
  umoci unpack --image "$work/oci:pause" "$work/bundle" >/dev/null
  install -m 0755 "$work/pause" "$work/bundle/rootfs/pause"
  umoci repack --image "$work/oci:pause" "$work/bundle"
  umoci config --image "$work/oci:pause" --config.entrypoint=/pause --config.user=65535:65535
  mkdir -p "$(dirname "$pause_tar")"
  rm -f "$pause_tar"
  skopeo copy --quiet "oci:$work/oci:pause" "docker-archive:$pause_tar:$pause_ref"
  rm -rf "$work"
  echo "$pause_key" > "$stamps/pause"
  echo "cluster-tools: pause image $pause_ref built from $pause_src"
fi

# helm's default Kubernetes version (`.Capabilities.KubeVersion` without --kube-version, and
# the deprecation lint) is 1.20 unless stamped, which fails the chart's kubeVersion: stamp the
# pinned cluster's, as helm's own Makefile does from its client-go version.
helm_version=$(awk '$1 == "helm.sh/helm/v3" {print $2}' "$root/tools/helm/go.mod")
helm_ldflags="-X helm.sh/helm/v3/internal/version.version=$helm_version"
for pkg in helm.sh/helm/v3/pkg/chartutil helm.sh/helm/v3/pkg/lint/rules; do
  helm_ldflags+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$k8s_minor"
done
build_group helm "$root/tools/helm" "helm" "$helm_ldflags" helm.sh/helm/v3/cmd/helm

# kube-score, the manifest checker test/integration/helm/kube-score.test.ts runs on both of the
# chart's renderings: a module of its own, pinned in tools/kube-score/go.mod, stamped with its
# release as its own release build does.
kube_score_version=$(awk '$1 == "github.com/zegl/kube-score" {print $2}' "$root/tools/kube-score/go.mod")
build_group kube-score "$root/tools/kube-score" "kube-score" "-X main.version=$kube_score_version" \
  github.com/zegl/kube-score/cmd/kube-score

"$bin/kubectl" version --client=true -o yaml | grep gitVersion | head -1
"$bin/helm" version --short
"$bin/kube-score" version
