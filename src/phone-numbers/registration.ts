import { eq } from "drizzle-orm";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { numberRegistrations, type RegistrationProgram, type RegistrationState } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { enqueueJob, registerJobHandler } from "../jobs/jobs";
import type { ProviderAccount } from "../providers/accounts";
import { PROVIDER_LABELS } from "../providers/credentials";
import { adapterFor } from "../providers/registry";
import { ProviderError, type RegistrationFinding, type RegistrationQuery } from "../providers/types";
import { numbersWithAccounts, usersWithNumbers, type PhoneNumberRow } from "./numbers";
import { registrationMeaning, STATE_LABELS } from "./registration-meaning";

/**
 * Carrier registration per sender number (issue 34 item 1): read from the provider (its A2P 10DLC campaign or
 * toll-free verification), kept with the time it was read, refreshed on demand and twice a day by a job.
 * Which program a number needs is decided here, from the number itself: a US local number needs 10DLC, a North
 * American toll-free number a verification; short codes, sender names and numbers outside the US need neither.
 */

export type RegistrationRow = typeof numberRegistrations.$inferSelect;

/** How often every account's numbers are read again (a review takes days; a campaign can be suspended any day). */
export const REGISTRATION_CHECK_EVERY_MS = 12 * 3600_000;
const JOB = "registration_check";

const TOLL_FREE = /^\+1(800|833|844|855|866|877|888)\d{7}$/;

/** The program a number needs, or why none applies. */
export function programOf(n: Pick<PhoneNumberRow, "phoneNumber" | "kind">): { program: RegistrationProgram; notApplicable: string | null } {
  if (n.kind === "short_code") return { program: "none", notApplicable: "Short codes are approved through the carriers' short code program, not 10DLC" };
  if (n.kind === "alphanumeric") return { program: "none", notApplicable: "A sender name cannot text US numbers; no registration applies" };
  if (n.kind === "toll_free" || TOLL_FREE.test(n.phoneNumber)) return { program: "toll_free", notApplicable: null };
  const parsed = parsePhoneNumberFromString(n.phoneNumber);
  if (parsed?.country === "US") return { program: "10dlc", notApplicable: null };
  const where = parsed?.country ?? (parsed ? `+${parsed.countryCallingCode}` : "unknown country");
  return { program: "none", notApplicable: `A number outside the US (${where}): no US carrier registration applies` };
}

async function upsert(ctx: AppContext, row: RegistrationRow) {
  await ready(ctx.db);
  await ctx.records
    .insert(numberRegistrations)
    .values(row)
    .onConflictDoUpdate({
      target: numberRegistrations.phoneNumberId,
      set: { program: row.program, state: row.state, reason: row.reason, detail: row.detail, checkError: row.checkError, checkedAt: row.checkedAt },
    })
    .run();
}

/** Why a check could not be made, in words. */
function checkErrorText(account: ProviderAccount, err: unknown): string {
  const label = PROVIDER_LABELS[account.provider];
  if (err instanceof ProviderError) {
    if (err.kind === "auth") return `${label} refused the credentials (${err.message})`;
    if (err.code === "network" || err.code === "timeout") return `${label}'s API could not be reached`;
    return `${label} answered: ${err.message}${err.code && !err.message.includes(err.code) ? ` (${err.code})` : ""}`;
  }
  return `${label}: ${(err as Error)?.message ?? String(err)}`;
}

/** The state read before stays, with why it could not be read again; a number never read is "not known". */
async function noteCheckError(ctx: AppContext, userId: string, queries: RegistrationQuery[], idOf: Map<string, string>, error: string, now: number) {
  for (const q of queries) {
    const id = idOf.get(q.phoneNumber)!;
    if (await registrationOf(ctx, id)) await ctx.records.update(numberRegistrations).set({ checkError: error }).where(eq(numberRegistrations.phoneNumberId, id)).run();
    else await upsert(ctx, { phoneNumberId: id, userId, program: q.program, state: "unknown", reason: null, detail: null, checkError: error, checkedAt: now });
  }
}

/**
 * Reads the registration of every number of the account (or of one provider account) from the providers. Its
 * statements wait their turn (ready) after each provider call: another caller's transaction may be open by then.
 */
export async function refreshRegistrations(ctx: AppContext, userId: string, providerId?: string) {
  const numbers = (await numbersWithAccounts(ctx, userId)).filter((j) => !providerId || j.n.providerId === providerId);
  const byAccount = new Map<string, typeof numbers>();
  for (const j of numbers) byAccount.set(j.account.id, [...(byAccount.get(j.account.id) ?? []), j]);
  for (const group of byAccount.values()) {
    const account = group[0]!.account;
    await ready(ctx.db);
    const now = ctx.now();
    const queries: RegistrationQuery[] = [];
    for (const { n } of group) {
      const { program, notApplicable } = programOf(n);
      if (notApplicable) await upsert(ctx, { phoneNumberId: n.id, userId, program, state: "not_applicable", reason: notApplicable, detail: null, checkError: null, checkedAt: now });
      else if (account.provider === "simulator")
        await upsert(ctx, { phoneNumberId: n.id, userId, program, state: "not_applicable", reason: "The simulator sends to no carrier", detail: null, checkError: null, checkedAt: now });
      else queries.push({ phoneNumber: n.phoneNumber, program: program as RegistrationQuery["program"] });
    }
    if (!queries.length) continue;
    const idOf = new Map(group.map(({ n }) => [n.phoneNumber, n.id]));
    let adapter: Awaited<ReturnType<typeof adapterFor>>;
    try {
      adapter = await adapterFor(ctx, account);
    } catch (err) {
      await ready(ctx.db);
      await noteCheckError(ctx, userId, queries, idOf, checkErrorText(account, err), now);
      continue;
    }
    await ready(ctx.db);
    if (!adapter.registrations) {
      for (const q of queries)
        await upsert(ctx, { phoneNumberId: idOf.get(q.phoneNumber)!, userId, program: q.program, state: "unknown", reason: `${PROVIDER_LABELS[account.provider]} offers no registration API`, detail: null, checkError: null, checkedAt: now });
      continue;
    }
    let found: Map<string, RegistrationFinding>;
    try {
      found = await adapter.registrations(queries);
    } catch (err) {
      await ready(ctx.db);
      await noteCheckError(ctx, userId, queries, idOf, checkErrorText(account, err), now);
      continue;
    }
    await ready(ctx.db);
    const at = ctx.now();
    for (const q of queries) {
      const f = found.get(q.phoneNumber) ?? { state: "unregistered" as const, reason: "The provider reports no registration for this number", detail: null };
      await upsert(ctx, { phoneNumberId: idOf.get(q.phoneNumber)!, userId, program: q.program, state: f.state, reason: f.reason, detail: f.detail, checkError: null, checkedAt: at });
    }
  }
}

async function registrationOf(ctx: AppContext, phoneNumberId: string): Promise<RegistrationRow | undefined> {
  await ready(ctx.db);
  return ctx.records.select().from(numberRegistrations).where(eq(numberRegistrations.phoneNumberId, phoneNumberId)).get();
}

export type NumberRegistrationView = {
  phoneNumberId: string;
  phoneNumber: string;
  displayName: string;
  program: RegistrationProgram;
  /** null: never checked yet. */
  state: RegistrationState | null;
  label: string;
  reason: string | null;
  detail: string | null;
  sending: string;
  todo: string | null;
  blocksUs: boolean;
  checkedAt: string | null;
  checkError: string | null;
};

function viewOf(n: PhoneNumberRow, r: RegistrationRow | undefined, provider: ProviderAccount["provider"]): NumberRegistrationView {
  const own = programOf(n);
  const program = r?.program ?? own.program;
  const base = { phoneNumberId: n.id, phoneNumber: n.phoneNumber, displayName: n.displayName, program };
  // What needs no provider to tell (a short code, a number abroad, the simulator) is said before any check.
  const notApplicable = own.notApplicable ?? (provider === "simulator" ? "The simulator sends to no carrier" : null);
  if (!r && notApplicable) {
    const m = registrationMeaning(program, "not_applicable");
    return { ...base, state: "not_applicable", label: STATE_LABELS.not_applicable, reason: notApplicable, detail: null, sending: m.sending, todo: m.todo, blocksUs: false, checkedAt: null, checkError: null };
  }
  if (!r)
    return { ...base, state: null, label: "Not checked yet", reason: null, detail: null, sending: "Not read from the provider yet.", todo: "Check now.", blocksUs: false, checkedAt: null, checkError: null };
  const meaning = registrationMeaning(r.program, r.state);
  return {
    ...base,
    state: r.state,
    label: STATE_LABELS[r.state],
    reason: r.reason,
    detail: r.detail,
    sending: meaning.sending,
    todo: meaning.todo,
    blocksUs: meaning.blocksUs,
    checkedAt: new Date(r.checkedAt).toISOString(),
    checkError: r.checkError,
  };
}

/** The card: per provider account, each number's registration and what it means for sending. */
export async function registrationOverview(ctx: AppContext, userId: string) {
  return overviewOf(ctx, userId);
}

/** The numbers' record awaited, then their registrations read after ready. */
async function overviewOf(ctx: AppContext, userId: string) {
  const numbers = await numbersWithAccounts(ctx, userId);
  await ready(ctx.db);
  const rows = new Map((await ctx.records.select().from(numberRegistrations).where(eq(numberRegistrations.userId, userId)).all()).map((r) => [r.phoneNumberId, r]));
  const accounts = new Map<string, { providerId: string; provider: string; providerName: string; numbers: NumberRegistrationView[] }>();
  for (const j of numbers) {
    let a = accounts.get(j.account.id);
    if (!a) accounts.set(j.account.id, (a = { providerId: j.account.id, provider: j.provider, providerName: j.providerName, numbers: [] }));
    a.numbers.push(viewOf(j.n, rows.get(j.n.id), j.account.provider));
  }
  return {
    accounts: [...accounts.values()].map((a) => ({
      ...a,
      // One line per account: how many of its numbers carriers block for US recipients.
      summary: summaryOf(a.numbers),
    })),
  };
}

function summaryOf(numbers: NumberRegistrationView[]): string {
  const count = (s: RegistrationState | null) => numbers.filter((n) => n.state === s).length;
  const parts = (["registered", "pending", "rejected", "unregistered", "unknown", "not_applicable"] as const)
    .map((s) => [count(s), STATE_LABELS[s].toLowerCase()] as const)
    .filter(([n]) => n > 0)
    .map(([n, l]) => `${n} ${l}`);
  const unchecked = count(null);
  if (unchecked) parts.push(`${unchecked} not checked yet`);
  return parts.join(", ");
}

/**
 * The registration of the number a campaign sends from, by its E.164 number (the campaign's warning): the delivery
 * preview and the send's check (campaigns/registration-warning.ts) await it.
 */
export async function registrationOfSender(ctx: AppContext, userId: string, phoneNumber: string): Promise<NumberRegistrationView | null> {
  const j = (await numbersWithAccounts(ctx, userId)).find((x) => x.n.phoneNumber === phoneNumber);
  await ready(ctx.db);
  return j ? viewOf(j.n, await registrationOf(ctx, j.n.id), j.account.provider) : null;
}

/** Every account's numbers, for `smsdesk doctor`. */
export async function allRegistrations(ctx: AppContext) {
  const all = [];
  for (const userId of await usersWithNumbers(ctx)) {
    const { accounts } = await overviewOf(ctx, userId);
    all.push(...accounts.map((a) => ({ ...a, provider: PROVIDER_LABELS[a.provider as ProviderAccount["provider"]] ?? a.provider })));
  }
  return all;
}

/** Every account's registration read again every REGISTRATION_CHECK_EVERY_MS, from the jobs table. */
export async function scheduleRegistrationChecks(ctx: AppContext) {
  registerJobHandler(
    ctx,
    JOB,
    async () => {
      let checked = 0;
      const failed: string[] = [];
      for (const userId of await usersWithNumbers(ctx)) {
        // One account's failure (its credentials cannot be read) must not keep the others from being checked.
        try {
          await refreshRegistrations(ctx, userId);
          checked++;
        } catch (err) {
          failed.push(`${userId}: ${(err as Error)?.message ?? err}`);
        }
      }
      return { result: { accounts: checked, failed }, runAgainAt: ctx.now() + REGISTRATION_CHECK_EVERY_MS };
    },
    { maxAttempts: Infinity, firstDelayMs: 60_000, leaseMs: 10 * 60_000 },
  );
  await enqueueJob(ctx, { kind: JOB, key: JOB, runAt: ctx.now() });
}
