#!/usr/bin/env bash
# Runs after `npm ci` / `npm install`: the embedded default starts a private redis-server, so make
# sure one is installed. On this project's machines (Debian, root) that is `apt-get install
# redis-server`; anywhere else we only say what to do — an install step must never fail the install.
set -u
if command -v redis-server >/dev/null 2>&1; then exit 0; fi
if [ -n "${REDIS_URL:-}" ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "doorstep: installing redis-server (needed when REDIS_URL is unset)…" >&2
  export DEBIAN_FRONTEND=noninteractive
  if (apt-get install -y -qq redis-server >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq redis-server >/dev/null 2>&1; }); then
    # Debian's package starts a system service on 6379; we run our own private instance instead.
    (service redis-server stop >/dev/null 2>&1 || true)
    echo "doorstep: redis-server installed." >&2
    exit 0
  fi
fi
echo "doorstep: redis-server is not installed. Install it (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) or set REDIS_URL." >&2
exit 0
