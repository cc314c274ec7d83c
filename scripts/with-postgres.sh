#!/usr/bin/env bash
# Runs a command against a private, throw-away PostgreSQL server (scripts/with-postgres.ts, which
# starts it the one way the tests, the bench and the soak do: test/support/postgres-server.ts).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../node_modules/.bin/node" --import tsx "$here/with-postgres.ts" "$@"
