# Parley runs its TypeScript directly through Node's type stripping, so there is no build stage:
# the image is production dependencies plus the sources.

FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Both stages share one base image, so native packages (swc, the Temporal core bridge) resolved here for
# this libc and architecture run unchanged in the runtime stage.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# The SIP gateway (src/sip/gateway) is Go: built here, copied as one static binary.
FROM golang:1.24-bookworm AS sip
WORKDIR /gateway
COPY src/sip/gateway/go.mod src/sip/gateway/go.sum ./
RUN go mod download
COPY src/sip/gateway/ ./
RUN CGO_ENABLED=0 go build -trimpath -o /out/parley-sip .

FROM node:24-bookworm-slim AS runtime
# espeak-ng is the text-to-speech engine used when no speech provider is configured.
RUN apt-get update \
 && apt-get install -y --no-install-recommends espeak-ng \
 && rm -rf /var/lib/apt/lists/*

ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 LOG_FORMAT=json SIP_GATEWAY_BIN=/app/bin/parley-sip
WORKDIR /app

# Code stays owned by root so the running user cannot rewrite it; only the data directory (used by the
# embedded `all` role) is writable.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY migrations ./migrations
COPY scripts ./scripts
COPY web ./web
COPY --from=sip /out/parley-sip ./bin/parley-sip
RUN mkdir -p /app/.data && chown node:node /app/.data

USER node
# The api role serves HTTP on 8080 (PORT); the media role serves call streams on 8081 (MEDIA_PORT); the sip role
# hears SIP on 5060 (SIP_PORT) and serves its control API on 8082 (SIP_CONTROL_PORT).
EXPOSE 8080 8081 8082 5060/udp 5060/tcp

# Slim images have no curl; Node's fetch does the probe. Liveness only: readiness (/api/ready) depends on
# Postgres and Temporal, and an orchestrator should not restart the api because a dependency is down.
# The worker role serves no HTTP and the media role serves its own health route, so compose overrides this
# check for both.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

ENTRYPOINT ["node", "src/main.ts"]
CMD ["api"]
