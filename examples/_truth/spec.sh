#!/usr/bin/env bash
# Independent ground truth for the http phase's spec checks (curl only, no mcp-matrix code):
#   examples/_truth/spec.sh <url> <token|-> <command> [args…]
# Starts the command, waits until it listens, then sends, with the right token when there is one:
# a foreign Origin, a loopback Origin, a foreign Host, the token in the query string (no header),
# an initialize (its Mcp-Session-Id), a ping with MCP-Protocol-Version 1999-01-01 and with the
# negotiated one, a ping without the session ID, a second initialize, DELETE, and a ping with the
# deleted ID. Prints each status; then stops the command.
set -u
url=$1 token=$2
shift 2
log=$(mktemp)
"$@" >"$log" 2>&1 &
pid=$!
for _ in $(seq 100); do ss -ltnp | grep -q "pid=$pid," && break; sleep 0.1; done
sleep 0.3
port=$(echo "$url" | sed -E 's#^http://[^/]*:([0-9]+).*#\1#')
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"ground-truth","version":"1"}}}'
ping='{"jsonrpc":"2.0","id":2,"method":"ping"}'
auth=()
[ "$token" != - ] && auth=(-H "authorization: Bearer $token")
H=(-H 'content-type: application/json' -H 'accept: application/json, text/event-stream')
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
echo "foreign Origin (http://evil.example): $(code "${H[@]}" "${auth[@]}" -H 'origin: http://evil.example' -d "$init" "$url")"
echo "loopback Origin (http://localhost:$port): $(code "${H[@]}" "${auth[@]}" -H "origin: http://localhost:$port" -d "$init" "$url")"
echo "foreign Host (evil.example:$port): $(code "${H[@]}" "${auth[@]}" -H "host: evil.example:$port" -d "$init" "$url")"
[ "$token" != - ] && echo "token in the query string, no header: $(code "${H[@]}" -d "$init" "$url?access_token=$token")"
sid=$(curl -s -o /dev/null -D - "${H[@]}" "${auth[@]}" -d "$init" "$url" | tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
echo "session id: ${sid:-(none)}"
S=()
[ -n "$sid" ] && S=(-H "mcp-session-id: $sid")
curl -s -o /dev/null "${H[@]}" "${auth[@]}" "${S[@]}" -H 'mcp-protocol-version: 2025-03-26' -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$url"
echo "ping, MCP-Protocol-Version 1999-01-01: $(code "${H[@]}" "${auth[@]}" "${S[@]}" -H 'mcp-protocol-version: 1999-01-01' -d "$ping" "$url")"
echo "ping, MCP-Protocol-Version 2025-03-26: $(code "${H[@]}" "${auth[@]}" "${S[@]}" -H 'mcp-protocol-version: 2025-03-26' -d "$ping" "$url")"
if [ -n "$sid" ]; then
  sid2=$(curl -s -o /dev/null -D - "${H[@]}" "${auth[@]}" -d "$init" "$url" | tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
  echo "second session id differs: $([ "$sid2" != "$sid" ] && echo yes || echo no)"
  echo "ping without a session id: $(code "${H[@]}" "${auth[@]}" -H 'mcp-protocol-version: 2025-03-26' -d "$ping" "$url")"
  echo "DELETE: $(code -X DELETE "${auth[@]}" "${S[@]}" -H 'mcp-protocol-version: 2025-03-26' "$url")"
  echo "ping with the deleted id: $(code "${H[@]}" "${auth[@]}" "${S[@]}" -H 'mcp-protocol-version: 2025-03-26' -d "$ping" "$url")"
fi
kill -TERM "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
rm -f "$log"
