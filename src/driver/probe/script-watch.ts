// Inside a server on a Node without in-thread module hooks (Node 20; 22 before 22.15): every script V8
// compiles, read through an in-thread inspector session, because `module.register` boots a second thread
// (docs/performance.md). Pauses are skipped; builtins only; never throws into the host program.

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
