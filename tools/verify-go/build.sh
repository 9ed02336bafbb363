#!/bin/sh
# Builds verify-go with Debian's Go toolchain and golang-golang-x-mod-dev, offline, in GOPATH mode.
# Usage: tools/verify-go/build.sh OUTPUT_PATH
set -eu
if [ $# -ne 1 ]; then
  echo "usage: $0 OUTPUT_PATH" >&2
  exit 2
fi
out=$1
case "$out" in /*) ;; *) out="$(pwd)/$out" ;; esac
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -d /usr/share/gocode/src/golang.org/x/mod/sumdb/note ]; then
  echo "golang.org/x/mod is not in /usr/share/gocode: install Debian's golang-golang-x-mod-dev" >&2
  exit 1
fi
# Go needs a writable build cache; HOME may be read-only in CI, so default to a private temp dir.
cache=${GOCACHE:-}
cleanup=
if [ -z "$cache" ]; then
  cache=$(mktemp -d)
  cleanup=$cache
fi
cd "$here"
status=0
GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="$cache" GOFLAGS= GOTOOLCHAIN=local CGO_ENABLED=0 \
  go build -trimpath -o "$out" . || status=$?
if [ -n "$cleanup" ]; then rm -rf "$cleanup"; fi
exit $status
