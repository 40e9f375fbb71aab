# The demo stack's images, one target per service (compose.yaml builds each):
#   gatehouse    the proxy, and gwctl for `docker compose exec gatehouse gwctl …`
#   mock-idp     the bridged IdP
#   mcp-backend  the MCP server gatehouse protects
# `build` compiles the commands (`npm run build`: esbuild bundles in <workspace>/dist, which import
# npm packages from node_modules). `prod-deps` installs the production dependencies and copies, for
# each image, only the packages its own workspaces need, as `npm ls --omit=dev` resolves them. Each
# runtime image holds its bundles, its manifests and those packages — no TypeScript, no tsx, no
# dev tools — and runs as the unprivileged `node` user (uid 1000).
FROM node:22-bookworm-slim AS manifests
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY redact/package.json redact/
COPY support/package.json support/
COPY proxy/package.json proxy/
COPY mock-idp/package.json mock-idp/
COPY mock-mcp/package.json mock-mcp/
COPY conformance/package.json conformance/
COPY gwctl/package.json gwctl/
COPY bench/package.json bench/
COPY peers/package.json peers/
COPY mutation/package.json mutation/

FROM manifests AS build
RUN npm ci --ignore-scripts
COPY tsconfig.json ./
COPY scripts/build.ts scripts/build-config.ts scripts/build-ui.ts scripts/
COPY proxy proxy
COPY mock-idp mock-idp
COPY mock-mcp mock-mcp
COPY gwctl gwctl
COPY redact redact
COPY support support
RUN npm run build -- proxy gwctl mock-idp mock-mcp

FROM manifests AS prod-deps
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
# /deps/<image>/: the production closure of that image's workspaces, at the paths npm installed
# it — node_modules/… and, for a version that could not be hoisted (the root holds another major
# for a dev tool), <workspace>/node_modules/…. Our own workspaces (@gatehouse/*) are inlined by the
# build and left out.
RUN set -e; for spec in gatehouse:proxy,gwctl mock-idp:mock-idp mcp-backend:mock-mcp; do \
      image=${spec%%:*}; workspaces=$(echo "${spec#*:}" | sed 's/^/-w /; s/,/ -w /g'); \
      mkdir -p "/deps/$image"; \
      npm ls --omit=dev --all --parseable $workspaces \
        | sed -n 's|^/app/\(\([a-z-]*/\)\{0,1\}node_modules/.*\)|\1|p' \
        | grep -v 'node_modules/@gatehouse/' | sort -u \
        > "/deps/$image.list"; \
      test -s "/deps/$image.list"; \
      tar -cf - -T "/deps/$image.list" | tar -xf - -C "/deps/$image"; \
    done

FROM node:22-bookworm-slim AS gatehouse
WORKDIR /app
ENV NODE_ENV=production
RUN ln -s /app/gwctl/bin/gwctl.js /usr/local/bin/gwctl
COPY --from=prod-deps /deps/gatehouse/ ./
COPY proxy/package.json proxy/
COPY gwctl/package.json gwctl/
COPY --from=build /app/proxy/bin/gatehouse.js proxy/bin/
COPY --from=build /app/proxy/dist proxy/dist
COPY --from=build /app/gwctl/bin/gwctl.js gwctl/bin/
COPY --from=build /app/gwctl/dist gwctl/dist
COPY examples/compose examples/compose
# The state directory: the broker's default store (SQLite, state.sqlite) lives here; compose.yaml
# mounts a named volume on it so that a restarted or recreated container keeps its registrations.
ENV GATEHOUSE_STATE_DIR=/var/lib/gatehouse
RUN mkdir -p /var/lib/gatehouse && chown node:node /var/lib/gatehouse && chmod 0700 /var/lib/gatehouse
USER node
EXPOSE 3000
CMD ["node", "proxy/bin/gatehouse.js", "-f", "examples/compose/gatehouse.yaml"]

FROM node:22-bookworm-slim AS mock-idp
WORKDIR /app
ENV NODE_ENV=production
COPY --from=prod-deps /deps/mock-idp/ ./
COPY mock-idp/package.json mock-idp/
COPY --from=build /app/mock-idp/bin/mock-idp.js mock-idp/bin/
COPY --from=build /app/mock-idp/dist mock-idp/dist
USER node
EXPOSE 9000
CMD ["node", "mock-idp/bin/mock-idp.js", "--host=0.0.0.0", "--port=9000"]

FROM node:22-bookworm-slim AS mcp-backend
WORKDIR /app
ENV NODE_ENV=production
COPY --from=prod-deps /deps/mcp-backend/ ./
COPY mock-mcp/package.json mock-mcp/
COPY --from=build /app/mock-mcp/bin/mcp-backend.js mock-mcp/bin/
COPY --from=build /app/mock-mcp/dist mock-mcp/dist
USER node
EXPOSE 8090
CMD ["node", "mock-mcp/bin/mcp-backend.js", "--host=0.0.0.0", "--port=8090"]
