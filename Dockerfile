# syntax=docker/dockerfile:1
# EddyDB's image (docs/operations.md, "Container"). Two stages: `build` installs every dependency,
# compiles dist/ and the native addons (hnswlib-node, ours in binding.gyp, hnswlib's AVX builds in
# lib/vector/native; the server picks one by the CPU it runs on), then drops the development
# dependencies; `runtime` takes the result and runs it as the unprivileged `node` user with the data on
# the /data volume. `.ci/image-check.mjs` runs these same steps without Docker, reading this file: it
# knows FROM, ARG, ENV, WORKDIR, COPY (--from, --chown), RUN, USER, VOLUME, EXPOSE, STOPSIGNAL,
# HEALTHCHECK and CMD, and a RUN marked `# image-check: skip` it does not run (system setup).
#
# node:20-bookworm-slim: Debian 12's glibc, which hnswlib-node and our addons compile for and for which
# msgpackr ships prebuilt binaries (Alpine's musl would need them all built), at a fraction of the size
# of node:20; it has no compilers, so only the build stage installs g++, make and python3 for node-gyp,
# and the addons it builds match the runtime stage's node and C library because both use this image.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
# image-check: skip (system packages; the check asks dpkg that the machine has them)
RUN apt-get update \
  && apt-get install -y --no-install-recommends g++ make python3 \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# node-gyp builds against the headers of the image's own node instead of downloading them.
ENV npm_config_nodedir=/usr/local
COPY package.json package-lock.json tsconfig.json tsconfig.build.json binding.gyp ./
COPY bin bin
COPY lib lib
COPY console console
# Builds the addons (the install scripts) and dist/ (the prepare script); npm run build then finds it current.
RUN npm ci --no-audit --no-fund
RUN npm run build
RUN npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
  PORT=8080 \
  HOST=0.0.0.0 \
  EDDYDB_DATA_DIR=/data
WORKDIR /app
# Owned by root and read-only to the server: it writes only under /data.
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY --from=build /app/bin bin
COPY --from=build /app/build/Release/*.node build/Release/
# image-check: skip (the check makes the volume's directory for the user it runs the server as)
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080
# The server stops cleanly on SIGTERM within EDDYDB_SHUTDOWN_TIMEOUT (25 s): give `docker stop` longer.
STOPSIGNAL SIGTERM
# node's fetch: the slim image has no curl. 127.0.0.1 reaches the server on HOST=0.0.0.0.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/api/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node as pid 1 directly (no npm, no shell): SIGTERM reaches the server.
CMD ["node", "bin/eddydb.js", "start"]
