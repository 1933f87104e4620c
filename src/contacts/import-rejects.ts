import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { notFound } from "../http/errors";
import { csvCell, UTF8_BOM } from "./export";

/** Rejected rows read at a time as the client takes the download. */
const PAGE = 1000;

/** How many rows of an import were kept to download (refused for their phone). */
export async function rejectedCount(ctx: AppContext, importId: string): Promise<number> {
  await ready(ctx.db);
  return (await ctx.records.$rows<{ n: number }>("SELECT count(*) AS n FROM contact_import_rejects WHERE import_id = ?", [importId]))[0]!.n;
}

/**
 * The rows an import refused for their phone as a CSV to fix and import again: the file's own columns with each
 * row's cells as it had them, then "Line" (in the file) and "Problem" (the reason), which an import skips (no
 * header it knows). Read 1,000 rows at a time as the client takes them, each in a turn of its own on the connection
 * (ready). 404 for another user's import.
 */
export async function rejectedRowsCsv(ctx: AppContext, userId: string, importId: string): Promise<Response> {
  await ready(ctx.db);
  const [job] = await ctx.records.$rows<{ header: string | null; created_at: number }>(
    "SELECT header, created_at FROM contact_imports WHERE id = ? AND user_id = ?",
    [importId, userId],
  );
  if (!job) throw notFound("Import not found");
  const page = "SELECT line, reason, cells FROM contact_import_rejects WHERE import_id = ? AND line > ? ORDER BY line LIMIT ?";
  const header: string[] = job.header ? JSON.parse(job.header) : [];
  const width = header.length;
  const encoder = new TextEncoder();
  const line = (cells: unknown[]) => cells.map(csvCell).join(",") + "\r\n";
  let after = 0;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(UTF8_BOM + line([...header, "Line", "Problem"])));
    },
    async pull(controller) {
      await ready(ctx.db);
      const rows = await ctx.records.$rows<{ line: number; reason: string; cells: string }>(page, [importId, after, PAGE]);
      if (!rows.length) return controller.close();
      after = rows[rows.length - 1]!.line;
      // A row with fewer cells than the header is padded, so Line and Problem stay in their columns.
      const text = rows.map((r) => {
        const cells: string[] = JSON.parse(r.cells);
        return line([...cells, ...Array(Math.max(0, width - cells.length)).fill(""), r.line, r.reason]);
      });
      controller.enqueue(encoder.encode(text.join("")));
    },
  });
  const day = new Date(job.created_at).toISOString().slice(0, 10);
  return new Response(stream, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="rejected-rows-${day}.csv"`,
      "cache-control": "no-store",
    },
  });
}
