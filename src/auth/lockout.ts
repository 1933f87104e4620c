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
 * never tell which addresses have accounts. Kept in memory (like the rate limits): a restart forgets it, and the
 * store is bounded without ever forgetting an email or address while it is blocked (see touch).
 */
export const FAILURES_PER_ADDRESS = 5;
export const FAILURES_PER_ACCOUNT = 50;
export const FIRST_BLOCK_MS = 60_000;
export const MAX_BLOCK_MS = 15 * 60_000;
/** Counts untouched this long are forgotten. */
export const FORGET_AFTER_MS = 24 * 60 * 60_000;
/** Emails (and addresses per email) remembered; entries that block something are kept beyond it (see touch). */
export const MAX_EMAILS = 5000;
export const MAX_ADDRESSES_PER_EMAIL = 50;
const HARD_MAX_FACTOR = 20;

export const INVALID_CREDENTIALS = "Invalid credentials";

type Counter = { failures: number; blockedUntil: number; lastFailureAt: number };
type EmailState = Counter & { addresses: Map<string, Counter> };

const stores = new WeakMap<AppContext, Map<string, EmailState>>();

function storeFor(ctx: AppContext) {
  let store = stores.get(ctx);
  if (!store) stores.set(ctx, (store = new Map()));
  return store;
}

/** 1 min for the first block past `free` failures, doubling per further failure, capped at 15 min. */
export function blockMs(failures: number, free: number): number {
  return Math.min(MAX_BLOCK_MS, FIRST_BLOCK_MS * 2 ** Math.min(10, failures - free));
}

const stale = (c: Counter, now: number) => c.blockedUntil <= now && c.lastFailureAt + FORGET_AFTER_MS <= now;

const blocked = (c: Counter, now: number) => c.blockedUntil > now;
const emailBlocked = (e: EmailState, now: number) => blocked(e, now) || [...e.addresses.values()].some((a) => blocked(a, now));

/**
 * Most recently used last. Past `max` the least recently used entry that blocks nothing is forgotten: forgetting a
 * blocked one would let a guesser lift its own block by filling the store with other emails or addresses. Blocked
 * entries met on the way move to the back. Only past `hardMax` does the oldest go regardless; every block costs
 * at least 5 argon2 checks and lasts at most 15 minutes, so the hashing alone keeps the blocked far below it.
 */
function touch<V>(map: Map<string, V>, key: string, value: V, max: number, isBlocked: (v: V) => boolean) {
  map.delete(key);
  map.set(key, value);
  if (map.size <= max) return;
  for (let left = map.size - 1; left > 0; left--) {
    const [oldKey, oldValue] = map.entries().next().value!;
    map.delete(oldKey);
    if (!isBlocked(oldValue)) return;
    map.set(oldKey, oldValue);
  }
  if (map.size > max * HARD_MAX_FACTOR) map.delete(map.keys().next().value!);
}

function emailState(ctx: AppContext, key: string, now: number): EmailState {
  const store = storeFor(ctx);
  let state = store.get(key);
  if (!state) state = { failures: 0, blockedUntil: 0, lastFailureAt: 0, addresses: new Map() };
  else if (stale(state, now)) Object.assign(state, { failures: 0, blockedUntil: 0 });
  touch(store, key, state, MAX_EMAILS, (e) => emailBlocked(e, now));
  return state;
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
  const state = emailState(ctx, key, now);
  // An IPv6 client is counted by its /64: it could take a new address inside it for every guess.
  const from = clientKey(address);
  let here = state.addresses.get(from);
  if (!here || stale(here, now)) here = { failures: 0, blockedUntil: 0, lastFailureAt: 0 };
  touch(state.addresses, from, here, MAX_ADDRESSES_PER_EMAIL, (a) => blocked(a, now));
  const blockedUntil = Math.max(here.blockedUntil, state.blockedUntil);
  if (blockedUntil > now) throw lockedError(blockedUntil, now);

  // Counted as a failure before the (slow) check, so parallel guesses cannot all slip in before the block;
  // undone below when the password is right.
  const countsForAccount = here.failures < FAILURES_PER_ADDRESS;
  here.failures++;
  here.lastFailureAt = now;
  const addressBlock = here.failures >= FAILURES_PER_ADDRESS ? now + blockMs(here.failures, FAILURES_PER_ADDRESS) : 0;
  if (addressBlock) here.blockedUntil = addressBlock;
  const accountBefore = state.blockedUntil;
  let accountBlock = 0;
  if (countsForAccount) {
    state.failures++;
    state.lastFailureAt = now;
    if (state.failures >= FAILURES_PER_ACCOUNT) state.blockedUntil = accountBlock = now + blockMs(state.failures, FAILURES_PER_ACCOUNT);
  }

  const ok = passwordHash ? await verifyPassword(password, passwordHash) : (await verifyAgainstDecoy(password, ctx.argon2Cost), false);
  if (ok) {
    state.addresses.delete(from);
    if (countsForAccount) {
      state.failures = Math.max(0, state.failures - 1);
      if (accountBlock && state.blockedUntil === accountBlock) state.blockedUntil = accountBefore;
    }
    return true;
  }
  if (addressBlock) ctx.log(`sign-in blocked for ${key} from ${from} after ${here.failures} failed attempts (${(addressBlock - now) / 60_000} min)`);
  if (accountBlock) ctx.log(`sign-in blocked for ${key} from every address after ${state.failures} failed attempts (${(accountBlock - now) / 60_000} min)`);
  // Only the failure that starts a block says so; the ones already in flight just failed.
  if (addressBlock || accountBlock) throw lockedError(Math.max(addressBlock, accountBlock), now);
  return false;
}

/** Lifts every block and count of this account: whoever guessed does not know the password a reset just set. */
export function clearLockout(ctx: AppContext, userId: string): void {
  const user = findUserById(ctx, userId);
  if (user) storeFor(ctx).delete(normalizeEmail(user.email));
}
