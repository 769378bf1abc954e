#!/usr/bin/env bash
# The acceptance workflow (.github/workflows/acceptance.yml) on one machine: the same mcp-matrix
# commands, in the same order, each job's output in its own place:
#   plan --json → pack once (by the package's own package manager) → one `run --plan plan.json --cell ID --tarball FILE
#   --out cell-results/attempt-1/ID` per planned cell (fail-fast off) → merge --plan plan.json cell-results
#   (the gate; its exit code is this script's).
# Lines marked "# = acceptance.yml" are the workflow's own lines, verbatim (a test holds them equal); the line
# marked "# = action.yml" is what the cell job's action (action.yml) runs with the inputs the job gives it.
#
# usage: scripts/acceptance-local.sh            run from the working directory (package.json + config)
# env:   CONFIG      the config (default matrix.config.ts)
#        MCP_MATRIX  how to call the CLI (default: npx --no-install mcp-matrix)
#        PROGRESS    progress mode of the cell runs (default: simple)
#        CELLS       run only these planned cell ids (space-separated); merge then reports the rest missing
# Writes plan.json, package-tarball/, cell-results/<id>/ and matrix-results/ into the current directory.
set -uo pipefail

export CONFIG="${CONFIG:-matrix.config.ts}"
export MCP_MATRIX="${MCP_MATRIX:-npx --no-install mcp-matrix}"
export PROGRESS="${PROGRESS:-simple}"
export GITHUB_RUN_ATTEMPT="${GITHUB_RUN_ATTEMPT:-1}"
GITHUB_OUTPUT="$(mktemp)"
export GITHUB_OUTPUT
trap 'rm -f "$GITHUB_OUTPUT"' EXIT
output() { sed -n "s/^$1=//p" "$GITHUB_OUTPUT" | tail -n 1; }

rm -rf package-tarball cell-results matrix-results

echo "== plan" >&2
$MCP_MATRIX plan --json --config "$CONFIG" > plan.json || exit $? # = acceptance.yml
node -e 'const p = require("./plan.json"); const dir = (process.env.WORKDIR ?? ".").replace(/^\.\/?|\/+$/g, "").replace(/[^\w.-]+/g, "-") || "root"; console.log(`matrix=${JSON.stringify({ include: p.include })}\nkey=${dir}-${p.configHash.slice(0, 12)}`)' >> "$GITHUB_OUTPUT" # = acceptance.yml

echo "== pack" >&2
$MCP_MATRIX pack --plan plan.json --out package-tarball || exit $? # = acceptance.yml

failed=0
for CELL in ${CELLS:-$(output matrix | node -e 'console.log(JSON.parse(require("fs").readFileSync(0, "utf8")).include.map((c) => c.id).join(" "))')}; do
  echo "== cell $CELL" >&2
  $MCP_MATRIX run --plan plan.json --config "$CONFIG" --cell "$CELL" --tarball "$(ls package-tarball/*.tgz)" --out "cell-results/attempt-$GITHUB_RUN_ATTEMPT/$CELL" --progress "$PROGRESS" || failed=1 # = action.yml
done

echo "== merge" >&2
$MCP_MATRIX merge --plan plan.json cell-results --out matrix-results # = acceptance.yml
code=$?
if [ "$code" -eq 0 ] && [ "$failed" -ne 0 ]; then code=1; fi
exit "$code"
