import { PROCESS } from "../process-identity";
import { instanceId } from "../secrets/instance";
import { VERSION } from "../version";

/**
 * The answer of GET /api/health, given whether the database answers: by its route (health/routes.ts) and, while the
 * rest of the program loads after the server began listening, by the server itself (src/listen.ts).
 */
export function healthAnswer(db: "ok" | "error", secretsKey: Buffer) {
  return {
    status: db === "ok" ? 200 : 503,
    body: { status: db === "ok" ? "ok" : "degraded", version: VERSION, db, instance: instanceId(secretsKey), process: PROCESS.name },
  };
}
