#!/usr/bin/env bash
# Independent stdio lifecycle ground truth (no mcp-matrix code):
#   examples/_truth/eof.sh <command> [args…]
# 1. one initialize request, then stdin closes: how the process ends and when (bounded at 15 s);
# 2. a second start with stdin held open, SIGTERM after 1.5 s: how it ends.
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ground-truth","version":"1"}}}'
start=$(date +%s%N)
out=$(printf '%s\n' "$init" | timeout 15 "$@" 2>/dev/null)
rc=$?
echo "stdout: ${out:0:160}"
echo "after stdin EOF: $([ $rc = 124 ] && echo "still running at 15 s (killed by timeout)" || echo "exit code $rc") after $(( ($(date +%s%N) - start) / 1000000 )) ms"
fifo=$(mktemp -u)
mkfifo "$fifo"
"$@" <"$fifo" >/dev/null 2>&1 &
pid=$!
exec 3>"$fifo" # hold stdin open
sleep 1.5
start=$(date +%s%N)
kill -TERM "$pid"
wait "$pid"
rc=$?
echo "SIGTERM with stdin open: $([ $rc -gt 128 ] && echo "killed by signal $((rc - 128))" || echo "exit code $rc") after $(( ($(date +%s%N) - start) / 1000000 )) ms"
exec 3>&-
rm -f "$fifo"
