# syntax=docker/dockerfile:1
# Open Market Gateway: build with Swift 6 on Debian bookworm, run on bookworm-slim with only
# the runtime libraries (the Swift runtime and Foundation are linked statically). Debian's
# libvips42 brings every library it links (ImageMagick, poppler, librsvg…) although the gateway
# calls only its JPEG, PNG, WebP, GIF and HEIF loaders and blocks the untrusted ones.

FROM swift:6.3-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libevent-dev zlib1g-dev libssl-dev libhiredis-dev libvips-dev libnghttp2-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The manifest names every target, so every target's folder must be present.
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
COPY Benchmarks ./Benchmarks
RUN swift build -c release --product gateway --static-swift-stdlib \
    && install -D "$(swift build -c release --show-bin-path)/gateway" /out/gateway

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        libevent-2.1-7 libevent-core-2.1-7 libevent-pthreads-2.1-7 libevent-openssl-2.1-7 libssl3 zlib1g libhiredis0.14 libnghttp2-14 \
        libvips42 libwebpmux3 \
        libstdc++6 libgcc-s1 ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --home-dir /var/lib/gateway --create-home gateway
COPY --from=build /out/gateway /usr/local/bin/gateway
USER gateway
WORKDIR /var/lib/gateway
# Every flag has a GATEWAY_* variable; these are the container's defaults.
ENV GATEWAY_HOST=0.0.0.0 \
    GATEWAY_PORT=8080 \
    GATEWAY_LOG_LEVEL=info
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD curl -fsS "http://127.0.0.1:${GATEWAY_PORT}/healthz" >/dev/null || exit 1
# SIGTERM (docker stop) drains in-flight requests for up to GATEWAY_SHUTDOWN_GRACE seconds.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/gateway"]
