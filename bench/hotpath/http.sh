#!/usr/bin/env bash
# GET /v1/orders/{id}, GET /v1/orders/{id}/events and signed webhooks over HTTP with autocannon (10 connections) on
# one checkout of the repository: `npm start` (no workers, no rate limit) on the PostgreSQL that
# scripts/with-postgres.sh starts. For a before/after, run it on two checkouts, alternating:
#   scripts/with-postgres.sh bench/hotpath/http.sh /tmp/before-checkout before
#   scripts/with-postgres.sh bench/hotpath/http.sh . after
# (a checkout from `git archive <commit> | tar -x -C dir`, with node_modules linked in).
set -euo pipefail
bench_dir=$(cd "$(dirname "$0")" && pwd)
cd "$1"
d=$(mktemp -d /tmp/hotpath-data.XXXX)
port=$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
CARRIER_SANDBOX=on PORT=$port DATA_DIR=$d WORKERS=off RATE_LIMIT_PER_MINUTE=0 LOG_LEVEL=error PUBLIC_URL=http://127.0.0.1:$port \
  node_modules/.bin/node --import tsx bin/start.ts > $d/server.log 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -rf $d' EXIT
for i in $(seq 1 360); do curl -sf http://127.0.0.1:$port/healthz >/dev/null && break; sleep 0.5; done; curl -sf http://127.0.0.1:$port/healthz >/dev/null || { echo no server; cat $d/server.log; exit 1; }
creds=$(CARRIER_SANDBOX=on DATA_DIR=$d node_modules/.bin/node --import tsx src/cli/main.ts accounts create --name Bench --json )
app=$(echo "$creds" | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const j=JSON.parse(s);console.log(j.app_id??j.appId)})")
key=$(echo "$creds" | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const j=JSON.parse(s);console.log(j.api_key??j.apiKey)})")
auth="Authorization: Basic $(printf '%s:%s' "$app" "$key" | base64 -w0)"
id=$(curl -sf -X POST -H "$auth" -H 'Content-Type: application/json' http://127.0.0.1:$port/v1/orders \
  -d '{"name":"A","email":"a@example.com","recipient_name":"B","recipient_email":"b@example.com"}' | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).id))")
for i in 1 2 3 4 5; do curl -sf -X PUT -H "$auth" -H 'Content-Type: application/json' http://127.0.0.1:$port/v1/orders/$id -d "{\"price\": $((i*100))}" >/dev/null; done
for path in "/v1/orders/$id" "/v1/orders/$id/events"; do
  node_modules/.bin/autocannon -c 10 -d ${DUR:-10} -j -H "$auth" "http://127.0.0.1:$port$path" 2>/dev/null \
    | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const j=JSON.parse(s);console.log('$2', '$path'.replace('$id',':id'), 'req/s', Math.round(j.requests.average), 'p50', j.latency.p50, 'non2xx', j.non2xx)})"
done
# Webhook intake (HMAC check, receipt INSERT, enqueue): the script is this checkout's, the server the one under test.
node_modules/.bin/node "$bench_dir/webhook-intake.mjs" "http://127.0.0.1:$port" "${DUR:-10}" "$2"
