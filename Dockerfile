# The `occ` container image: one binary, run as `occ api`, `occ worker`, `occ migrate` or
# `occ bootstrap` (the Helm chart in deploy/helm/openclaw-enterprise sets the arguments).
#
# Base: the current Node.js LTS line (26) on Debian slim; override with
#   docker build --build-arg NODE_IMAGE=node:<version>-<variant> .
# This file has not been built in the project's own environment (it has no container engine);
# see "Installing with Helm" in docs/operations.md.
ARG NODE_IMAGE=node:26-trixie-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# Compile, keep any non-TypeScript asset under src/ beside its compiled module, then drop the
# development dependencies (bin/occ.js runs dist/ when it exists, so tsx is not needed).
RUN npm run build \
  && (cd src && find . -type f ! -name '*.ts' -exec cp --parents {} ../dist/ \;) \
  && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY bin ./bin
COPY migrations ./migrations
# The `node` user of the official image (uid 1000); the chart's pods run as 1000:1000 with a
# read-only root file system.
USER 1000:1000
ENTRYPOINT ["node", "/app/bin/occ.js"]
CMD ["--help"]
