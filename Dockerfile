# The `occ` container image: one binary, run as `occ api`, `occ worker`, `occ migrate` or
# `occ bootstrap` (the Helm chart in deploy/helm/openclaw-enterprise sets the arguments).
#
# `npm run image` (tools/image.sh) builds the same image without a container engine; the test
# test/deployed/image.test.ts keeps the two equal (the file list of /app and the image config).
#
# Runtime base: Debian trixie with Debian's Node.js (20.19, allowed by `engines`; Debian
# maintains it for trixie's lifetime), exactly what tools/image.sh builds. Both bases are
# selectable; a base that already has `node` (for example node:24-trixie-slim) is used as is:
#   docker build --build-arg BASE_IMAGE=node:24-trixie-slim --build-arg BUILD_IMAGE=node:24-trixie-slim .
ARG BUILD_IMAGE=node:20-trixie-slim
ARG BASE_IMAGE=debian:trixie-slim

FROM ${BUILD_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
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
# Debian's Node.js unless the base has one; the user 1000:1000 by name unless the base has one
# (node:*-slim has `node`): the kubelet passes the image's uid alone and the group comes from
# /etc/passwd.
RUN if ! command -v node >/dev/null; then \
      apt-get update \
      && apt-get install -y --no-install-recommends nodejs ca-certificates \
      && rm -rf /var/lib/apt/lists/*; \
    fi \
  && if ! getent passwd 1000 >/dev/null; then \
      groupadd -g 1000 occ && useradd -u 1000 -g 1000 -d /app -s /usr/sbin/nologin -M occ; \
    fi
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
# The chart's pods run as 1000:1000 with a read-only root file system.
USER 1000:1000
ENTRYPOINT ["node", "/app/bin/occ.js"]
CMD ["--help"]
