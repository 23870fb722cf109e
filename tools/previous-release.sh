#!/usr/bin/env bash
# The previous release, built as it shipped: the git ref named in deploy/previous-release is
# exported (`git archive`) into a folder of its own and its image is built by THAT tree's
# tools/image.sh (not ours), tagged occ:previous-<12 hex of the commit>. The result is cached by
# commit, so a warm run builds nothing:
#
#   <OCC_IMAGE_DIR or .image>/previous/<commit>/image/   that build's output: occ.tar (for
#       `ctr images import`), oci/, digest, and app/ — the release's /app as in the image
#       (dist/, bin/, migrations/, production node_modules/, deploy/helm/openclaw-enterprise),
#       which runs on the host too (`node app/bin/occ.js api`);
#   <…>/previous/<commit>/tag                            the image tag, written last (the stamp).
#
# The exported tree needs its development dependencies for its own `tsc`: ours are reused
# (a symlink) when its package-lock.json is byte-identical to ours, otherwise `npm ci` installs
# its own. The Debian root file system and the Node.js binary come from image.sh's own cache
# (<OCC_IMAGE_DIR>/cache, shared with the current image: same names, same contents). The tree is
# removed after the build; app/ is what the tests run.
#
# Used by test/deployed/upgrade.test.ts (through tools/test-deployed.sh) and
# test/integration/upgrade/expand-contract.test.ts. Prints `previous-release: <tag> <dir>` last.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
start=$SECONDS
. tools/node.sh
occ_node_use "$root" || true

ref=$(sed -e 's/#.*//' deploy/previous-release | tr -d '[:space:]')
[ -n "$ref" ] || { echo "previous-release: deploy/previous-release names no git ref" >&2; exit 1; }
# A shallow clone (as some CI systems make) lacks the commit: fetch that one commit first.
if ! git rev-parse --verify --quiet "$ref^{commit}" >/dev/null &&
  [ "$(git rev-parse --is-shallow-repository)" = true ]; then
  echo "previous-release: $ref is not in this shallow clone; fetching it from origin"
  git fetch --quiet --depth=1 origin "$ref" || true
fi
commit=$(git rev-parse --verify --quiet "$ref^{commit}") || {
  echo "previous-release: $ref (deploy/previous-release) is not a commit of this clone;" \
    "fetch its history (git fetch --unshallow) or correct the file" >&2
  exit 1
}
images=${OCC_IMAGE_DIR:-$root/.image}
base="$images/previous/$commit"
tag="occ:previous-${commit:0:12}"
out="$base/image"
# One build at a time per image folder (the integration and deployed tests both ask for it).
mkdir -p "$images/previous"
exec 9>"$images/previous/.lock"
flock 9
if [ "$(cat "$base/tag" 2>/dev/null)" = "$tag" ] && [ -s "$out/occ.tar" ] && [ -x "$out/app/bin/occ.js" ]; then
  echo "previous-release: $ref ($commit) cached"
  echo "previous-release: $tag $out"
  exit 0
fi

echo "previous-release: building $ref ($commit) with its own tools/image.sh"
rm -rf "$base"
tree="$base/tree"
mkdir -p "$tree" "$images/cache" "$out"
git archive --format=tar "$commit" | tar -x -C "$tree"
[ -f "$tree/tools/image.sh" ] || {
  echo "previous-release: $commit has no tools/image.sh; it predates the image build" >&2
  exit 1
}
# Its pinned Node.js, cluster tools and Debian/Node.js caches: shared read-only with ours.
[ -e "$root/.tools" ] && ln -s "$(readlink -f "$root/.tools")" "$tree/.tools"
ln -s "$images/cache" "$out/cache"
if cmp -s "$tree/package-lock.json" "$root/package-lock.json" && [ -d "$root/node_modules" ]; then
  echo "previous-release: its package-lock.json is ours: reusing node_modules"
  ln -s "$root/node_modules" "$tree/node_modules"
else
  echo "previous-release: its package-lock.json differs from ours: npm ci in its tree"
  (cd "$tree" && npm ci --no-audit --no-fund --loglevel=error)
fi
OCC_IMAGE_DIR="$out" OCC_IMAGE_TAG="$tag" bash "$tree/tools/image.sh"
rm -f "$out/cache"
rm -rf "$tree"
echo "$tag" >"$base/tag"
echo "previous-release: $tag built in $((SECONDS - start)) s"
echo "previous-release: $tag $out"
