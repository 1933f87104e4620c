import { statSync } from "node:fs";
import { join } from "node:path";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { countErrorReports } from "../error-reports/reports";
import { countActiveLicenseCodes } from "../licenses/codes";
import { countOpenContactMessages } from "../support/messages";
import { countUsers } from "../users/queries";
import { VERSION } from "../version";

/** The database's size on disk: its pages, or the file if larger, plus the write-ahead log not yet merged into it. */
function databaseSize(ctx: AppContext): number {
  const pages = ctx.db.$client.query("PRAGMA page_count").get() as { page_count: number };
  const size = ctx.db.$client.query("PRAGMA page_size").get() as { page_size: number };
  let bytes = pages.page_count * size.page_size;
  try {
    bytes = Math.max(bytes, statSync(join(ctx.config.dataDir, "smsdesk.db")).size);
    bytes += statSync(join(ctx.config.dataDir, "smsdesk.db-wal")).size;
  } catch {
    // No WAL file yet, or an in-memory database.
  }
  return bytes;
}

/** The admin portal's health page: the running version, uptime, database size and what waits for an administrator. */
export async function adminHealth(ctx: AppContext, startedAt: number) {
  await ready(ctx.db);
  const accounts = await countUsers(ctx);
  const databaseBytes = databaseSize(ctx);
  return {
    version: VERSION,
    uptimeSeconds: Math.floor((ctx.now() - startedAt) / 1000),
    startedAt: new Date(startedAt).toISOString(),
    databaseBytes,
    users: accounts.users,
    admins: accounts.admins,
    disabledUsers: accounts.disabled,
    activeLicenseCodes: await countActiveLicenseCodes(ctx),
    errorReports: await countErrorReports(ctx),
    openContactMessages: await countOpenContactMessages(ctx),
  };
}
