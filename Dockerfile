# Doorstep's production image: one image, two roles (compose.yaml runs it as `web` and `worker`).
# Not built on the project's machines (no Docker engine there): test/deploy/dockerfile.test.ts
# checks its shape instead. See docs/operations.md.

# Stage 1: the whole lockfile, for tsx (a devDependency, and the TypeScript loader the service runs
# under). --ignore-scripts: the postinstall installs redis-server and Chromium for development
# machines, and the `node` devDependency would fetch a second Node; the image's own Node 24 runs all.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund

# Stage 2: production dependencies only, from the same lockfile.
FROM node:24-bookworm-slim AS runtime-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# Stage 3: what runs. Sources are TypeScript run by tsx (its one dependency, esbuild, is a
# production dependency), so the runtime files are the sources themselves.
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
# ffmpeg and ffprobe: the worker makes every upload's playback rendition (docs/videos.md).
RUN apt-get update && apt-get install -y --no-install-recommends ffmpeg && rm -rf /var/lib/apt/lists/*
COPY --from=runtime-deps /app/node_modules ./node_modules
COPY --from=build /app/node_modules/tsx ./node_modules/tsx
COPY package.json package-lock.json tsconfig.json ./
COPY bin ./bin
COPY jobs ./jobs
COPY src ./src
# DATA_DIR holds only scratch files when DATABASE_URL, REDIS_URL, SMTP_URL and S3_BUCKET are set.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
# `node` directly rather than `npm start`: no npm process between the container's SIGTERM and the
# graceful shutdown (SHUTDOWN_TIMEOUT_MS). The worker runs `node --import tsx bin/worker.ts`.
CMD ["node", "--import", "tsx", "bin/start.ts"]
