#!/usr/bin/env node
// A registry that is the real one plus a release published after the plan job: it forwards every request
// upstream, and to the packument of PACKAGE adds VERSION (made the `latest` tag; its tarball does not
// exist). Used as npm_config_registry by a cell job, it shows whether the job resolves again.
// usage: release-proxy.mjs UPSTREAM PACKAGE VERSION HITS_FILE   (prints the port it listens on)
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [upstream, pkg, version, hits] = process.argv.slice(2);
const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url.replace(/^\//, ''), upstream.endsWith('/') ? upstream : `${upstream}/`);
    const headers = { accept: req.headers.accept ?? 'application/json' };
    const answer = await fetch(url, { headers });
    const name = decodeURIComponent(new URL(req.url, 'http://x').pathname.slice(1));
    if (name !== pkg || !answer.ok) {
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream' });
      res.end(Buffer.from(await answer.arrayBuffer()));
      return;
    }
    appendFileSync(hits, `${pkg}\n`);
    const doc = await answer.json();
    const latest = doc.versions[doc['dist-tags'].latest];
    doc.versions[version] = {
      ...latest,
      version,
      dist: { ...latest.dist, tarball: `${upstream}${pkg}/-/released-${version}.tgz`, integrity: undefined, shasum: undefined },
    };
    doc['dist-tags'].latest = version;
    if (doc.time) doc.time[version] = new Date().toISOString();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(doc));
  } catch (error) {
    res.writeHead(502).end(String(error));
  }
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
