#!/bin/sh
# Fetches Debian's nginx, docker-registry and skopeo (with the libraries skopeo needs) into a cache folder
# for test/registry-e2e.test.ts: `apt-get download` + `dpkg -x`, no installation, no Docker engine.
# Prints the folder the packages were unpacked into; exits non-zero with the reason on stderr when they
# cannot be had (no apt, no network), and the test then skips saying so.
set -eu

CACHE="${SVC_REGISTRY_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/svc-registry-e2e}"
ROOT="$CACHE/root"
PACKAGES="nginx docker-registry skopeo libgpgme11 libdevmapper1.02.1 libassuan0 golang-github-containers-common"

if [ -x "$ROOT/usr/sbin/nginx" ] && [ -x "$ROOT/usr/bin/docker-registry" ] && [ -x "$ROOT/usr/bin/skopeo" ]; then
  echo "$ROOT"
  exit 0
fi

for tool in apt-get dpkg; do
  command -v "$tool" >/dev/null 2>&1 || { echo "fetch-binaries: $tool is not on PATH" >&2; exit 2; }
done

mkdir -p "$CACHE/debs"
cd "$CACHE/debs"
# The package lists may be stale or absent on a fresh host: refresh them once (needs root; a failure is
# left to the download to report).
if [ ! -e "$CACHE/.apt-updated" ]; then
  apt-get update >/dev/null 2>&1 && touch "$CACHE/.apt-updated" || true
fi
if ! apt-get download $PACKAGES >"$CACHE/apt-download.log" 2>&1; then
  echo "fetch-binaries: apt-get download failed (see $CACHE/apt-download.log)" >&2
  exit 3
fi
rm -rf "$ROOT.partial"
mkdir -p "$ROOT.partial"
for deb in ./*.deb; do dpkg -x "$deb" "$ROOT.partial"; done
rm -rf "$ROOT"
mv "$ROOT.partial" "$ROOT"
echo "$ROOT"
