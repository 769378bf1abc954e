// What each config key means: the text of docs/config.md. The keys and types come from the schema
// (schema-tree.ts); a test fails when a schema key has no entry here, or an entry names no key.

import { CHECKS, type CheckPhase } from '../contract/checks.js';

/** `http.checks.<id>`: what the check proves, the requirement it comes from, its default level. */
function checkRows(phase: CheckPhase): Record<string, string> {
  return Object.fromEntries(
    CHECKS.filter((c) => c.phase === phase).map((c) => {
      const where = c.spec ? `${c.spec.revision} ${c.spec.section}` : '';
      const from =
        c.requirement === 'SDK default'
          ? `none in the spec: the SDK's default (${where})`
          : c.requirement
            ? `${c.requirement} (${where})`
            : "the harness's own";
      const r = c.revisions;
      const since = r
        ? ` MCP revisions: from ${r.since}${r.until ? ` until ${r.until}` : ''}${(r.changes ?? []).map((x) => `; ${x.revision}: ${x.text}`).join('')} (not applicable under others).`
        : '';
      const d = c.defaultLevel;
      const level =
        typeof d === 'string' ? `\`'${d}'\`` : `\`'${d.open}'\` when \`auth: 'none'\`, \`'${d.guarded}'\` when a token guards the endpoint`;
      const policy = c.policy ? ` (harness policy: ${c.policy})` : '';
      return [`${phase}.checks.${c.id}`, `${c.title.replace(/\.$/, '')}. Requirement: ${from}.${since} Default: ${level}${policy}.`];
    }),
  );
}

export const CONFIG_REFERENCE: Record<string, string> = {
  package:
    'The directory to pack, relative to the config file. Default: `.`. Its own package manager packs it (`packageManager`, else the nearest lockfile up to the git root): `pnpm pack` and `yarn pack` write `workspace:` and `catalog:` ranges as real versions, as their publish does (docs/github.md, Monorepos).',
  tarball: 'A packed tarball to test instead of packing `package` (relative to the config file). Give `package` or `tarball`, not both.',
  bin: "Which bin of the package starts the MCP server. Default: the package's only bin.",
  cells: 'One cell per SDK pin: a fresh directory where the packed package and that SDK version are installed. At least one.',
  'cells[].pin':
    'An exact SDK version (`1.24.0`, `2.0.0`), `latest@N` (the newest stable N.x), `floor@N` (the lowest N.x the package’s declared range admits) or `floor`. The major must have an install recipe (`majors`).',
  'cells[].role': 'Why the cell exists, shown in the table: `lower supported boundary`.',
  'cells[].id': 'The id `--cell` takes and reports show (letters, digits, `.`, `-`, `_`). Default: the pin with `@` turned into `-`.',
  'cells[].allowedToFail':
    'A failure is shown as allowed and does not fail the run; a pass fails it (the allowance is stale). Default: `false`.',
  'cells[].clients':
    'This cell’s client axis; replaces the top-level `clients` (`[]`: no client axis for this cell). Same forms as `clients`.',
  'cells[].node': 'This cell’s Node axis; replaces the top-level `node` (`[]`: the host’s Node for this cell). Same forms as `node`.',
  'cells[].install':
    "How the cell installs the package and its SDK: `'npm'` (npm's flat `node_modules`, where an import the package never declared still resolves when a dependency brought it along), `'pnpm-strict'`: real pnpm (a pinned version from the npm registry, installed once per machine in the client cache) with `hoist=false`, its store under the per-user cache (`$MCP_MATRIX_PNPM_STORE`, default `~/.cache/mcp-matrix/pnpm-store`): each package resolves only what it declares, as a user's strict install does. The same tarball and pins go in and the same phases run; a server that cannot start there fails stdio naming the missing import, the file that imports it and whose import it is (the package's own, or a dependency's with its version: the fix is then an upgrade of that dependency or an override) (docs/phases.md, *Strict installs*). Or `'yarn-pnp'`: real Yarn Berry (`@yarnpkg/cli-dist`, a pinned version from the npm registry, in the client cache) with Plug'n'Play, every package fetched from the npm registry only (never Yarn's own site: no `yarnPath`, no telemetry) into Yarn's global folder under the per-user cache (`$MCP_MATRIX_YARN_CACHE`, default `~/.cache/mcp-matrix/yarn`); the package under test is unplugged (its files on disk) and every server, and the cell's driver, start with PnP's hooks in `NODE_OPTIONS`, as `yarn run` starts a bin; npm's `cafile` is handed to Yarn (`YARN_HTTPS_CA_FILE_PATH`, unless set), so a registry behind a private CA that npm trusts works for both. The cell's default id gains `-pnpm-strict` or `-yarn-pnp`. Default: `'npm'`.",
  clients:
    'The client axis, crossing every cell: client pins in the forms of a cell pin (`1.0.0`, `latest@N`, `floor`, `floor@N`; `floor` is the lowest version the package’s declared range of that major admits). Major 1 installs `@modelcontextprotocol/sdk`, major 2 `@modelcontextprotocol/client`, each once per run, apart from the server. Each cell becomes one variant per client (`latest-2~client-1.0.0`), the server running from the cell’s install and the driver from the client’s. Default: none (each cell is driven by its own SDK’s client).',
  node: 'The Node axis, crossing every cell: majors (`22`: the newest release) or exact releases (`22.11.0`), resolved at plan time from the registry’s Node binary packages. The driver and the servers of each variant run on that Node (`latest-2~node-22`), installed once into a per-user cache. Default: none (the host’s Node).',
  majors:
    'Install recipes per SDK major, merged over the defaults: `1` pins `@modelcontextprotocol/sdk`; `2` pins `@modelcontextprotocol/server` and `/client`, with `@modelcontextprotocol/node` as a companion.',
  'majors.<major>.pinned': 'Packages installed at exactly the pinned version; the first is the one the package declares its range on.',
  'majors.<major>.companions': 'Packages chosen per pin: the newest version whose peer range on `peerOf` admits the pinned version.',
  'majors.<major>.companions[].name': 'The companion package, e.g. `@modelcontextprotocol/node`.',
  'majors.<major>.companions[].peerOf': 'The pinned package whose version the companion’s peer range must admit.',
  env: 'Environment for every server process, on top of a minimal base (PATH, HOME, TMPDIR, LANG, …). Values are substituted like args.',
  stdio:
    'The stdio phase: start the bin, `initialize`, list tools / resources / templates / prompts, compare with `expect`, run `steps`, `ping`, close stdin. Absent: `skipped (not configured)`; `false`: `skipped (disabled)`.',
  'stdio.args': 'Arguments after the bin. `{host}`, `{port}`, `{token}`, `{cellDir}` and `{tmp}` are substituted. Default: none.',
  'stdio.env': 'Extra environment for the server in this phase. Values are substituted like args.',
  'stdio.timeoutMs': 'Bound for each step of the phase (initialize, each list, each step, ping), in ms. Default: `15000`.',
  'stdio.expect': 'What the server must advertise. Left out, the counts are recorded but not checked.',
  'stdio.expect.tools': 'The exact number of tools, or their exact names.',
  'stdio.expect.resources': 'The exact number of resources, or their exact URIs.',
  'stdio.expect.resourceTemplates': 'The exact number of resource templates, or their exact names.',
  'stdio.expect.prompts': 'The exact number of prompts, or their exact names.',
  'stdio.steps':
    'Scripted interactions, run in order on one session: a tool call, a resource read or a prompt get, each with its expectations.',
  'stdio.steps[] (tool).vary':
    'The step answer’s paths whose values legitimately differ between runs (an id, a timestamp), e.g. `content[0].text`, `structuredContent.id`: answer parity records them as `(varies)`. Declared, never guessed. Default: none.',
  'stdio.steps[] (tool).tool': 'A tool call: the tool name.',
  'stdio.steps[] (tool).arguments': 'The call’s arguments. Left out, none are sent.',
  'stdio.steps[] (tool).sideEffects':
    'The call changes state (it creates, sends or deletes something): the lifecycle checks never call it again. `invalid-arguments` and `repeated-initialize` use the next tool step that is not marked, or say why they have none (`invalid-arguments` is then skipped, n/a; `repeated-initialize` sends its second `initialize` without a call in flight); `cancellation`, which calls the `slow` step again, is skipped when that step is marked. The step itself runs once, as configured. Default: `false`.',
  'stdio.steps[] (tool).slow':
    'The call takes a while (300 ms or more): the lifecycle checks of the stdio and http phases send `notifications/cancelled` for it while it runs (`cancellation`) and a second `initialize` while it is in flight (`repeated-initialize`). Only the first such step is used. One that answers within 300 ms cannot be cancelled in flight: `cancellation` is then skipped with a config warning (`config: … marked slow but answered in N ms`), never a hang. Without one, `cancellation` is skipped and `repeated-initialize` uses the first tool step. Default: `false`.',
  'stdio.steps[] (tool).expect': 'What the result must show.',
  'stdio.steps[] (tool).expect.isError': 'The result’s `isError` flag must be exactly this. Default: `false`.',
  'stdio.steps[] (tool).expect.text': 'A substring of the joined text content.',
  'stdio.steps[] (tool).expect.structuredContent': '`structuredContent` must contain this (deep partial match).',
  'stdio.steps[] (resource).vary':
    'The step answer’s paths whose values legitimately differ between runs (an id, a timestamp), e.g. `content[0].text`, `structuredContent.id`: answer parity records them as `(varies)`. Declared, never guessed. Default: none.',
  'stdio.steps[] (resource).resource': 'A resource read: the URI.',
  'stdio.steps[] (resource).expect': 'What the contents must show.',
  'stdio.steps[] (resource).expect.text': 'A substring of the joined text contents.',
  'stdio.steps[] (prompt).vary':
    'The step answer’s paths whose values legitimately differ between runs (an id, a timestamp), e.g. `content[0].text`, `structuredContent.id`: answer parity records them as `(varies)`. Declared, never guessed. Default: none.',
  'stdio.steps[] (prompt).prompt': 'A prompt get: the prompt name.',
  'stdio.steps[] (prompt).arguments': 'The prompt’s arguments (strings).',
  'stdio.steps[] (prompt).expect': 'What the messages must show.',
  'stdio.steps[] (prompt).expect.messages': 'The exact number of messages.',
  'stdio.steps[] (prompt).expect.text': 'A substring of the joined text of the messages.',
  'stdio.checks':
    "The level of each sub-check of the phase: `'require'` fails the phase, `'warn'` is shown and never fails, `'off'` is not run (recorded as skipped). `session` is the phase's own run (initialize, lists, steps, ping, stdout); the others are the lifecycle edges, run on the same session after its steps (docs/phases.md). An unknown check or level is a config error listing the valid ones. Default: `'require'` for each.",
  ...checkRows('stdio'),
  http: 'The http phase, on a free loopback port with a random token: no token → 401 with `WWW-Authenticate: Bearer`, a wrong token → 401, the right token → a full Streamable HTTP round trip. Absent: `skipped (not configured)`; `false`: `skipped (disabled)`.',
  'http.args':
    "How the server is told its transport, host, port and token. `{host}`, `{port}`, `{token}` are substituted; with `auth: 'oauth'` also `{issuer}` (the local authorization server's issuer URL), `{jwksUri}` (its JWKS) and `{audience}` (see `oauth.audience`). Default: `--transport streamable-http --host {host} --port {port}`.",
  'http.env': 'Extra environment for the server in this phase, substituted like args. Default: `{ MCP_SERVER_TOKEN: "{token}" }`.',
  'http.timeoutMs': 'Bound for each request of the phase, in ms. Default: `15000`.',
  'http.path': 'The MCP endpoint path. Default: `/mcp`.',
  'http.host': 'The loopback host the server is told to bind (`127.0.0.1`, `::1` or `localhost`). Default: `127.0.0.1`.',
  'http.readyTimeoutMs': 'How long the server may take to listen, in ms. Default: `15000`.',
  'http.auth':
    "`'bearer'`: no token and a wrong token must get 401 with `WWW-Authenticate: Bearer`. `'none'`: no auth by design (loopback only); those checks are skipped and shown as `no auth`, never as ok, and the round trip still runs. `'oauth'`: an OAuth resource server validating JWT access tokens: the harness starts a local authorization server (issuer, JWKS, RFC 8414 metadata) for the run, hands its coordinates to the server through `{issuer}`, `{jwksUri}` and `{audience}`, and checks, besides the bearer checks, the Protected Resource Metadata (RFC 9728: discovery, `resource`, `authorization_servers`), a round trip with a valid token, and 401 for a token for another audience, an expired one, one signed by another key and one with `alg: none` (docs/phases.md). Default: `'bearer'`.",
  'http.oauth':
    "With `auth: 'oauth'`: how the harness's authorization server mints the tokens. Without `auth: 'oauth'` it is a config error.",
  'http.oauth.audience':
    'The audience (`aud`) of the tokens, `{host}` and `{port}` filled in, for a server that expects a fixed audience string. Default: the endpoint URL, `http://{host}:{port}{path}` (the RFC 8707 canonical URI, what a spec-following client sends as `resource`).',
  'http.oauth.scopes': 'Scopes put in the tokens (`scope` claim, space-separated), for a server that requires some. Default: none.',
  'http.checks':
    "The level of each sub-check of the phase: `'require'` fails the phase, `'warn'` is shown and never fails, `'off'` is not run (recorded as skipped). Every check is reported with its outcome, requirement (MUST or SHOULD) and spec revision. An unknown check or level is a config error listing the valid ones. Default: a MUST is `'require'`, a SHOULD `'warn'`; `origin` and `host` are `'warn'` when a token guards the endpoint (see docs/phases.md).",
  ...checkRows('http'),
  bind: 'The bind phase: started on a non-loopback host without a token, the server must exit non-zero by itself without ever listening outside loopback; one that only ever listens on loopback passes as `loopback only`. Absent: `skipped (not configured)`; `false`: `skipped (disabled)`.',
  'bind.args':
    'Arguments for the refused start (`{host}` becomes `0.0.0.0`). Default: `http.args` with a loopback host swapped for `{host}`; without `http`, `--transport streamable-http --host 0.0.0.0 --port {port}`.',
  'bind.env':
    'Extra environment for the server in this phase. Default: `http.env` with a loopback host swapped for `{host}` (the token variables are dropped, see `dropEnv`).',
  'bind.timeoutMs':
    'How long the server may take to refuse (exit), in ms; one still running is watched this long (passing as `loopback only` if it only ever listened on loopback). Default: `10000`.',
  'bind.dropEnv':
    "Environment variables removed for this phase. Default: the `http.env` keys whose value holds `{token}` (or, for `auth: 'oauth'`, `{issuer}`, `{jwksUri}` or `{audience}`).",
  leaks:
    'The leaks phase: every server exits by itself (stdio: after stdin EOF; http: after SIGTERM), leaves no process behind, and the driver’s own client leaves no handle. Absent: `skipped (not configured)`; `false`: `skipped (disabled)`.',
  'leaks.graceMs': 'How long a server may take to exit by itself, in ms. Default: `10000`.',
  'leaks.checks': 'A level per sub-check of the leaks phase (`require` fails the phase, `warn` is shown, `off` is not run).',
  ...checkRows('leaks'),
  conformance:
    "The conformance phase: the official suite `@modelcontextprotocol/conformance` (a pinned version, installed once per machine in the client cache, run on Node >= 22) against the server started as http starts it, behind a loopback proxy that adds the token. Only the scenarios that need none of the suite's fixture tools run (those on a capability only when the server advertises it). On whenever `http` is configured; `false`: `skipped (disabled)`; without `http`: `skipped (no http phase)`.",
  'conformance.timeoutMs': "Bound for one scenario (the suite's own process), in ms. Default: `30000`.",
  environment:
    "The environment phase's sub-checks (the install itself, the SDK copies, the declared range and the tarball's files are always checked).",
  'environment.checks':
    "A level per sub-check of the environment phase (`require` fails the phase, `warn` is shown, `off` is not run): the undeclared-import checks read the installed package's own files, on every cell, with no extra install.",
  ...checkRows('environment'),
  install: 'How each cell runs `npm install`.',
  'install.attempts': 'Attempts for network-type install errors (timeouts, resets, 5xx); other errors are never retried. Default: `3`.',
  'install.timeoutMs': 'Bound for one `npm install`, in ms. Default: `300000`.',
  'install.reuse':
    "Reuse a cell's dependency tree from the per-user tree cache (`$MCP_MATRIX_TREE_CACHE`, default `~/.cache/mcp-matrix/trees`; `off` disables it) when npm, run now (`npm install --package-lock-only`), resolves exactly the stored tree; the copy is real (a reflink at most) and checked file by file, and npm then installs this run's tarball with its scripts. `false` (or `run --fresh`): every cell is a plain `npm install`. results.json records each cell's source (`environment.installSource`). Default: `true`.",
  'install.reuseWindowMs':
    "How long, in ms, a local run reuses npm's resolution of a cell and the tree it made: within it no npm runs, the stored tree is copied and checked file by file and this run's tarball's files replace the package's (its sha512 checked against the packed one and written in the lockfile's entry, its bins linked, as npm would); a package with install scripts, bundled dependencies or a shrinkwrap goes through npm. The record is found only by what can change the tree (npm and Node versions, npm's configuration, the pins, the package's dependency fields, bins, engines and install scripts, its shrinkwrap and the source directory's lockfile), so a change to any of them resolves at once. results.json records the age (`environment.installSource.resolvedAt`, `ageMs`) and the terminal says it (`resolved 3 min ago; --fresh to resolve now`). `0`: npm resolves in every run. `MCP_MATRIX_REUSE_WINDOW_MS=<ms>` in the environment: that window for the run, whatever the config says (the test suite's CLI runs take a week's); anything but a whole number ≥ 0 is refused at once (exit 2). A run with `CI` set, `run --plan` or `--fresh` always resolves. Default: `600000` (10 minutes).",
  lockstep:
    'What a mismatch between the package’s declared SDK ranges and the cells is: `error` fails `plan` and `run`, `warn` prints it, `off` skips the check. Default: `error`.',
  sideBySide:
    "Run a variant's phases side by side when the run has spare cores: stdio, http, and bind with conformance, each group in a driver of its own, on its own copy of the cell's tree (the package under test and the cell's files copied, the dependencies hard-linked) and with server tags of its own, then merged into one row. Only a run with fewer variants at once than the machine's cores (`run --cell <id>` on a laptop: the edit loop), only on Linux and only for a `node_modules` cell (not `pnpm-strict` nor `yarn-pnp`); a run that already fills the cores gains nothing but the copies' CPU. A phase that does not pass side by side (or whose group's leaks does not) is run again alone on the cell's own tree once the others have ended, and only that run's result is reported (`details.confirmedAlone`), so a server that holds a fixed resource (a port, a file in `$HOME`, a lock) gets the verdict it would get in turn; a server that wrote into its copy of the tree (its package, the cell's files, `node_modules`) has every phase run again in turn on the cell's own tree, as in turn its later phases' servers see what the earlier ones wrote. State kept outside the tree and the server's own temp and XDG directories (a dotfile in `$HOME`) is not seen in turn's order: `sideBySide: false` for such a server. results.json records each variant's groups (`phaseRuns`). The same switch lets a cell's variants on different Node releases run side by side in an axes run, each on its own copy of the cell's tree and with its own server tags, where the run has room for more drivers at once than cells (4 per core then, 8 where a Node release has several client variants; 2 in turn); a Node release's later client variants run beside its first and take its bind and conformance once the earlier variants' rows stand, exactly as in turn (with no clean measurement to take, such a variant runs again after them), each variant's phases run in turn, what does not pass beside the other variants is run again alone on the cell's own tree, and a server that wrote into its copy sends its cell back to in turn from that variant on (docs/phases.md, \"A cell's variants side by side\"; `phaseRuns.variantsBeside`). `run --in-turn` or `MCP_MATRIX_SIDE_BY_SIDE=off` in the environment: in turn for that run. `false`: every phase in turn, always (a server whose passing phases interfere with each other, or a run whose timing must match an older one). Default: `true`.",
  client: 'The driver’s MCP client: the capabilities it declares, the roots it answers, how a tool step without arguments is sent.',
  'client.capabilities':
    'Capabilities the client declares in `initialize`, e.g. `{ roots: { listChanged: true }, sampling: {} }`. Default: `{}` (plus `roots: {}` when `roots` is given).',
  'client.roots': 'What the client answers to `roots/list`; declares the `roots` capability.',
  'client.roots[].uri': 'A `file://` URI; `{cellDir}` and `{tmp}` are substituted.',
  'client.roots[].name': 'A name shown to the server.',
  'client.noArguments':
    'A tool step without `arguments`: `omit` leaves the field out, as the spec allows and as the SDK’s own `callTool({ name })` sends it; a server that refuses that as invalid params is asked again with `{}`, and the step fails naming the difference, “rejects a call without `arguments`; accepts `{}`” (SDK 1.30.0–1.31.0 servers do). `empty` sends `arguments: {}` (what hosts such as the Inspector send): the opt-out for a server whose users all send `{}`, which hides that regression. Default: `omit`.',
  secrets:
    "Secrets the server needs, read from the run's environment (never written in the config): each is given to the phases that need it (on top of their `env`) and masked in every output, like the harness's own tokens. When one is not set (a fork's or Dependabot's pull request gets no secrets on GitHub), the phases that need it are not run and read as not measured (never failed), with the reason: the fork, Dependabot, or simply not set. A name alone (`'API_KEY'`) is needed by every server phase. Default: none.",
  'secrets[].name': 'The environment variable, e.g. `API_KEY`.',
  'secrets[].phases': 'The phases that need it (`stdio`, `http`, `bind`, `conformance`, `leaks`). Default: all of them.',
  secretsOnFork:
    "A fork's or Dependabot's pull request, which GitHub gives no secrets: `'not-measured'` reports each phase a missing secret kept from running as not measured (its message, a warning annotation and the summary say so plainly) and lets the gate pass on the phases it measured, since the run on the base repository measures the rest; `'fail'` fails the gate instead (the run reads as not measured, exit 3). Default: `'not-measured'`.",
  'secrets[].whenAbsent':
    "What a phase that needs it reads as when it is not set: `'not-measured'`, or `'skipped'` (a choice made on purpose, so that a fork's run can pass on what it could measure). Default: `'not-measured'`.",
  surface:
    'Surface parity: the tools (title, description, input and output schemas, annotations), resource templates and prompts (with their arguments) every stdio run listed must be identical on every cell, and identical to `mcp-surface.json` next to the config when that file exists (`run --update-surface` writes it). Any difference fails the run. `false` turns both checks off. Default: on.',
  'surface.allow': 'Differences that do not fail the run (still shown in matrix.md).',
  'surface.allow[].item': 'The item as reports name it: `tool add`, `resource template note`, `prompt draft`.',
  parity:
    'Answer parity: every configured step records its normalised answer (content item types, `mimeType`, `annotations`, text and blob digests, `isError`, `structuredContent`, `_meta` keys; for a resource its `uri`, `mimeType` and digest; for a prompt its messages’ roles and content), and phases record behaviours (lifecycle). The values of the same item must be identical on every cell and variant that recorded it, and identical to the `compared` values in `mcp-surface.json` when the file has them (`run --update-surface` writes them). Any difference fails the run. `false` turns it off. Default: on.',
  'parity.allow':
    'Differences that do not fail the run (shown in matrix.md with their reason). One that matches no difference is stale and fails the run: delete it.',
  'parity.allow[].item':
    'The item as reports name it: `stdio tools/call add`, `http tools/call add`, `stdio resources/read notes://1`, `stdio prompts/get draft` (a step run twice: `… #2`).',
  'parity.allow[].path':
    'A JSON path in the item’s value, e.g. `content[0].mimeType`; its sub-paths match too. Left out, any difference of the item is allowed.',
  'parity.allow[].reason': 'Why the value may differ between cells (shown beside the difference).',
  'surface.allow[].path':
    'A JSON path in the item, e.g. `inputSchema.required`; its sub-paths match too. Left out, any difference of the item is allowed.',
};
