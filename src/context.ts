import type { Db } from "../db/client";
import type { Config } from "./config";
import type { Mailer } from "./mail/mailer";

/** What every domain needs from the running appliance; built once in server.ts. */
export type AppContext = {
  config: Config;
  db: Db;
  mailer: Mailer;
  keys: { sessions: Buffer; codes: Buffer; secrets: Buffer; webhooks: Buffer };
  now: () => number;
  log: (line: string) => void;
  /**
   * Hands a request to the app's own routes, as if it came over HTTP: the simulator provider posts its delivery
   * reports through the same webhook path a real provider uses. Set once the app is built.
   */
  dispatch: (request: Request) => Promise<Response>;
  /** Run by server.stop(), in order: background workers stop before the database closes. */
  onStop: (() => void | Promise<void>)[];
};
