# syntax=docker/dockerfile:1
# One image for every process: `kisa web` (default), `kisa worker`, `kisa migrate`.
# The Noto CJK and colour emoji fonts let non-Latin result pages screenshot
# as they look (without them CJK text renders as boxes).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/kisa ./cmd/kisa

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium ca-certificates tini \
    fonts-liberation fonts-noto-cjk fonts-noto-color-emoji \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --create-home --uid 10001 kisa
COPY --from=build /out/kisa /usr/local/bin/kisa
# Non-secret defaults only; secrets and service addresses come from the environment.
# TINI_SUBREAPER lets tini run under another init (compose `init: true`) without a warning.
ENV PORT=8080 \
    KISA_CHROME_PATH=/usr/bin/chromium \
    TINI_SUBREAPER=1
USER kisa
EXPOSE 8080
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/kisa"]
CMD ["web"]
