# syntax=docker/dockerfile:1
# Not built in CI (no container engine on the CI machines): the bundle it copies is built and started
# by apps/koa-server/test/bundle.process.test.ts instead. Node 24 is the newest of the majors CI runs the suites on (20, 22, 24).

FROM node:24-bookworm-slim AS build
RUN npm install -g pnpm@10.34.9
WORKDIR /src
COPY . .
RUN pnpm install --frozen-lockfile \
 && pnpm turbo run build --filter=@cotizaciones/koa-server... \
 && pnpm --filter @cotizaciones/koa-server deploy --prod --legacy /app

FROM node:24-bookworm-slim
# TRUST_PROXY is the deployment's to give, like UPSTREAM_BASE_URL: the address nginx connects from.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
WORKDIR /app
COPY --from=build --chown=node:node /app /app
# The activity spool, the dead-letter file (and a SQLite log): mount a volume that outlives the container here.
RUN mkdir -p /app/data && chown node:node /app/data && chmod 700 /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:3000/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# V8's heap flags keep resident memory within the 150 MB target at 256 connections; the smaller
# semi-spaces cost some CPU (docs/decisions/020-heap-flags.md). Node refuses --heap-growing-percent in NODE_OPTIONS.
CMD ["node", "--heap-growing-percent=50", "--max-semi-space-size=8", "dist/main.js"]
