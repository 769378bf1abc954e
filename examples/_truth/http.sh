#!/usr/bin/env bash
# Independent HTTP ground truth (curl + ss, no mcp-matrix code):
#   examples/_truth/http.sh <url> <token|-> <command> [args…]
# Starts the command, waits until it listens, prints its listen sockets (ss -ltnp), the status and
# WWW-Authenticate of an initialize POST without a token, with a wrong one and with the right one,
# the SDK client's view (probe.mjs), then sends SIGTERM and reports how the process ended.
set -u
url=$1 token=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ground-truth","version":"1"}}}'
log=$(mktemp)
"$@" >"$log" 2>&1 &
pid=$!
for _ in $(seq 100); do ss -ltnp | grep -q "pid=$pid," && break; sleep 0.1; done
sleep 0.3 # a second listener may follow the first
echo "## listen sockets of pid $pid"
ss -ltnp | grep "pid=$pid," | awk '{print $4}'
post() { curl -s -o /dev/null -D - -X POST "$url" -H 'content-type: application/json' \
  -H 'accept: application/json, text/event-stream' "$@" -d "$init" | tr -d '\r' | grep -iE '^(HTTP/|www-authenticate)'; }
echo "## no token"; post
echo "## wrong token"; post -H 'authorization: Bearer wrong-token-0000'
if [ "$token" != - ]; then echo "## right token"; post -H "authorization: Bearer $token"; fi
echo "## SDK client"
node "$here/probe.mjs" http "$url" $([ "$token" != - ] && echo "$token") | tr -d '\n' | sed 's/  */ /g'
echo
echo "## SIGTERM"
start=$(date +%s%N)
kill -TERM "$pid"
wait "$pid"
rc=$?
echo "ended after $(( ($(date +%s%N) - start) / 1000000 )) ms: $([ $rc -gt 128 ] && echo "killed by signal $((rc - 128))" || echo "exit code $rc")"
echo "## output (tokens masked)"
sed -E 's/[0-9a-f]{32,}/<hex>/g' "$log" | head -20
rm -f "$log"
