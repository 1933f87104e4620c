import { errorCode } from "./errors";

/**
 * JSON nested deeper than any request needs is refused before anything parses it. The parsers and the validator
 * walk a value recursively: arrays 20,000 deep within a 40 KB body held the event loop for 20 s (every tenant
 * waited) and 1 MB of them overflowed the stack. No route takes more than a few levels (a segment's conditions are
 * the deepest: 4), so 64 leaves room for every client and none for the attack.
 */
export const MAX_JSON_DEPTH = 64;

export const TOO_DEEP = `The request body nests deeper than ${MAX_JSON_DEPTH} levels`;

/**
 * True when JSON text opens more than `max` arrays or objects inside one another. One pass over the text, brackets
 * inside strings (and escaped quotes) skipped, stopping at the first level past `max`; it does not check that the
 * text is JSON (the parser that runs next does). 1 MB of brackets is refused after 65 characters; 8 MB of a
 * campaign's recipients is read in about 10 ms.
 */
export function nestsDeeperThan(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string: to the next quote not escaped by a backslash.
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/**
 * Which of Elysia's body parsers a content type reaches. Elysia picks one by the 13th character of the media type
 * ("application/j..." is JSON, "multipart/for..." a form, "application/x..." url-encoded), so any type with that
 * letter there is parsed as such, whatever its name; a form's fields that start with `[` or `{` are parsed as JSON
 * too, and so are a query's values for fields of an object or array type.
 */
function parserOf(contentType: string | null): "json" | "form" | "urlencoded" | "other" {
  const type = (contentType ?? "").split(";", 1)[0]!;
  const letter = type.charCodeAt(12);
  if (letter === 0x6a || type.includes("json")) return "json";
  if (letter === 0x72) return "form";
  if (letter === 0x78) return "urlencoded";
  return "other";
}

const startsJson = (value: string) => value.startsWith("[") || value.startsWith("{");

/** The text values of a form body or a query string that a parser would read as JSON. */
function jsonishValues(entries: Iterable<[string, FormDataEntryValue | string]>): string[] {
  const values: string[] = [];
  for (const [, value] of entries) if (typeof value === "string" && startsJson(value)) values.push(value);
  return values;
}

const tooDeep = () => Response.json({ message: TOO_DEEP, code: errorCode(400) }, { status: 400 });

/**
 * The server's gate for nesting, after the body limit and before routing. A body the route will have parsed (JSON,
 * or a form whose fields may hold JSON) is read as text, checked, and handed on as a buffered request; a body the
 * route reads itself (uploads, provider webhooks: `streamed`) is left to it. The query's values are checked too.
 */
export async function limitNesting(request: Request, streamed: boolean): Promise<Request | Response> {
  const query = new URL(request.url).searchParams;
  if (jsonishValues(query).some((v) => nestsDeeperThan(v))) return tooDeep();
  if (!request.body || streamed) return request;
  const parser = parserOf(request.headers.get("content-type"));
  if (parser === "other") return request;
  const bytes = await request.arrayBuffer();
  const text = new TextDecoder().decode(bytes);
  const deep =
    parser === "json"
      ? nestsDeeperThan(text)
      : parser === "urlencoded"
        ? jsonishValues(new URLSearchParams(text)).some((v) => nestsDeeperThan(v))
        : await formNestsTooDeep(request, bytes);
  if (deep) return tooDeep();
  return new Request(request.url, { method: request.method, headers: request.headers, body: bytes, signal: request.signal });
}

async function formNestsTooDeep(request: Request, bytes: ArrayBuffer): Promise<boolean> {
  try {
    const form = await new Request(request.url, { method: "POST", headers: request.headers, body: bytes }).formData();
    return jsonishValues(form).some((v) => nestsDeeperThan(v));
  } catch {
    // Not a form after all: Elysia's parser refuses it as such.
    return false;
  }
}
