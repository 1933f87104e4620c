# Builds the single executable, then ships it alone on a slim Debian base.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN node_modules/.bin/bun scripts/build.ts

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/* \
  && useradd --system --home /data --uid 10001 smsdesk && mkdir -p /data && chown smsdesk /data && chmod 0700 /data
COPY --from=build /src/dist/smsdesk /usr/local/bin/smsdesk
USER smsdesk
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
VOLUME /data
EXPOSE 8080
# The image has no curl, and Debian's sh has no /dev/tcp: the executable asks its own /api/health.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["/usr/local/bin/smsdesk", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/smsdesk"]
