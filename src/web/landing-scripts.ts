/**
 * The JavaScript a first visit to the landing page downloads before it can render: the module scripts index.html
 * names and, transitively, the chunks they import statically. Screens imported with `import()` are left out: they
 * load when their route renders. Used by the UI build to report the figure and by the test that holds it to budget.
 */
export function landingScripts(read: (path: string) => string): string[] {
  const html = read("/index.html");
  const pending = [...html.matchAll(/<script[^>]*\stype="module"[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!);
  const seen = new Set<string>();
  while (pending.length) {
    const path = pending.pop()!;
    if (seen.has(path)) continue;
    seen.add(path);
    // Minified static imports: `import{a as b}from"/assets/x.js"`, `export*from"..."`, or a bare `import"..."`.
    for (const m of read(path).matchAll(/(?:\bfrom|\bimport)\s*"(\/assets\/[^"]+\.js)"/g)) pending.push(m[1]!);
  }
  return [...seen].sort();
}
