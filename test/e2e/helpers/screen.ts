// What a terminal shows at the end of a byte stream: enough of a VT100 to replay a live renderer's redraws
// (log-update erases its last frame with ESC[2K, ESC[1A and ESC[G), so a test can assert the final screen,
// not every frame ever written.
export function finalScreen(stream: string, columns: number): string[] {
  const rows: string[][] = [[]];
  let row = 0;
  let col = 0;
  const line = (): string[] => (rows[row] ??= []);
  for (let i = 0; i < stream.length; i++) {
    const c = stream[i]!;
    if (c === '\u001b') {
      // eslint-disable-next-line no-control-regex
      const csi = /^\u001b\[([?0-9;]*)([A-Za-z])/.exec(stream.slice(i, i + 16));
      if (!csi) continue;
      i += csi[0].length - 1;
      const n = Number(csi[1] || '1');
      if (csi[2] === 'A') row = Math.max(0, row - n);
      else if (csi[2] === 'B') row += n;
      else if (csi[2] === 'G') col = Math.max(0, n - 1);
      else if (csi[2] === 'K' && (csi[1] === '2' || csi[1] === '')) rows[row] = csi[1] === '2' ? [] : line().slice(0, col);
      else if (csi[2] === 'J') rows.splice(row + 1);
      continue; // colours, cursor visibility
    }
    if (c === '\r') col = 0;
    else if (c === '\n') {
      row++;
      col = 0;
    } else {
      if (col >= columns) {
        row++;
        col = 0;
      }
      const l = line();
      while (l.length < col) l.push(' ');
      l[col++] = c;
    }
  }
  return rows.map((r) => (r ?? []).join('').trimEnd());
}
