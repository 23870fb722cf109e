#!/usr/bin/env bash
# Builds the real OpenTofu CLI (`tofu`, from the pinned wrapper module tools/tofu) and the OCC
# provider (terraform-provider-occ, from its own module in the repository) into .tools/bin, for
# the provider's acceptance tests (test/integration/tofu). As in build-cluster-tools.sh, each
# binary is rebuilt only when it is missing or its inputs (go.mod, go.sum, Go sources, Go
# version, link flags) changed since the last successful build; a stamp in .tools/stamps
# records that. OCC_TOOLS_DIR builds somewhere else (default .tools).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tools=${OCC_TOOLS_DIR:-$root/.tools}
bin="$tools/bin"
stamps="$tools/stamps"
mkdir -p "$bin" "$stamps"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod

sources_key() { # $1 = module dir, rest = what else the build depends on (link flags, package)
  local dir=$1; shift
  { go version; echo "$@"; find "$dir" -type f \( -name '*.go' -o -name go.mod -o -name go.sum \) -print0 |
      sort -z | xargs -0 sha256sum | sed "s#$dir/##"; } | sha256sum | cut -c1-64
}

build() { # $1 = binary, $2 = module dir, $3 = ldflags, $4 = package
  local name=$1 dir=$2 ldflags=$3 pkg=$4
  local key; key=$(sources_key "$dir" "$ldflags" "$pkg")
  if [ -x "$bin/$name" ] && [ "$(cat "$stamps/$name" 2>/dev/null)" = "$key" ]; then
    echo "build-tofu: $name up to date"
    return
  fi
  echo "build-tofu: building $name..."
  local start=$SECONDS
  (cd "$dir" && /usr/bin/time -f "build-tofu: $name peak RSS %M KiB, wall %e s" \
    go build -ldflags="$ldflags" -o "$bin/$name" "$pkg")
  echo "$key" > "$stamps/$name"
  echo "build-tofu: $name built in $((SECONDS - start)) s"
}

# OpenTofu repeats its hcl fork in a replace directive, which `go install …@version` refuses:
# tools/tofu is a wrapper module that requires the release (a `tool`) and repeats the replace.
# The release is stamped as OpenTofu's own build does, so `tofu version` reports it.
tofu_version=$(awk '$1 == "github.com/opentofu/opentofu" {print $2}' "$root/tools/tofu/go.mod")
build tofu "$root/tools/tofu" "-s -w -X github.com/opentofu/opentofu/version.dev=no" \
  github.com/opentofu/opentofu/cmd/tofu

# The provider, named as OpenTofu's dev_overrides expect (terraform-provider-<type>).
build terraform-provider-occ "$root/terraform-provider-occ" "-s -w -X main.version=0.1.0" .

tofu_said=$(TF_CLI_CONFIG_FILE=/dev/null "$bin/tofu" version)
echo "${tofu_said%%$'\n'*}"
echo "build-tofu: OpenTofu $tofu_version, provider in $bin"
