#!/usr/bin/env bash
# Independent OAuth resource-server ground truth (curl + a JWT signed by hand with jose, no mcp-matrix code):
#   examples/_truth/oauth.sh <port> <path> '<command line>'
# Starts a throwaway authorization server on loopback (oauth-as.mjs: its own RS256 key, JWKS, RFC 8414
# metadata), exports TRUTH_ISSUER, TRUTH_JWKS_URI and TRUTH_AUDIENCE (http://127.0.0.1:<port><path>), runs the
# command line with bash (so it can say `OAUTH_ISSUER=$TRUTH_ISSUER node …`), waits until it listens, then prints, with curl, the status (and WWW-Authenticate) of an initialize POST with no
# token, a non-JWT wrong token, a valid JWT, one for another audience, an expired one, one signed by another
# key and one with alg none; the Protected Resource Metadata the challenge names and the well-known URIs serve;
# and the SDK client's round trip (probe.mjs) with the valid token. Tokens are never printed.
set -u
port=$1 path=$2
command=$3
here=$(cd "$(dirname "$0")" && pwd)
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ground-truth","version":"1"}}}'
work=$(mktemp -d)
export TRUTH_AUDIENCE="http://127.0.0.1:$port$path"
node "$here/oauth-as.mjs" "$work" &
as=$!
for _ in $(seq 100); do [ -s "$work/issuer" ] && break; sleep 0.1; done
export TRUTH_ISSUER=$(cat "$work/issuer") TRUTH_JWKS_URI="$(cat "$work/issuer")/jwks.json"
echo "## authorization server: $TRUTH_ISSUER (JWKS $TRUTH_JWKS_URI), audience $TRUTH_AUDIENCE"
log=$(mktemp)
bash -c "$command" >"$log" 2>&1 &
pid=$!
for _ in $(seq 150); do ss -ltnp | grep -q "pid=$pid," && break; sleep 0.1; done
sleep 0.3
echo "## listen sockets of pid $pid"
ss -ltnp | grep "pid=$pid," | awk '{print $4}'
post() { curl -s -o /dev/null -D - -X POST "$TRUTH_AUDIENCE" -H 'content-type: application/json' \
  -H 'accept: application/json, text/event-stream' "$@" -d "$init" | tr -d '\r' | grep -iE '^(HTTP/|www-authenticate)'; }
token() { cat "$work/$1"; }
echo "## no token"; post
echo "## wrong token (not a JWT)"; post -H 'authorization: Bearer wrong-token-0000'
for t in valid other-audience expired other-key alg-none; do echo "## $t"; post -H "authorization: Bearer $(token $t)"; done
named=$(post | sed -nE 's/.*resource_metadata="([^"]+)".*/\1/ip')
for u in $named "http://127.0.0.1:$port/.well-known/oauth-protected-resource$path" "http://127.0.0.1:$port/.well-known/oauth-protected-resource"; do
  echo "## GET $u"
  curl -s -w '\n(HTTP %{http_code})\n' "$u"
done
echo "## SDK client, valid token"
node "$here/probe.mjs" http "$TRUTH_AUDIENCE" "$(token valid)" 2>&1 | tr -d '\n' | sed 's/  */ /g' | sed -E 's/eyJ[A-Za-z0-9_.-]+/<jwt>/g'
echo
kill -TERM "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
kill "$as" 2>/dev/null
wait "$as" 2>/dev/null
echo "## output (tokens masked)"
sed -E 's/eyJ[A-Za-z0-9_.-]+/<jwt>/g' "$log" | head -20
rm -rf "$work" "$log"
