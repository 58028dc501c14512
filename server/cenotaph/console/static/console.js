// Live refresh: another door's write (the CLI, an editor, an agent) moves the event log's head;
// when it moves past the head this page was rendered at, the page's <main> is fetched again and
// swapped in, unless the person is typing in one of its forms (then on their next pause).
'use strict';
(function () {
  const POLL_MS = 1000;
  function main() { return document.getElementById('main'); }
  function editing() {
    const active = document.activeElement;
    return active && active.closest && active.closest('#main form') &&
      /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName) && active.type !== 'submit';
  }
  async function refresh() {
    const current = main();
    if (!current) return;
    const head = await fetch('/api/head', { credentials: 'same-origin', cache: 'no-store' });
    if (!head.ok) return;
    const { seq } = await head.json();
    if (String(seq) === current.dataset.seq || editing()) return;
    const page = await fetch(window.location.href, { credentials: 'same-origin', cache: 'no-store' });
    if (!page.ok) return;
    const fresh = new DOMParser().parseFromString(await page.text(), 'text/html').getElementById('main');
    if (fresh && !editing()) {
      current.replaceWith(document.importNode(fresh, true));
      document.dispatchEvent(new CustomEvent('cenotaph:refreshed', { detail: { seq } }));
    }
  }
  async function loop() {
    try { await refresh(); } catch (_) { /* the console stopped or restarts: try again later */ }
    window.setTimeout(loop, POLL_MS);
  }
  window.setTimeout(loop, POLL_MS);
})();
