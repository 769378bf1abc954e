// Inside a server on a Node without in-thread module hooks (Node 20; 22 before 22.15): every script V8
// compiles, ES modules included, read through an in-thread inspector session (Debugger.scriptParsed).
// It replaces `module.register` there: those hooks run on a second thread that boots a whole Node
// environment and answers every resolution across threads, measured at ~0.1 CPU-s more per server
// (docs/performance.md). Enabling the domain also reports the scripts already compiled, so nothing
// loaded before the probe is missed. Pauses are skipped: a `debugger` statement must never stop a server.
// Builtins only; never throws into the host program.

import inspector from 'node:inspector';

/** Calls `note(url)` for each script compiled from a file (now and later); false when there is no inspector. */
export function watchScripts(note: (url: string) => void): boolean {
  try {
    const session = new inspector.Session();
    session.connect();
    session.on('Debugger.scriptParsed', (message) => {
      const url = message.params.url;
      if (url && !url.startsWith('node:')) note(url);
    });
    session.post('Debugger.enable');
    session.post('Debugger.setSkipAllPauses', { skip: true });
    return true;
  } catch {
    return false;
  }
}
