/**
 * The architecture checks, as functions of a set of source files (path under src/ -> text), so that
 * tests/api/architecture.test.ts runs them on the real tree and on small planted file sets (a test of the test).
 */
import { existsSync } from "node:fs";
import { join, posix } from "node:path";

export type Import = {
  from: string;
  to: string;
  /** Each name as the imported file exports it, `local` as the importing file calls it (`a as b`: b). */
  names: { name: string; local: string; typeOnly: boolean }[];
  namespace: boolean;
  typeOnly: boolean;
  /** `export { a } from "./b"`: the file exports what it names. */
  reexport: boolean;
};

/** The unit a src/ path belongs to: its top folder, or the file itself at the top of src/. */
export const unitOf = (path: string) => (path.includes("/") ? path.slice(0, path.indexOf("/")) : path);

/**
 * Where `spec` imported from `from` lands: a path under src/, or one relative to the repository (db/schema.ts) when
 * it leaves src/; null for packages. `exists` answers for a path under src/ or, starting with "../", beside it.
 */
export function resolveImport(from: string, spec: string, exists: (path: string) => boolean): string | null {
  if (!spec.startsWith(".")) return null;
  const base = posix.normalize(posix.join(posix.dirname(from), spec));
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`]) {
    if (/\.tsx?$/.test(candidate) && exists(candidate)) return candidate.startsWith("../") ? candidate.slice(3) : candidate;
  }
  return null;
}

/** Files exist on disk, under the given src/ folder. */
export const onDisk = (src: string) => (path: string) => existsSync(join(src, path));

// Static imports and re-exports (at the start of a line, so comments are not read), and dynamic import("...").
const STATIC =
  /^[ \t]*(import|export)[ \t]+(type[ \t]+)?([^;'"]*?)[ \t\n]*from[ \t]*["']([^"']+)["']|^[ \t]*import[ \t]+["']([^"']+)["']/gm;
const DYNAMIC = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

export function importsOf(from: string, text: string, exists: (path: string) => boolean): Import[] {
  const found: Import[] = [];
  for (const m of text.matchAll(STATIC)) {
    const spec = m[4] ?? m[5]!;
    const to = resolveImport(from, spec, exists);
    if (!to) continue;
    const clause = m[3] ?? "";
    const typeOnly = !!m[2];
    const braces = clause.match(/\{([^}]*)\}/)?.[1] ?? "";
    const names = braces
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s) => {
        const [name, local] = s.replace(/^type\s+/, "").split(/\s+as\s+/);
        return { name: name!.trim(), local: (local ?? name!).trim(), typeOnly: typeOnly || s.startsWith("type ") };
      });
    found.push({
      from,
      to,
      names,
      namespace: /\*\s+as\s+/.test(clause) || (m[1] === "export" && clause.trim() === "*"),
      typeOnly: typeOnly || (names.length > 0 && names.every((n) => n.typeOnly) && !/^\s*\w+\s*,/.test(clause)),
      reexport: m[1] === "export",
    });
  }
  for (const m of text.matchAll(DYNAMIC)) {
    const to = resolveImport(from, m[1]!, exists);
    if (to) found.push({ from, to, names: [], namespace: true, typeOnly: false, reexport: false });
  }
  return found;
}

/** Every import of a file set; files outside the set (db/, another package's) are resolved by `exists`. */
export function importsOfAll(sources: Map<string, string>, exists: (path: string) => boolean = (p) => sources.has(p)) {
  return [...sources].flatMap(([file, text]) => importsOf(file, text, (p) => sources.has(p) || exists(p)));
}

/** The strongly connected parts of a graph with more than one member: each is a circle (Tarjan's algorithm). */
function circlesOf(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const part: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        part.push(w);
      } while (w !== v);
      if (part.length > 1) out.push(part.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/**
 * Circles of files: files that import themselves through others, reported as "a.ts -> b.ts -> a.ts" (its members,
 * sorted). Type-only imports leave no trace at run time and are not counted.
 */
export function fileCircles(imports: Import[]): string[] {
  const edges = new Map<string, Set<string>>();
  for (const i of imports) {
    if (i.typeOnly || i.from === i.to) continue;
    edges.set(i.from, (edges.get(i.from) ?? new Set()).add(i.to));
  }
  return circlesOf(edges).map((part) => `circle: ${part.join(" -> ")}`);
}

/**
 * Folder pairs that import each other, "a <-> b". Type-only imports count (they tie the folders' designs); imports
 * of `shared` files (stateless helpers that import no domain) do not.
 */
export function twoWayPairs(imports: Import[], shared: (file: string) => boolean = () => false): string[] {
  const edges = new Set<string>();
  for (const i of imports) {
    const a = unitOf(i.from);
    const b = unitOf(i.to);
    if (a !== b && !i.to.startsWith("db/") && !shared(i.to)) edges.add(`${a}|${b}`);
  }
  const out = new Set<string>();
  for (const e of edges) {
    const [a, b] = e.split("|") as [string, string];
    if (a < b && edges.has(`${b}|${a}`)) out.add(`two-way: ${a} <-> ${b}`);
  }
  return [...out].sort();
}

/** SQL written in a source: a statement's opening words in code (comments are not read). */
const SQL = /\b(?:SELECT\s[\s\S]{0,400}?\sFROM\s|INSERT\s+(?:OR\s+\w+\s+)?INTO\s|UPDATE\s+[\w"`]+\s+SET\s|DELETE\s+FROM\s|CREATE\s+(?:UNIQUE\s+)?(?:TABLE|INDEX|TRIGGER)\s)/;
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/[^\n]*/g, "$1");

/**
 * Files outside records that speak SQL or import db/ (the schema, the connection): only a record's file may.
 * `isRecord` says whether a file is one; type-only imports of db/ (a row's type) are allowed everywhere.
 */
export function sqlOutsideRecords(sources: Map<string, string>, imports: Import[], isRecord: (file: string) => boolean): string[] {
  const out = new Set<string>();
  for (const i of imports) {
    if (i.to.startsWith("db/") && !i.typeOnly && !isRecord(i.from)) out.add(`${i.from} imports ${i.to} (not a record)`);
  }
  for (const [file, text] of sources) {
    if (!isRecord(file) && SQL.test(withoutComments(text))) out.add(`${file} speaks SQL (not a record)`);
  }
  return [...out].sort();
}

/** A file builds routes when it makes an Elysia instance. */
export const isRouteFile = (text: string) => text.includes("new Elysia(");

/** Flows importing a file that builds routes: a flow is called by routes, never the other way round. */
export function flowsImportingRoutes(sources: Map<string, string>, imports: Import[], isFlow: (file: string) => boolean): string[] {
  return [
    ...new Set(
      imports
        .filter((i) => isFlow(i.from) && sources.has(i.to) && isRouteFile(sources.get(i.to)!))
        .map((i) => `${i.from} imports route ${i.to}`),
    ),
  ].sort();
}

/** A top-level function of a file: a declaration, or a const holding an arrow or a function expression. */
type Definition = { name: string; exported: boolean; async: boolean; firstParam: string; body: string };

const DECLARATION = /^(export\s+)?(?:default\s+)?(async\s+)?function\s*\*?\s*(\w+)\s*[<(]/;
const ARROW = /^(export\s+)?(?:const|let)\s+(\w+)\s*(?::[^=\n]+)?=\s*(async\s+)?(?:function\b|(?:<[^>\n]*>\s*)?\([^\n]*?(?:=>|$)|\w+\s*=>)/;

/**
 * The top-level functions of a source without comments. A body runs from its first line to the next line that starts
 * at the margin with anything but a closing bracket (so a one-line arrow and a block body are read alike).
 */
export function definitionsOf(code: string): Definition[] {
  const lines = code.split("\n");
  const out: Definition[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const d = line.match(DECLARATION);
    const a = d ? null : line.match(ARROW);
    if (!d && !a) continue;
    let j = i + 1;
    while (j < lines.length && !/^[^\s})\]]/.test(lines[j]!)) j++;
    const body = lines.slice(i, j).join("\n");
    // The first parameter's name, read from the body (it may stand on the next line).
    const param = (from: RegExp) => body.match(from)?.[1] ?? "";
    if (d) out.push({ name: d[3]!, exported: !!d[1], async: !!d[2], firstParam: param(/function\s*\*?\s*\w+\s*(?:<[^>]*>)?\s*\(\s*(\w*)/), body });
    else {
      const p = param(/=\s*(?:async\s+)?(?:function\b\s*\*?\s*\w*\s*)?(?:<[^>]*>\s*)?\(\s*(\w*)/) || param(/=\s*(?:async\s+)?(\w+)\s*=>/);
      out.push({ name: a![2]!, exported: !!a![1], async: !!a![3], firstParam: p, body });
    }
  }
  return out;
}

/** A body that uses the database itself: the context's connection, a `db` handle, the raw client. */
const USES_DB = /\bctx\.(db|records)\b|\bdb\.|\$client/;

/** The names a body calls: `name(` or `name<T>(`, not a method (`x.name(`). */
const CALL = /(?<![\w.$])([A-Za-z_$][\w$]*)\s*(?:<[^>\n]*>)?\(/g;
const callsOf = (body: string) => new Set([...body.matchAll(CALL)].map((m) => m[1]!));

/**
 * The synchronous functions of each file that use the database, themselves or through one or more synchronous
 * functions that do: of the same file (by name), or of another file of the set that it imports by name (a call graph
 * across files, to a fixed point; a name re-exported from another file counts as that file's). An async function
 * stops the chain: what calls it gets a Promise. Answers, per file, its definitions that use the database.
 */
export function syncDbFunctions(sources: Map<string, string>, imports: Import[]): Map<string, Definition[]> {
  const files = [...sources].map(([file, text]) => {
    const defs = definitionsOf(withoutComments(text))
      .filter((d) => !d.async)
      .map((d) => ({ ...d, calls: callsOf(d.body) }));
    return { file, defs, using: new Set(defs.filter((d) => USES_DB.test(d.body)).map((d) => d.name)) };
  });
  const byFile = new Map(files.map((f) => [f.file, f]));
  // Per file: a local name it imports from another file of the set -> that file and the name it exports.
  const imported = new Map<string, Map<string, { from: string; name: string }>>();
  const reexports: { file: string; from: string; name: string }[] = [];
  for (const i of imports) {
    if (i.typeOnly || !byFile.has(i.to)) continue;
    let names = imported.get(i.from);
    if (!names) imported.set(i.from, (names = new Map()));
    for (const n of i.names) {
      if (n.typeOnly) continue;
      names.set(n.local, { from: i.to, name: n.name });
      if (i.reexport) reexports.push({ file: i.from, from: i.to, name: n.local });
    }
  }
  const usesDb = (file: string, name: string) => !!byFile.get(file)?.using.has(name);
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of reexports) {
      const target = imported.get(r.file)!.get(r.name)!;
      if (!usesDb(r.file, r.name) && usesDb(target.from, target.name)) {
        byFile.get(r.file)!.using.add(r.name);
        grew = true;
      }
    }
    for (const f of files) {
      const names = imported.get(f.file);
      for (const d of f.defs) {
        if (f.using.has(d.name)) continue;
        for (const called of d.calls) {
          const other = names?.get(called);
          if ((called !== d.name && f.using.has(called)) || (other && usesDb(other.from, other.name))) {
            f.using.add(d.name);
            grew = true;
            break;
          }
        }
      }
    }
  }
  return new Map(files.map((f) => [f.file, f.defs.filter((d) => f.using.has(d.name))]));
}

/**
 * In folders converted to records an async engine can serve (issue 30 item 2): a synchronous transaction
 * (bun:sqlite's or drizzle's `.transaction(`, where `ctx.withTransaction` is the record-level one), and an exported
 * function (a declaration, or a const holding an arrow or function expression) given the context or the database
 * first (`ctx`, `db`) that is not async and uses the database (`ctx.db`, `db.`, `$client`) in its body or through
 * synchronous functions that do, one or more calls deep: of its file, or of the other files of the set, imported by
 * name (so a flow's synchronous helper calling another folder's synchronous record is found). (Route builders and
 * registrations are given the context but run no statement themselves.)
 */
export function syncInAsyncFolders(sources: Map<string, string>, isConverted: (file: string) => boolean, imports: Import[] = importsOfAll(sources)): string[] {
  const out: string[] = [];
  const using = syncDbFunctions(sources, imports);
  for (const [file, text] of sources) {
    if (!isConverted(file)) continue;
    if (/\.transaction\(/.test(withoutComments(text))) out.push(`${file} begins a synchronous transaction (not async)`);
    for (const d of using.get(file)!) {
      if (d.exported && /^(ctx|db)$/.test(d.firstParam)) out.push(`${file} exports ${d.name}, which uses the database, not async (not async)`);
    }
  }
  return out.sort();
}
