// The style and the script matrix.html carries inline (no network, works from file://). The script reads
// nothing but the page: the "failures only" filter, opening a square in place, keyboard moves across the
// grid, and links (#ids) that open the square they point into.

export const CSS = `
:root{--fail:#c62828;--nm:#8d6e00;--warn:#b45309;--pass:#2e7d32;--skip:#757575;--allowed:#6a1b9a;--bg:#fff;--fg:#1b1b1b;--line:#d0d0d0}
*{box-sizing:border-box}
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);margin:1rem 1.5rem}
h1{font-size:1.4rem;margin:.2rem 0 .6rem}h2{font-size:1.1rem;margin:1.2rem 0 .4rem}h4{margin:.2rem 0}h5{margin:.6rem 0 .2rem;font-size:.9rem}
.badge{padding:.1rem .5rem;border-radius:4px;color:#fff}
.badge.s-pass{background:var(--pass);color:#fff}.badge.s-fail{background:var(--fail);color:#fff}.badge.s-nm{background:var(--nm);color:#fff}
.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(22rem,1fr));gap:.1rem 1.5rem;margin:0}
.fact{display:flex;gap:.5rem;min-width:0}.fact dt{color:#555;min-width:7.5rem}.fact dd{margin:0;overflow-wrap:anywhere}
.why-run{margin:.6rem 0;padding:.4rem .6rem;border-left:4px solid currentColor}.why-run ul{margin:.2rem 0}
.controls{display:flex;gap:1.5rem;align-items:center;flex-wrap:wrap;margin:.8rem 0;padding:.4rem .6rem;background:#f4f4f4;border-radius:4px}
.legend span{margin-right:.8rem}.keys{color:#555;font-size:.85rem}
table.grid{border-collapse:collapse;width:100%}
.grid>thead th{text-align:left;background:#f4f4f4;position:sticky;top:0;z-index:1}
.grid>thead th,.grid>tbody>tr>th,.grid>tbody>tr>td{border:1px solid var(--line);padding:.35rem .45rem;vertical-align:top}
.rowhead{text-align:left;min-width:9rem;font-weight:normal}.rowhead .pin,.rowhead .sum{color:#555;font-size:.85rem;overflow-wrap:anywhere}
.sq{min-width:7rem}.sq:focus{outline:3px solid #1565c0;outline-offset:-3px}
.sq.s-fail{background:#fdecea}.sq.s-nm{background:#fff8e1}.sq.s-allowed{background:#f3e5f5}.sq.s-warn{background:#fff3e0}.sq.s-pass{background:#edf7ee}.sq.s-skip{background:#f5f5f5}
.s-fail{color:var(--fail)}.s-nm{color:var(--nm)}.s-warn{color:var(--warn)}.s-pass{color:var(--pass)}.s-skip{color:var(--skip)}.s-allowed{color:var(--allowed)}
.panel,.detail{color:var(--fg)}
.toggle{font:inherit;color:inherit;background:none;border:1px solid currentColor;border-radius:3px;padding:.05rem .4rem;cursor:pointer;text-align:left}
.toggle[aria-expanded=true]{background:#fff}
.why{color:#555;font-size:.8rem}
table.heat{border-collapse:collapse;margin-bottom:.25rem;font-size:.75rem}
.heat th{font-weight:normal;color:#555;padding:0 .25rem;text-align:center;white-space:nowrap}.heat .corner{font-size:.65rem}
.heat thead th{font-size:.6rem}
.mini{min-width:2.1rem;height:1.4rem;text-align:center;border:1px solid #fff;color:#fff;font-weight:bold}
.mini a,.mini span{color:#fff;text-decoration:none;display:block}
.mini.s-fail{background:var(--fail)}.mini.s-nm{background:var(--nm)}.mini.s-allowed{background:var(--allowed)}.mini.s-warn{background:var(--warn)}.mini.s-pass{background:var(--pass)}.mini.s-skip{background:#9e9e9e}.mini.s-none{background:#eee}
.panel{margin-top:.4rem;min-width:28rem}
.detail{border-top:1px solid var(--line);padding:.4rem 0}.detail:target,.row:target>th{background:#e3f2fd}
.detail dl{display:grid;grid-template-columns:max-content 1fr;gap:0 .6rem;margin:.2rem 0}.detail dt{color:#555}.detail dd{margin:0;overflow-wrap:anywhere}
pre{background:#f6f6f6;border:1px solid #e0e0e0;padding:.4rem;overflow:auto;max-height:20rem;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.8rem;margin:.2rem 0}
table.checks{border-collapse:collapse;font-size:.8rem}.checks th,.checks td{border:1px solid var(--line);padding:.1rem .3rem;text-align:left;vertical-align:top}.checks .m{white-space:nowrap}.checks .src{color:#555}
a.self{color:#999;text-decoration:none}a.self:hover{color:#1565c0}
ul.failures li{margin:.15rem 0}
table.subchecks{border-collapse:collapse;font-size:.85rem}.subchecks th,.subchecks td{border:1px solid var(--line);padding:.15rem .4rem;text-align:left;vertical-align:top}.subchecks th[scope=row]{font-weight:normal;white-space:nowrap}.subchecks .src{color:#555}
#none-failing{display:none}
body.failures-only .row:not(.problem){display:none}
body.failures-only.all-pass #none-failing{display:block}
`;

export const JS = `
(function () {
  'use strict';
  var body = document.body;
  var grid = document.getElementById('grid');
  var filter = document.getElementById('failures-only');
  function setOpen(button, open) {
    var panel = document.getElementById(button.getAttribute('aria-controls'));
    if (!panel) return;
    panel.hidden = !open;
    button.setAttribute('aria-expanded', open ? 'true' : 'false');
  }
  function toggle(sq) {
    var button = sq && sq.querySelector('.toggle');
    if (button) setOpen(button, button.getAttribute('aria-expanded') !== 'true');
  }
  function squares() { return Array.prototype.slice.call(grid.querySelectorAll('td.sq')); }
  function visible(sq) { return sq.offsetParent !== null; }
  function focusSquare(sq) {
    squares().forEach(function (s) { s.tabIndex = -1; });
    sq.tabIndex = 0;
    sq.focus();
  }
  function move(from, dr, dc) {
    var all = squares().filter(visible);
    var rows = [];
    all.forEach(function (s) { var r = +s.dataset.r; if (rows.indexOf(r) < 0) rows.push(r); });
    var ri = rows.indexOf(+from.dataset.r) + dr;
    var c = +from.dataset.c + dc;
    if (ri < 0 || ri >= rows.length) return;
    var target = all.filter(function (s) { return +s.dataset.r === rows[ri] && +s.dataset.c === c; })[0];
    if (target) focusSquare(target);
  }
  function openTarget(id) {
    var target = id && document.getElementById(id);
    if (!target) return;
    var sq = target.closest ? target.closest('td.sq') : null;
    var panel = target.closest ? target.closest('.panel') : null;
    if (sq && panel) setOpen(sq.querySelector('.toggle'), true);
    if (sq) { squares().forEach(function (s) { s.tabIndex = -1; }); sq.tabIndex = 0; }
    target.scrollIntoView({ block: 'nearest' });
  }
  function fromHash() {
    var id = location.hash.slice(1);
    try { id = decodeURIComponent(id); } catch (e) { return; }
    openTarget(id);
  }
  grid.addEventListener('click', function (event) {
    var button = event.target.closest('.toggle');
    if (button) { setOpen(button, button.getAttribute('aria-expanded') !== 'true'); return; }
    var sq = event.target.closest('td.sq');
    if (sq && !event.target.closest('a, .panel')) { focusSquare(sq); }
  });
  document.addEventListener('click', function (event) {
    var link = event.target.closest && event.target.closest('a[data-open]');
    if (link) { event.preventDefault(); var id = link.getAttribute('href').slice(1); history.replaceState(null, '', '#' + id); openTarget(id); }
  });
  grid.addEventListener('keydown', function (event) {
    var sq = event.target.closest('td.sq');
    if (!sq || event.target !== sq) return;
    var moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
    if (moves[event.key]) { event.preventDefault(); move(sq, moves[event.key][0], moves[event.key][1]); }
    else if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); toggle(sq); }
    else if (event.key === 'Escape') { var b = sq.querySelector('.toggle'); if (b) setOpen(b, false); }
  });
  grid.addEventListener('keydown', function (event) {
    if (event.key !== 'Escape' || event.target.matches('td.sq')) return;
    var sq = event.target.closest('td.sq');
    if (sq) { var b = sq.querySelector('.toggle'); if (b) setOpen(b, false); focusSquare(sq); }
  });
  function applyFilter() {
    body.classList.toggle('failures-only', filter.checked);
    var shown = grid.querySelectorAll('tr.row.problem').length;
    body.classList.toggle('all-pass', shown === 0);
    var shownSquares = squares().filter(visible);
    if (shownSquares.length && !shownSquares.some(function (s) { return s.tabIndex === 0; })) {
      squares().forEach(function (s) { s.tabIndex = -1; });
      shownSquares[0].tabIndex = 0;
    }
  }
  filter.addEventListener('change', applyFilter);
  window.addEventListener('hashchange', fromHash);
  applyFilter();
  fromHash();
})();
`;
