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

type Counter = { failures: number; blockedUntil: number; lastFailureAt: number };

/** 1 min for the first block past `free` failures, doubling per further failure, capped at 15 min. */
export function blockMs(failures: number, free: number): number {
  return Math.min(MAX_BLOCK_MS, FIRST_BLOCK_MS * 2 ** Math.min(10, failures - free));
}

const attemptsSinceSweep = new WeakMap<AppContext, number>();

function sweep(ctx: AppContext, now: number) {
  const since = (attemptsSinceSweep.get(ctx) ?? 0) + 1;
  attemptsSinceSweep.set(ctx, since % SWEEP_EVERY);
  if (since === SWEEP_EVERY) {
    ctx.db.$client.query(`DELETE FROM sign_in_failures WHERE blocked_until <= ?1 AND last_failure_at <= ?1 - ?2`).run(now, FORGET_AFTER_MS);
  }
}

/** A row's count, or nothing counted when there is none or it is forgotten (a day untouched, blocking nothing). */
function counterOf(ctx: AppContext, email: string, address: string, now: number): Counter {
  const row = ctx.db.$client
    .query(`SELECT failures, blocked_until, last_failure_at FROM sign_in_failures WHERE email = ? AND address = ?`)
    .get(email, address) as { failures: number; blocked_until: number; last_failure_at: number } | null;
  if (!row || (row.blocked_until <= now && row.last_failure_at + FORGET_AFTER_MS <= now)) return { failures: 0, blockedUntil: 0, lastFailureAt: row?.last_failure_at ?? 0 };
  return { failures: row.failures, blockedUntil: row.blocked_until, lastFailureAt: row.last_failure_at };
}

function saveCounter(ctx: AppContext, email: string, address: string, c: Counter) {
  ctx.db.$client
    .query(
      `INSERT INTO sign_in_failures (email, address, failures, blocked_until, last_failure_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (email, address) DO UPDATE SET failures = excluded.failures, blocked_until = excluded.blocked_until,
         last_failure_at = excluded.last_failure_at`,
    )
    .run(email, address, c.failures, c.blockedUntil, c.lastFailureAt);
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
  // the block; undone below when the password is right.
  const counted = await ctx.withTransaction(async () => {
    sweep(ctx, now);
    const here = counterOf(ctx, key, from, now);
    const account = counterOf(ctx, key, EVERY_ADDRESS, now);
    const blockedUntil = Math.max(here.blockedUntil, account.blockedUntil);
    if (blockedUntil > now) return { blockedUntil };
    const countsForAccount = here.failures < FAILURES_PER_ADDRESS;
    here.failures++;
    here.lastFailureAt = now;
    const addressBlock = here.failures >= FAILURES_PER_ADDRESS ? now + blockMs(here.failures, FAILURES_PER_ADDRESS) : 0;
    if (addressBlock) here.blockedUntil = addressBlock;
    saveCounter(ctx, key, from, here);
    const accountBefore = account.blockedUntil;
    let accountBlock = 0;
    if (countsForAccount) {
      account.failures++;
      account.lastFailureAt = now;
      if (account.failures >= FAILURES_PER_ACCOUNT) account.blockedUntil = accountBlock = now + blockMs(account.failures, FAILURES_PER_ACCOUNT);
      saveCounter(ctx, key, EVERY_ADDRESS, account);
    }
    return { blockedUntil: 0, countsForAccount, addressBlock, accountBefore, accountBlock, addressFailures: here.failures, accountFailures: account.failures };
  });
  if (counted.blockedUntil) throw lockedError(counted.blockedUntil, now);
  const { countsForAccount, addressBlock, accountBefore, accountBlock } = counted as Required<typeof counted>;

  const ok = passwordHash ? await verifyPassword(password, passwordHash) : (await verifyAgainstDecoy(password, ctx.argon2Cost), false);
  if (ok) {
    await ctx.withTransaction(async () => {
      ctx.db.$client.query(`DELETE FROM sign_in_failures WHERE email = ? AND address = ?`).run(key, from);
      if (countsForAccount) {
        ctx.db.$client
          .query(
            `UPDATE sign_in_failures SET failures = max(0, failures - 1),
               blocked_until = CASE WHEN ?3 <> 0 AND blocked_until = ?3 THEN ?4 ELSE blocked_until END
             WHERE email = ?1 AND address = ?2`,
          )
          .run(key, EVERY_ADDRESS, accountBlock, accountBefore);
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
  const user = findUserById(ctx, userId);
  if (user) ctx.db.$client.query(`DELETE FROM sign_in_failures WHERE email = ?`).run(normalizeEmail(user.email));
}
