import type { AppContext } from "../context";

/**
 * The pause in writes while a backup is restored. Every write the swap would discard is refused before it runs
 * (503 with Retry-After) instead of being answered 2xx and then lost: a client creating contacts throughout a
 * restore got 201 for 24 of them and found 18 gone. Reads go on; the writes that started before the pause are
 * counted, and the restore waits for them to end before it takes its files.
 */

export const RETRY_AFTER_SECONDS = 10;
export const MAINTENANCE_MESSAGE = "A backup is being restored: changes are paused until it finishes. Please try again in a few seconds";

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** The restore's own request runs throughout the pause: it is what the pause is for. */
const RESTORE = /^\/api\/admin\/backups\/[^/]+\/restore$/;

type Gate = { paused: boolean; inFlight: number; idle: (() => void)[] };
const gates = new WeakMap<AppContext, Gate>();

function gateOf(ctx: AppContext): Gate {
  let gate = gates.get(ctx);
  if (!gate) gates.set(ctx, (gate = { paused: false, inFlight: 0, idle: [] }));
  return gate;
}

/** Handles a request through the gate: a write during a restore answers 503, any other write is counted while it runs. */
export async function throughMaintenance(ctx: AppContext, method: string, path: string, handle: () => Promise<Response>): Promise<Response> {
  if (!WRITES.has(method) || RESTORE.test(path)) return handle();
  const gate = gateOf(ctx);
  if (gate.paused)
    return Response.json(
      { message: MAINTENANCE_MESSAGE, code: "maintenance", retryAfter: RETRY_AFTER_SECONDS },
      { status: 503, headers: { "retry-after": String(RETRY_AFTER_SECONDS) } },
    );
  gate.inFlight++;
  try {
    return await handle();
  } finally {
    if (--gate.inFlight === 0) for (const wake of gate.idle.splice(0)) wake();
  }
}

export type Maintenance = {
  /** Waits for the writes that started before the pause to end; false when some still run after `timeoutMs`. */
  writesEnded(timeoutMs: number): Promise<boolean>;
  end(): void;
};

/** Starts refusing writes (a restore); `end` lets them in again. */
export function beginMaintenance(ctx: AppContext): Maintenance {
  const gate = gateOf(ctx);
  gate.paused = true;
  return {
    async writesEnded(timeoutMs) {
      if (gate.inFlight === 0) return true;
      let timer!: ReturnType<typeof setTimeout>;
      const ended = await Promise.race([
        new Promise<boolean>((resolve) => gate.idle.push(() => resolve(true))),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
      ]);
      clearTimeout(timer);
      return ended;
    },
    end() {
      gate.paused = false;
    },
  };
}
