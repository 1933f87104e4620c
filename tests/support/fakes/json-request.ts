/** What the JSON fakes record of every request: method, path, decoded query, content type and the parsed body. */
export type RecordedJson = {
  method: string;
  path: string;
  query: Record<string, string>;
  contentType: string | null;
  json: unknown;
};

/** Reads a request once; `json` is null when the body is empty or not JSON. */
export async function readJsonRequest(req: Request): Promise<RecordedJson> {
  const url = new URL(req.url);
  const text = await req.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return {
    method: req.method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    contentType: req.headers.get("content-type"),
    json,
  };
}
