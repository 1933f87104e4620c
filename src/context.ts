import type { Db } from "../db/client";
import type { Config } from "./config";
import type { Mailer } from "./mail/mailer";

/** What every domain needs from the running appliance; built once in server.ts. */
export type AppContext = {
  config: Config;
  db: Db;
  mailer: Mailer;
  keys: { sessions: Buffer; codes: Buffer; secrets: Buffer };
  now: () => number;
  log: (line: string) => void;
};
