import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { clientKey } from "../http/client-ip";
import { HttpError } from "../http/errors";
import { findUserById, normalizeEmail } from "../users/queries";
import { verifyAgainstDecoy, verifyPassword } from "./passwords";

/**
 * Sign-in throttling that an attacker cannot turn against the owner.
 *
 * Failures are counted per (email, client address; an IPv6 client by its /64): the 5th wrong password from one address blocks that address
 * for 1 minute, and each further failure after a block ends doubles it, up to 15 minutes. The owner signing in
 * from anywhere else is not affected. A per-email ceiling slows a guesser spread over many addresses: each
 * address adds at most its first 5 failures to it, and from the 50th such failure on the whole email is blocked
 * for 1 minute, doubling per further counted failure up to 15 minutes. So one address alone can never block the
 * owner, and a distributed guesser gets a few guesses per hour once past the ceiling.
 *
 * Keyed by email, not by account, so an unknown email is throttled exactly like a real one and the answers
 * never tell which addresses have accounts. Held in the database (`sign_in_failures`, one row per email and
 * address, address '' for the email's count across addresses), so every process of an installation, and a
 * restarted one, blocks alike (issue 31). A count untouched for a day is forgotten unless it blocks something;
 * rows are only added at the pace of argon2 checks behind the sign-in rate limit, and the stale ones are deleted
 * every SWEEP_EVERY attempts of a process.
 */
export const FAILURES_PER_ADDRESS = 5;
export const FAILURES_PER_ACCOUNT = 50;
export const FIRST_BLOCK_MS = 60_000;
export const MAX_BLOCK_MS = 15 * 60_000;
/** Counts untouched this long are forgotten (unless they block something). */
export const FORGET_AFTER_MS = 24 * 60 * 60_000;
/** A process deletes the forgotten rows once per this many attempts. */
export const SWEEP_EVERY = 500;

export const INVALID_CREDENTIALS = "Invalid credentials";

/** The address of an email's row counting its failures across addresses. */
const EVERY_ADDRESS = "";

/** 1 min for the first block past `free` failures, doubling per further failure, capped at 15 min. */
export function blockMs(failures: number, free: number): number {
  return Math.min(MAX_BLOCK_MS, FIRST_BLOCK_MS * 2 ** Math.min(10, failures - free));
}

const attemptsSinceSweep = new WeakMap<AppContext, number>();

async function sweep(ctx: AppContext, now: number) {
  const since = (attemptsSinceSweep.get(ctx) ?? 0) + 1;
  attemptsSinceSweep.set(ctx, since % SWEEP_EVERY);
  if (since === SWEEP_EVERY) {
    await ctx.records.$run(`DELETE FROM sign_in_failures WHERE blocked_until <= ? AND last_failure_at <= ?`, [now, now - FORGET_AFTER_MS]);
  }
}

/** The latest end of a block on the email, from this address or from every one, still running at `now`; else 0. */
async function blockedUntil(ctx: AppContext, email: string, address: string, now: number): Promise<number> {
  const rows = await ctx.records.$rows<{ blocked_until: number }>(
    `SELECT blocked_until FROM sign_in_failures WHERE email = ? AND address IN (?, ?) AND blocked_until > ?`,
    [email, address, EVERY_ADDRESS, now],
  );
  return Math.max(0, ...rows.map((r) => r.blocked_until));
}

/**
 * One failure counted: parameters email, address, now, now - FORGET_AFTER_MS, now. The same text runs on PostgreSQL
 * (tests/api/shared-limits-postgres.test.ts).
 */
export const COUNT_FAILURE_SQL = `INSERT INTO sign_in_failures (email, address, failures, blocked_until, last_failure_at) VALUES (?, ?, 1, 0, ?)
 ON CONFLICT (email, address) DO UPDATE SET
   failures = CASE WHEN sign_in_failures.last_failure_at <= ? THEN 1 ELSE sign_in_failures.failures + 1 END,
   last_failure_at = excluded.last_failure_at
 WHERE sign_in_failures.blocked_until <= ?
 RETURNING failures`;

/**
 * Counts one failure on the row of (email, address) in one statement, on the count the database holds: a row
 * forgotten (a day untouched, blocking nothing) starts again at 1. Two processes counting at once both count (on
 * PostgreSQL the upsert takes the row's lock and adds to the value last committed), and the row stays locked by the
 * caller's transaction until it ends, so the block written after it is computed from this count. Answers the count,
 * or null when the row blocks at `now` (a failure counted elsewhere since the caller looked): nothing counted.
 */
async function countFailure(ctx: AppContext, email: string, address: string, now: number): Promise<number | null> {
  const [row] = await ctx.records.$rows<{ failures: number }>(COUNT_FAILURE_SQL, [email, address, now, now - FORGET_AFTER_MS, now]);
  return row?.failures ?? null;
}

/** Blocks the row of (email, address) until `until`: written in the transaction whose countFailure locked it. */
async function block(ctx: AppContext, email: string, address: string, until: number) {
  await ctx.records.$run(`UPDATE sign_in_failures SET blocked_until = ? WHERE email = ? AND address = ?`, [until, email, address]);
}

function lockedError(untilMs: number, now: number) {
  const minutes = Math.max(1, Math.ceil((untilMs - now) / 60_000));
  const seconds = Math.max(1, Math.ceil((untilMs - now) / 1000));
  return new HttpError(
    423,
    `Account locked: too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
    { lockedUntil: new Date(untilMs).toISOString() },
    { "retry-after": String(seconds) },
  );
}

/**
 * The throttled password check of every sign-in (user and admin). Throws 423 'Account locked: ...' while the
 * email is blocked for this address or everywhere, even for the right password; otherwise answers whether the
 * password matches `passwordHash` (null: checked against the decoy, so unknown emails take as long and are
 * counted the same). A failure that starts a block answers 423 at once.
 */
export async function attemptPassword(
  ctx: AppContext,
  email: string,
  passwordHash: string | null,
  password: string,
  address: string,
): Promise<boolean> {
  const now = ctx.now();
  const key = normalizeEmail(email);
  // An IPv6 client is counted by its /64: it could take a new address inside it for every guess.
  const from = clientKey(address);
  // Counted as a failure before the (slow) check, in one transaction, so parallel guesses cannot all slip in before
  // the block; undone below when the password is right. Each count is one conditional upsert (countFailure).
  const counted = await ctx.withTransaction(async () => {
    await sweep(ctx, now);
    const blocked = await blockedUntil(ctx, key, from, now);
    if (blocked) return { blockedUntil: blocked };
    const addressFailures = await countFailure(ctx, key, from, now);
    if (addressFailures === null) return { blockedUntil: await blockedUntil(ctx, key, from, now) };
    // Only an address's first FAILURES_PER_ADDRESS failures count for the email's row.
    const countsForAccount = addressFailures <= FAILURES_PER_ADDRESS;
    const addressBlock = addressFailures >= FAILURES_PER_ADDRESS ? now + blockMs(addressFailures, FAILURES_PER_ADDRESS) : 0;
    if (addressBlock) await block(ctx, key, from, addressBlock);
    let accountFailures = 0;
    let accountBlock = 0;
    if (countsForAccount) {
      const failures = await countFailure(ctx, key, EVERY_ADDRESS, now);
      // The email became blocked everywhere since the look above: the attempt is refused, its count rolled back.
      if (failures === null) throw lockedError(await blockedUntil(ctx, key, from, now), now);
      accountFailures = failures;
      if (failures >= FAILURES_PER_ACCOUNT) await block(ctx, key, EVERY_ADDRESS, (accountBlock = now + blockMs(failures, FAILURES_PER_ACCOUNT)));
    }
    return { blockedUntil: 0, countsForAccount, addressBlock, accountBlock, addressFailures, accountFailures };
  });
  if (counted.blockedUntil) throw lockedError(counted.blockedUntil, now);
  const { countsForAccount, addressBlock, accountBlock } = counted as Required<typeof counted>;

  const ok = passwordHash ? await verifyPassword(password, passwordHash) : (await verifyAgainstDecoy(password, ctx.argon2Cost), false);
  if (ok) {
    await ctx.withTransaction(async () => {
      await ctx.records.$run(`DELETE FROM sign_in_failures WHERE email = ? AND address = ?`, [key, from]);
      if (countsForAccount) {
        // One statement on the value held, as the count was: another attempt's failure counted meanwhile stays.
        await ctx.records.$run(
          `UPDATE sign_in_failures SET failures = CASE WHEN failures > 0 THEN failures - 1 ELSE 0 END,
             blocked_until = CASE WHEN blocked_until = ? THEN 0 ELSE blocked_until END
           WHERE email = ? AND address = ?`,
          [accountBlock || -1, key, EVERY_ADDRESS],
        );
      }
    });
    return true;
  }
  if (addressBlock) ctx.log(`sign-in blocked for ${key} from ${from} after ${counted.addressFailures} failed attempts (${(addressBlock - now) / 60_000} min)`);
  if (accountBlock) ctx.log(`sign-in blocked for ${key} from every address after ${counted.accountFailures} failed attempts (${(accountBlock - now) / 60_000} min)`);
  // Only the failure that starts a block says so; the ones already in flight just failed.
  if (addressBlock || accountBlock) throw lockedError(Math.max(addressBlock, accountBlock), now);
  return false;
}

/** Lifts every block and count of this account: whoever guessed does not know the password a reset just set. */
export async function clearLockout(ctx: AppContext, userId: string): Promise<void> {
  await ready(ctx.db);
  const user = await findUserById(ctx, userId);
  if (user) await ctx.records.$run(`DELETE FROM sign_in_failures WHERE email = ?`, [normalizeEmail(user.email)]);
}
