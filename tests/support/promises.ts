/**
 * Promises dropped on the floor, found with TypeScript's own type checker (issue 30 item 2: records now answer
 * Promises). A record turned async keeps compiling where its caller forgot to await it, and then does the wrong thing
 * silently: a write inside a transaction runs after the commit (or not at all), `if (hasMessages(...))` is always
 * true, `.filter(async ...)` keeps everything, `.forEach(async ...)` runs unawaited. Each finding names the file,
 * line and what was dropped:
 *
 * - a statement that is a call answering a Promise, neither awaited, returned, assigned nor marked `void`
 *   (a `.catch(...)` or a `.then(..., onRejected)` counts as handled);
 * - a Promise used as a condition (if, while, ?:, !, && and || operands): it is always truthy;
 * - an async callback given to an array's filter, some, every, find, findIndex or forEach.
 */
// TypeScript 7 (the project's compiler, `typescript`) is native and has no JavaScript API yet; its checker's API is
// TypeScript 5's, kept as the dev dependency `typescript5` (also what openapi-typescript needs).
import ts from "typescript5";
import { relative } from "node:path";

export type Dropped = { file: string; line: number; what: string; text: string };

/** The program of the project at `root` (its tsconfig.json), or of `files` alone with the project's options. */
export function programOf(root: string, files?: string[]): ts.Program {
  const configPath = ts.findConfigFile(root, ts.sys.fileExists, "tsconfig.json");
  if (!configPath) throw new Error(`no tsconfig.json in ${root}`);
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  return ts.createProgram({ rootNames: files ?? parsed.fileNames, options: { ...parsed.options, noEmit: true } });
}

const ARRAY_PREDICATES = new Set(["filter", "some", "every", "find", "findIndex", "findLast", "findLastIndex", "forEach"]);

export function droppedPromises(program: ts.Program, root: string, include: (file: string) => boolean): Dropped[] {
  const checker = program.getTypeChecker();
  const found: Dropped[] = [];

  const thenable = (t: ts.Type, node: ts.Node) => {
    const then = t.getProperty("then");
    return !!then && checker.getTypeOfSymbolAtLocation(then, node).getCallSignatures().length > 0;
  };
  const partsOf = (node: ts.Node) => {
    const type = checker.getTypeAtLocation(node);
    return type.isUnion() ? type.types : [type];
  };
  /** A statement's value that may be a Promise (a union with one counts: its rejection would go unseen). */
  const mayBePromise = (node: ts.Node) => partsOf(node).some((t) => thenable(t, node));
  /** A condition that is always a Promise (`Promise | null` is a real question: is there one?). */
  const alwaysPromise = (node: ts.Node) => partsOf(node).every((t) => thenable(t, node));

  const returnsPromise = (fn: ts.Node): boolean => {
    const type = checker.getTypeAtLocation(fn);
    return type.getCallSignatures().some((sig) => {
      const ret = checker.getReturnTypeOfSignature(sig);
      const then = ret.getProperty("then");
      return !!then;
    });
  };

  /** `.catch(handler)` and `.then(onFulfilled, onRejected)` handle the rejection; `.finally` does not. */
  const handled = (call: ts.CallExpression): boolean => {
    if (!ts.isPropertyAccessExpression(call.expression)) return false;
    const name = call.expression.name.text;
    return (name === "catch" && call.arguments.length >= 1) || (name === "then" && call.arguments.length >= 2);
  };

  for (const source of program.getSourceFiles()) {
    const file = relative(root, source.fileName);
    if (source.isDeclarationFile || file.startsWith("..") || file.includes("node_modules") || !include(file)) continue;
    const seen = new Set<ts.Node>();
    const report = (node: ts.Node, what: string) => {
      if (seen.has(node)) return;
      seen.add(node);
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push({ file, line: line + 1, what, text: node.getText(source).replace(/\s+/g, " ").slice(0, 100) });
    };
    const condition = (node: ts.Expression | undefined) => {
      if (!node) return;
      const inner = ts.isParenthesizedExpression(node) ? node.expression : node;
      if (ts.isBinaryExpression(inner) && (inner.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken || inner.operatorToken.kind === ts.SyntaxKind.BarBarToken)) {
        condition(inner.left);
        condition(inner.right);
      } else if (ts.isPrefixUnaryExpression(inner) && inner.operator === ts.SyntaxKind.ExclamationToken) {
        condition(inner.operand);
      } else if (alwaysPromise(inner)) report(inner, "a Promise used as a condition (always true): await it");
    };
    const visit = (node: ts.Node) => {
      if (ts.isExpressionStatement(node)) {
        const e = node.expression;
        if (ts.isCallExpression(e) && !handled(e) && mayBePromise(e)) report(e, "a Promise neither awaited, returned nor marked void");
      } else if (ts.isIfStatement(node) || ts.isWhileStatement(node) || ts.isDoStatement(node)) {
        condition(node.expression);
      } else if (ts.isConditionalExpression(node)) {
        condition(node.condition);
      } else if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.ExclamationToken && !ts.isPrefixUnaryExpression(node.parent)) {
        condition(node.operand);
      }
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && ARRAY_PREDICATES.has(node.expression.name.text)) {
        const [callback] = node.arguments;
        const receiver = checker.getTypeAtLocation(node.expression.expression);
        if (callback && (ts.isArrowFunction(callback) || ts.isFunctionExpression(callback)) && checker.isArrayLikeType(receiver) && returnsPromise(callback))
          report(node, `an async callback given to ${node.expression.name.text} (its Promise is not awaited)`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}
