# svc images: `docker compose up` builds both targets from this file.
#   gateway   — the API and ingest process (:8080), the esbuild bundle of gateway/src/main.ts
#   dashboard — the SvelteKit dashboard (:3000), adapter-node output in dashboard/build
# Stage 1 builds with every dev dependency; the runtime stages install production dependencies only
# (`npm ci --omit=dev`) and copy in what stage 1 built. Both run as the unprivileged `node` user.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY . .
RUN npm ci --no-audit --no-fund
# The dashboard joins the workspaces with its own issue; until then `--if-present` skips it.
RUN npm run build:tracker && npm run build:gateway && npm run build:adapters && (npm run build -w dashboard --if-present || test ! -f dashboard/package.json)

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
# Sources (sql/ migrations and the workspace manifests are read at run time; .dockerignore keeps out
# node_modules, builds and .env), then production dependencies only.
COPY --chown=node:node . .
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM runtime AS gateway
COPY --from=build --chown=node:node /app/gateway/dist gateway/dist
COPY --from=build --chown=node:node /app/tracker/dist tracker/dist
# The data volume's mount point, owned by node so a fresh named volume starts writable (Parquet day files).
RUN mkdir -p /app/.svc-data && chown node:node /app/.svc-data
# The middleware package, served at /adapters.tgz for `npm install https://your-gateway/adapters.tgz`.
COPY --from=build --chown=node:node /app/adapters/pack adapters/pack
USER node
ENV SVC_PORT=8080 SVC_HOST=0.0.0.0
EXPOSE 8080
# /healthz answers {"status":"ok"} (200) without a credential, 503 when PostgreSQL is unreachable.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.SVC_PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--enable-source-maps", "gateway/dist/main.mjs"]

FROM runtime AS dashboard
COPY --from=build --chown=node:node /app/dashboard/build dashboard/build
USER node
ENV PORT=3000
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/').then(r=>process.exit(r.status<500?0:1),()=>process.exit(1))"]
CMD ["node", "dashboard/build"]
