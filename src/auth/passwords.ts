import type { AppContext } from "../context";

export const MIN_PASSWORD_LENGTH = 6;

/** Bun's argon2id defaults (64 MiB, 2 passes): what the appliance always hashes with; see AppContext.argon2Cost. */
const DEFAULT_COST = { memoryCost: 65536, timeCost: 2 };

export function hashPassword(password: string, cost: AppContext["argon2Cost"] = DEFAULT_COST): Promise<string> {
  return Bun.password.hash(password, { algorithm: "argon2id", ...cost });
}

// A stored hash carries its own cost, so verifying needs no setting.
export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return Bun.password.verify(password, hash);
}

// Verifying against this when the email is unknown keeps both answers equally slow: one per cost, so it costs what
// the stored hashes cost.
const decoyHashes = new Map<string, Promise<string>>();
export async function verifyAgainstDecoy(password: string, cost: AppContext["argon2Cost"] = DEFAULT_COST): Promise<void> {
  const key = JSON.stringify(cost);
  let decoy = decoyHashes.get(key);
  if (!decoy) decoyHashes.set(key, (decoy = hashPassword("decoy-password-for-timing", cost)));
  await Bun.password.verify(password, await decoy);
}
