import type { Config } from "../config";

/**
 * `smsdesk healthcheck`: whether the server of this configuration answers GET /api/health with 200 within 3 s,
 * asked on its own listening address (Docker's HEALTHCHECK; the image has no curl).
 */
export async function healthcheck(config: Config): Promise<boolean> {
  const host = config.host === "0.0.0.0" ? "127.0.0.1" : config.host === "::" ? "[::1]" : config.host.includes(":") ? `[${config.host}]` : config.host;
  try {
    const res = await fetch(`http://${host}:${config.port}/api/health`, { signal: AbortSignal.timeout(3000) });
    return res.status === 200;
  } catch {
    return false;
  }
}
