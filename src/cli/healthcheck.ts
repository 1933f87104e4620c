import type { Config } from "../config";
import { dataDirInstanceId } from "../secrets/instance";

/**
 * `smsdesk healthcheck`: whether the server of this configuration answers GET /api/health with 200 within 3 s,
 * asked on its own listening address (Docker's HEALTHCHECK; the image has no curl).
 */
export async function healthcheck(config: Config): Promise<boolean> {
  return (await ownHealth(config))?.status === 200;
}

/** The answer of this configuration's own address to GET /api/health, or null when nothing answers. */
async function ownHealth(config: Config): Promise<Response | null> {
  const host = config.host === "0.0.0.0" ? "127.0.0.1" : config.host === "::" ? "[::1]" : config.host.includes(":") ? `[${config.host}]` : config.host;
  try {
    return await fetch(`http://${host}:${config.port}/api/health`, { signal: AbortSignal.timeout(3000) });
  } catch {
    return null;
  }
}

/**
 * Whether the service of this data folder is running on this configuration's port (its /api/health names the
 * folder's instance id): a restore from the command line would swap the files under it.
 */
export async function serviceRunning(config: Config): Promise<boolean> {
  const res = await ownHealth(config);
  const body = (await res?.json().catch(() => null)) as { instance?: unknown } | null;
  return typeof body?.instance === "string" && body.instance === dataDirInstanceId(config.dataDir, config.secretKeyFile);
}
