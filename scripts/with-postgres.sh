#!/usr/bin/env bash
# Runs a command against a private, throw-away PostgreSQL server: initdb into a temp dir, start it
# on a free port (Unix socket + loopback only), export DATABASE_URL, run the command, stop it.
# PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user.
set -euo pipefail

dir=$(mktemp -d /tmp/doorstep-pg.XXXXXX)
port=$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
as_owner=()
if [ "$(id -u)" = 0 ]; then
  chown postgres "$dir"
  as_owner=(runuser -u postgres --)
fi

cleanup() {
  "${as_owner[@]}" pg_ctl -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT

"${as_owner[@]}" initdb -D "$dir/data" -U doorstep --auth=trust -E UTF8 >/dev/null
"${as_owner[@]}" pg_ctl -D "$dir/data" -l "$dir/server.log" -w \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null
"${as_owner[@]}" createdb -h 127.0.0.1 -p "$port" -U doorstep doorstep

export DATABASE_URL="postgres://doorstep@127.0.0.1:$port/doorstep"
# Processes on a real database must share the Shopify token key (src/config.ts): one for this run.
export TOKEN_ENCRYPTION_KEY="${TOKEN_ENCRYPTION_KEY:-$(node -e "console.log(require('crypto').randomBytes(32).toString('base64'))")}"
echo "PostgreSQL $(postgres --version | awk '{print $3}') on port $port" >&2
"$@"
