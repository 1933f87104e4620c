// Each provider's answer to "did you accept this message?", asked after a crash cut a send off (src/messages/
// reconcile.ts): the messages it holds that match (none: certainly not accepted), or "cannot tell".
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createBrevoAdapter } from "../../src/providers/brevo";
import { createClickSendAdapter } from "../../src/providers/clicksend";
import { createSimulatorAdapter } from "../../src/providers/simulator";
import { createTelnyxAdapter } from "../../src/providers/telnyx";
import { createTextMagicAdapter } from "../../src/providers/textmagic";
import { createTwilioAdapter } from "../../src/providers/twilio";
import { ProviderError, type SentLookup } from "../../src/providers/types";
import type { AppContext } from "../../src/context";
import { startTwilioFake, type TwilioFake } from "../support/fakes/twilio";

const SENDER = "+14155550100";
const OTHER_SENDER = "+14155550101";
const MESSAGING_SERVICE = "MG" + "0123456789abcdef".repeat(2);
const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);

let clock = T0;
let fake: TwilioFake;

beforeAll(async () => {
  fake = await startTwilioFake({ numbers: [{ phoneNumber: SENDER }, { phoneNumber: OTHER_SENDER }], now: () => clock });
});
afterAll(() => fake.stop());

const lookup = (over: Partial<SentLookup> = {}): SentLookup => ({
  reference: "msg_1",
  to: "+14155552001",
  from: SENDER,
  body: "Spring sale",
  after: T0,
  before: T0 + 25_000,
  ...over,
});

const send = (adapter: ReturnType<typeof createTwilioAdapter>, to: string, body: string, at: number, from = SENDER) => {
  clock = at;
  return adapter.send({ to, from, body, statusCallbackUrl: "https://sms.example.com/cb", reference: "ref" });
};

describe("twilio", () => {
  const adapter = () => createTwilioAdapter(fake.credentials, { baseUrl: fake.url, timeoutMs: 2000 });

  test("found: the message to the recipient from our sender with our body, created in the window, with its status", async () => {
    const a = adapter();
    const sent = await send(a, "+14155552001", "Spring sale", T0 + 3000);
    await send(a, "+14155552001", "Another text", T0 + 4000);
    await send(a, "+14155552001", "Spring sale", T0 + 5000, OTHER_SENDER);
    await send(a, "+14155552002", "Spring sale", T0 + 6000);
    expect(await a.findSent(lookup())).toEqual({ kind: "matches", matches: [{ providerMessageId: sent.providerMessageId, status: "sent" }] });
    // One GET Messages.json?To=&From= (no DateSent: a message still queued at Twilio has no sent date).
    const get = fake.requests.filter((r) => r.method === "GET").at(-1)!;
    expect(get.path).toBe(`/2010-04-01/Accounts/${fake.accountSid}/Messages.json`);
    expect(get.query).toEqual({ To: "+14155552001", From: SENDER, PageSize: "100" });
  });

  test("not found: nothing with our body in the window (same body earlier, outside it, does not count)", async () => {
    const a = adapter();
    await send(a, "+14155552003", "Spring sale", T0 - 3600_000);
    await send(a, "+14155552003", "Something else", T0 + 2000);
    expect(await a.findSent(lookup({ to: "+14155552003" }))).toEqual({ kind: "matches", matches: [] });
    expect(await a.findSent(lookup({ to: "+14155552999" }))).toEqual({ kind: "matches", matches: [] });
  });

  test("two matches in the window are both answered (the caller leaves out the one another message holds)", async () => {
    const a = adapter();
    const first = await send(a, "+14155552004", "Spring sale", T0 + 1000);
    const second = await send(a, "+14155552004", "Spring sale", T0 + 9000);
    const answer = await a.findSent(lookup({ to: "+14155552004" }));
    expect(answer.kind === "matches" && answer.matches.map((m) => m.providerMessageId).sort()).toEqual([first.providerMessageId, second.providerMessageId].sort());
  });

  test("pages through the recipient's history newest first and stops at the first page older than the window", async () => {
    const a = adapter();
    for (let i = 0; i < 150; i++) await send(a, "+14155552005", `Old ${i}`, T0 - 7200_000 + i * 1000);
    const target = await send(a, "+14155552005", "Spring sale", T0 + 1000);
    for (let i = 0; i < 120; i++) await send(a, "+14155552005", `Newer ${i}`, T0 + 2000 + i);
    const before = fake.requests.length;
    expect(await a.findSent(lookup({ to: "+14155552005" }))).toEqual({ kind: "matches", matches: [{ providerMessageId: target.providerMessageId, status: "sent" }] });
    // Page 0 holds the 100 newest; page 1 the target and older ones: no third page.
    expect(fake.requests.slice(before).map((r) => r.query.Page ?? "0")).toEqual(["0", "1"]);
  });

  test("cannot tell when the window is buried under more history than it reads", async () => {
    const a = adapter();
    for (let i = 0; i < 520; i++) await send(a, "+14155552006", `Busy ${i}`, T0 + 30_000 + i);
    expect(await a.findSent(lookup({ to: "+14155552006", before: T0 + 60_000 }))).toEqual({
      kind: "cannot_tell",
      reason: "Twilio holds more than 500 recent messages to this recipient to look through",
    });
  });

  test("a Messaging Service sender: looked up by recipient, matched by the service", async () => {
    const a = adapter();
    clock = T0 + 2000;
    const sent = await a.send({ to: "+14155552007", from: MESSAGING_SERVICE, body: "Spring sale", statusCallbackUrl: "https://x.example/cb", reference: "r" });
    expect(await a.findSent(lookup({ to: "+14155552007", from: MESSAGING_SERVICE }))).toEqual({
      kind: "matches",
      matches: [{ providerMessageId: sent.providerMessageId, status: "sent" }],
    });
    expect(fake.requests.at(-1)!.query).toEqual({ To: "+14155552007", PageSize: "100" });
  });

  test("a failed lookup throws a transient ProviderError (the reconcile job retries), never 'not found'", async () => {
    fake.failNextLists(1);
    const err = await adapter().findSent(lookup()).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: "transient", code: "20500", httpStatus: 500 });
  });
});

describe("simulator", () => {
  const fakeCtx = (now: () => number) => ({ now, onStop: [], log: () => {}, dispatch: async () => new Response("{}") }) as unknown as AppContext;
  const settings = { deliveryDelayMs: 60_000, failRate: 0, throttleRate: 0, errorRate: 0 };

  test("answers from its own records: found by our reference, not found for a window it recorded all through", async () => {
    let now = T0;
    const ctx = fakeCtx(() => now);
    const sim = createSimulatorAdapter(ctx, { id: "acc_1", webhookUrl: "http://127.0.0.1:1/hook", settings });
    now = T0 + 1000;
    const sent = await sim.send({ to: "+14155550101", from: SENDER, body: "Hi", statusCallbackUrl: "", reference: "msg_sim_1" });
    expect(await sim.findSent(lookup({ reference: "msg_sim_1", after: T0 + 500 }))).toEqual({
      kind: "matches",
      matches: [{ providerMessageId: sent.providerMessageId, status: "sent" }],
    });
    expect(await sim.findSent(lookup({ reference: "msg_sim_2", after: T0 + 500 }))).toEqual({ kind: "matches", matches: [] });
    // A new adapter (its settings edited) answers from the same records.
    const edited = createSimulatorAdapter(ctx, { id: "acc_1", webhookUrl: "http://127.0.0.1:1/hook", settings: { ...settings, failRate: 0.5 } });
    expect((await edited.findSent(lookup({ reference: "msg_sim_1", after: T0 + 500 }))).kind).toBe("matches");
    for (const stop of (ctx as unknown as { onStop: (() => void)[] }).onStop) stop();
  });

  test("cannot tell about a window from before it started recording (the server restarted since)", async () => {
    const ctx = fakeCtx(() => T0);
    const sim = createSimulatorAdapter(ctx, { id: "acc_2", webhookUrl: "http://127.0.0.1:1/hook", settings });
    expect(await sim.findSent(lookup({ after: T0 - 20_000 }))).toEqual({
      kind: "cannot_tell",
      reason: "The simulator keeps no record of messages from before the server restarted",
    });
    for (const stop of (ctx as unknown as { onStop: (() => void)[] }).onStop) stop();
  });
});

describe("providers without a usable lookup answer cannot tell", () => {
  const options = { baseUrl: "http://127.0.0.1:1", timeoutMs: 500 };
  test.each([
    ["telnyx", () => createTelnyxAdapter({ apiKey: "KEY", publicKey: "" }, options), "Telnyx offers no way to search sent messages"],
    ["textmagic", () => createTextMagicAdapter({ apiKey: "k", apiSecret: "s" }, options), "TextMagic is not asked"],
    ["brevo", () => createBrevoAdapter({ apiKey: "k" }, options), "Brevo is not asked"],
    ["clicksend", () => createClickSendAdapter({ apiKey: "k", apiSecret: "s" }, options), "ClickSend is not asked"],
  ])("%s", async (_name, make, reason) => {
    const answer = await make().findSent(lookup());
    expect(answer.kind).toBe("cannot_tell");
    expect(answer.kind === "cannot_tell" && answer.reason.startsWith(reason)).toBe(true);
  });
});
