#!/usr/bin/env bash
# Independent ground truth for the conformance phase behind OAuth (no mcp-matrix code):
#   examples/_truth/conformance.sh <port> <path> '<command line>' '<suite command>' [scenario…]
# Starts oauth-as.mjs (its own key and JWKS; exports TRUTH_ISSUER, TRUTH_JWKS_URI, TRUTH_AUDIENCE as oauth.sh does),
# the command line, and bearer-proxy.mjs in front of it with the valid JWT; then runs each scenario of the official
# suite (first an initialize through the proxy with curl; then `conformance server --url <proxy><path> --scenario <name> -o <dir>`) one after another and prints, per
# scenario, every check's id and status from its checks.json (and a FAILURE's message); with no scenario named, every
# server scenario the suite lists. The suite command is split on spaces ('<node 22> <path>/conformance'). Tokens are
# never printed.
set -u
port=$1 path=$2 command=$3 suite=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
log=$(mktemp)
as='' pid='' proxy=''
# The server runs in its own process group (npx and its node child): on any exit, the whole group goes, then the files.
cleanup() {
  [ -n "$proxy" ] && kill "$proxy" 2>/dev/null
  [ -n "$as" ] && kill "$as" 2>/dev/null
  [ -n "$pid" ] && kill -- "-$pid" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$work" "$log"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
export TRUTH_AUDIENCE="http://127.0.0.1:$port$path"
node "$here/oauth-as.mjs" "$work" &
as=$!
for _ in $(seq 100); do [ -s "$work/issuer" ] && break; sleep 0.1; done
TRUTH_ISSUER=$(cat "$work/issuer")
export TRUTH_ISSUER TRUTH_JWKS_URI="$TRUTH_ISSUER/jwks.json"
setsid bash -c "$command" >"$log" 2>&1 &
pid=$!
for _ in $(seq 150); do ss -ltnp | grep -q "pid=$pid," && break; sleep 0.1; done
sleep 0.3
node "$here/bearer-proxy.mjs" "http://127.0.0.1:$port" "$work/valid" "$work/proxy-port" &
proxy=$!
for _ in $(seq 100); do [ -s "$work/proxy-port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat "$work/proxy-port")$path"
echo "## suite $($suite --version 2>/dev/null), through the proxy with the valid JWT; the server: $(ss -ltnp | grep "pid=$pid," | awk '{print $4}' | tr '\n' ' ')"
echo "## without the proxy (no token): $(curl -s -o /dev/null -w '%{http_code}' -X POST "$TRUTH_AUDIENCE" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' -d '{"jsonrpc":"2.0","id":1,"method":"ping"}')"
echo "## initialize through the proxy (curl): $(curl -s -X POST "$url" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ground-truth","version":"1"}}}' | sed -n 's/^data: //; /^{/p' | node -e 'const r = JSON.parse(require("fs").readFileSync(0, "utf8")).result; console.log(r.protocolVersion, JSON.stringify(r.capabilities))')"
# shellcheck disable=SC2046 # one scenario name a word
[ $# -eq 0 ] && set -- $($suite list --server | sed -nE 's/^ *- ([a-z0-9-]+).*/\1/p')
for s in "$@"; do
  out="$work/out-$s"
  $suite server --url "$url" --scenario "$s" -o "$out" >/dev/null 2>&1
  rc=$?
  checks=$(find "$out" -name checks.json | head -1)
  echo "## $s (exit $rc)"
  if [ -n "$checks" ]; then
    # shellcheck disable=SC2016 # JavaScript, not shell
    node -e 'for (const c of JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))) console.log(`${c.status} ${c.id}${c.status === "FAILURE" ? `: ${c.errorMessage ?? c.description}` : ""}`)' "$checks"
  else echo "(no checks.json)"; fi
done
