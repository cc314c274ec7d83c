#!/usr/bin/env bash
# Runs after `npm ci` / `npm install` (the `postinstall` script). Three programs come from the OS, not
# npm: redis-server (the embedded default starts a private one when REDIS_URL is unset), Chromium
# (the record/watch page tests drive it with playwright-core) and ffmpeg with ffprobe (the playback
# rendition of every upload, src/videos/rendition/). On this project's machines (Debian,
# root) they are installed with apt-get; elsewhere we say what to do. Never fails the install.
set -u
missing=()
if ! command -v redis-server >/dev/null 2>&1 && [ -z "${REDIS_URL:-}" ]; then missing+=(redis-server); fi
if ! command -v chromium >/dev/null 2>&1 && [ -z "${DOORSTEP_SKIP_CHROMIUM:-}" ]; then missing+=(chromium); fi
if ! command -v ffmpeg >/dev/null 2>&1 || ! command -v ffprobe >/dev/null 2>&1; then missing+=(ffmpeg); fi
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "doorstep: installing ${missing[*]} with apt-get…" >&2
  export DEBIAN_FRONTEND=noninteractive
  if apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; }; then
    # Debian's redis package starts a system service on 6379; Doorstep runs its own private instance.
    if [[ " ${missing[*]} " == *" redis-server "* ]]; then (service redis-server stop >/dev/null 2>&1 || true); fi
    echo "doorstep: installed ${missing[*]}." >&2
    exit 0
  fi
fi
echo "doorstep: please install: ${missing[*]} (Debian/Ubuntu: apt-get install ${missing[*]}; macOS: brew install redis ffmpeg and a Chromium). Or set REDIS_URL." >&2
exit 0
