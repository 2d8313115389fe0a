# fullsend container image, built by GoReleaser (.goreleaser.yaml,
# dockers_v2) from the static binary it has already compiled for each
# platform: no compiler, no shell, no package manager, and a non-root user.
# The base is distroless "static" (CA certificates, tzdata, /etc/passwd with
# the nonroot user 65532), pinned by digest; update the digest deliberately.
FROM gcr.io/distroless/static:nonroot@sha256:e2e927ec666bae08560abb3c55d0659eceabb657f56b6782ab500a9fc7f555e3
ARG TARGETPLATFORM
COPY $TARGETPLATFORM/fullsend /usr/local/bin/fullsend
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/fullsend"]
CMD ["version"]
