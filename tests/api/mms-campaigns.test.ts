// Issue 33: attachments on campaigns (each message an MMS of the campaign's shared pictures), templates and drip
// steps, the price per MMS of each provider account, and the sweep of uploads never attached; against a Twilio fake
// that fetches each MediaUrl.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { findMedia, LOOSE_UPLOAD_GRACE_MS, mediaPath } from "../../src/media/media";
import { runDueJobs } from "../../src/jobs/jobs";
import { DEFAULT_MMS_PRICE_MICROS } from "../../shared/providers/mms";
import { DEFAULT_SEGMENT_PRICE_MICROS } from "../../src/providers/prices";
import { startTwilioFake, type TwilioFake } from "../support/fakes/twilio";
import { photoJpeg } from "../support/media-fixtures";
import { startTestServer, type Account, type TestServer } from "../support/test-server";
import { waitFor } from "../support/wait";

setDefaultTimeout(60_000);

const MAIN = "+14155550100";
let t: TestServer;
let twilio: TwilioFake;

beforeAll(async () => {
  twilio = await startTwilioFake({ numbers: [{ phoneNumber: MAIN }] });
  t = await startTestServer({ smtp: false, env: { TWILIO_API_BASE: twilio.url } });
});
afterAll(async () => {
  await t?.stop();
  await twilio?.stop();
});

const post = (acc: Account, path: string, body?: unknown) => t.api(path, { method: "POST", token: acc.token, body });
const put = (acc: Account, path: string, body?: unknown) => t.api(path, { method: "PUT", token: acc.token, body });

async function account(provider: "twilio" | "brevo" = "twilio") {
  const acc = await t.signUpVerified();
  const p =
    provider === "twilio"
      ? await post(acc, "/api/sms-providers", { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken })
      : await post(acc, "/api/sms-providers", { provider: "brevo", displayName: "Brevo", apiKey: "xkeysib-test", senderName: "Rosa" });
  expect(p.status).toBe(201);
  const number = provider === "twilio" ? MAIN : "Rosa";
  expect((await post(acc, "/api/phone-numbers", { providerId: p.body.id, phoneNumber: number })).status).toBe(201);
  return { acc, providerId: p.body.id as string };
}

async function upload(acc: Account, bytes: Uint8Array, filename: string) {
  const res = await fetch(`${t.url}/api/media?filename=${filename}`, {
    method: "POST",
    headers: { authorization: `Bearer ${acc.token}` },
    body: bytes as Uint8Array<ArrayBuffer>,
  });
  expect(res.status).toBe(201);
  return (await res.json()) as any;
}

async function served(acc: Account, url: string) {
  const res = await fetch(`${t.url}${url}`, { headers: { authorization: `Bearer ${acc.token}` } });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

async function onFakeClock<T>(ms: number, run: () => Promise<T>): Promise<T> {
  const realNow = t.ctx.now;
  const start = realNow();
  t.ctx.now = () => start + ms;
  try {
    return await run();
  } finally {
    t.ctx.now = realNow;
  }
}

describe("a campaign with attachments", () => {
  test("each recipient gets the campaign's picture byte for byte, priced and counted as one MMS at the account's price", async () => {
    const { acc, providerId } = await account();
    // The account's own price per MMS, where the default was Twilio's list price (labelled as a default).
    const before = (await t.api("/api/sms-providers/segment-prices", { token: acc.token })).body.data;
    expect(before).toEqual([
      {
        providerId,
        provider: "twilio",
        displayName: "Twilio",
        priceMicros: DEFAULT_SEGMENT_PRICE_MICROS.twilio,
        customPriceMicros: null,
        defaultPriceMicros: DEFAULT_SEGMENT_PRICE_MICROS.twilio,
        mmsPriceMicros: DEFAULT_MMS_PRICE_MICROS.twilio,
        customMmsPriceMicros: null,
        defaultMmsPriceMicros: DEFAULT_MMS_PRICE_MICROS.twilio,
      },
    ]);
    const set = await put(acc, `/api/sms-providers/${providerId}/mms-price`, { priceMicros: 12_500 });
    expect(set.status).toBe(200);
    expect([set.body.mmsPriceMicros, set.body.customMmsPriceMicros, set.body.defaultMmsPriceMicros]).toEqual([12_500, 12_500, 20_000]);
    expect((await put(acc, `/api/sms-providers/${providerId}/mms-price`, { priceMicros: 2_000_000 })).body.message).toBe("The price per MMS must be from $0 to $1, in millionths of a dollar");

    const photo = photoJpeg(320, 240, 85, 11);
    const up = await upload(acc, photo, "bouquet.jpg");
    // A long text (2 SMS segments) is one MMS all the same. Transactional: quiet hours (night on the test's clock) hold none.
    const content = `Today's bouquet: ${"peonies and roses ".repeat(9)}`.trim();
    const created = await post(acc, "/api/campaigns", { name: "Bouquet", content, recipients: ["+14155557101", "+14155557102"], mediaIds: [up.id], appendOptOut: false, transactional: true });
    expect(created.status).toBe(201);
    expect(created.body.media).toEqual([{ id: up.id, contentType: "image/jpeg", filename: "bouquet.jpg", size: photo.length, status: "stored", error: null, url: `/api/media/${up.id}` }]);
    // A campaign's attachment is no longer a loose upload: a chat message cannot take it.
    const taken = await post(acc, "/api/messages", { phone: "+14155557199", content: "x", mediaIds: [up.id] });
    expect(taken.status).toBe(400);
    expect(taken.body.message).toBe(`Attachment ${up.id} was already sent with another message: upload it again`);

    // The delivery preview counts one MMS per recipient and says nothing is refused.
    const preview = await post(acc, "/api/campaigns/preview-delivery", { audience: { kind: "manual" }, recipients: ["+14155557101", "+14155557102"], content, attachments: 1 });
    expect(preview.status).toBe(200);
    expect(preview.body.mms).toEqual({ messages: 2, refusal: null });

    const sent = await post(acc, `/api/campaigns/${created.body.id}/send`, { acknowledgeRegistration: true });
    expect(sent.status).toBe(202);
    expect(sent.body.queued).toBe(2);
    for (const to of ["+14155557101", "+14155557102"]) {
      const m = await waitFor(() => twilio.messages.find((x) => x.to === to), (x) => !!x, 15_000);
      expect(m!.mediaUrls).toHaveLength(1);
      expect(m!.mediaUrls[0]!.startsWith(`${t.ctx.config.publicUrl}/api/media/${up.id}/signed?expires=`)).toBe(true);
      const fetched = await twilio.fetchedMedia(m!.sid);
      expect(fetched[0]!.status).toBe(200);
      expect(Buffer.from(fetched[0]!.bytes).equals(Buffer.from(photo))).toBe(true);
    }
    const rows = await waitFor(
      () =>
        t.ctx.db.$client
          .query(`SELECT phone, segments, segment_price_micros AS price FROM messages WHERE campaign_id = ? ORDER BY phone`)
          .all(created.body.id) as { phone: string; segments: number; price: number | null }[],
      (r) => r.length === 2 && r.every((x) => x.price !== null),
    );
    expect(rows).toEqual([
      { phone: "+14155557101", segments: 1, price: 12_500 },
      { phone: "+14155557102", segments: 1, price: 12_500 },
    ]);
    // The plan counts the two MMS as two messages, not the four segments of their text.
    expect((await t.api("/api/license/usage", { token: acc.token })).body.data.messages.used).toBe(2);
    // Each message shows the picture in its thread, and the campaign still holds it once.
    const list = await t.api(`/api/messages?phone=${encodeURIComponent("+14155557101")}`, { token: acc.token });
    expect(list.body.data[0].media.map((m: any) => m.id)).toEqual([up.id]);
    expect(t.ctx.db.$client.query(`SELECT count(*) AS n FROM message_media WHERE media_id = ?`).get(up.id)).toEqual({ n: 2 });

    // Its price back to the default.
    const cleared = await put(acc, `/api/sms-providers/${providerId}/mms-price`, { priceMicros: null });
    expect([cleared.body.mmsPriceMicros, cleared.body.customMmsPriceMicros]).toEqual([20_000, null]);
  });

  test("a provider that cannot send MMS refuses the campaign with a 400 before anything is queued or scheduled", async () => {
    const { acc, providerId } = await account("brevo");
    const up = await upload(acc, photoJpeg(64, 64, 80, 12), "p.jpg");
    const c = await post(acc, "/api/campaigns", { name: "No MMS", content: "Hello", recipients: ["+14155557201"], mediaIds: [up.id] });
    expect(c.status).toBe(201);
    const refusal = "Brevo cannot send pictures or files (MMS): send this from a Twilio or Telnyx number, or remove the attachments";
    const preview = await post(acc, "/api/campaigns/preview-delivery", { audience: { kind: "manual" }, recipients: ["+14155557201"], content: "Hello", attachments: 1 });
    expect(preview.body.mms).toEqual({ messages: 1, refusal });
    const sent = await post(acc, `/api/campaigns/${c.body.id}/send`, { acknowledgeRegistration: true });
    expect(sent.status).toBe(400);
    expect(sent.body.message).toBe(refusal);
    const later = await post(acc, `/api/campaigns/${c.body.id}/send`, { acknowledgeRegistration: true, scheduledAt: "2099-01-01T10:00" });
    expect(later.status).toBe(400);
    expect(later.body.message).toBe(refusal);
    const after = await t.api(`/api/campaigns/${c.body.id}`, { token: acc.token });
    expect(after.body.status).toBe("draft");
    expect(t.ctx.db.$client.query(`SELECT count(*) AS n FROM messages WHERE campaign_id = ?`).get(c.body.id)).toEqual({ n: 0 });
    // Without its attachment it sends (as SMS).
    expect((await put(acc, `/api/campaigns/${c.body.id}`, { mediaIds: [] })).body.media).toEqual([]);
    // No price per MMS for a provider that sends none.
    const price = await put(acc, `/api/sms-providers/${providerId}/mms-price`, { priceMicros: 10_000 });
    expect(price.status).toBe(400);
    expect(price.body.message).toBe(refusal);
  });

  test("attachments are checked: another account's, twice, or a sixth are refused with their reason", async () => {
    const { acc } = await account();
    const other = (await account()).acc;
    const theirs = await upload(other, photoJpeg(32, 32, 80, 13), "theirs.jpg");
    const mine = await upload(acc, photoJpeg(32, 32, 80, 14), "mine.jpg");
    const base = { name: "Checked", content: "Hi", recipients: ["+14155557301"] };
    const a = await post(acc, "/api/campaigns", { ...base, mediaIds: [theirs.id] });
    expect([a.status, a.body.message]).toEqual([400, `Attachment ${theirs.id} was not found: upload it with POST /api/media first`]);
    const b = await post(acc, "/api/campaigns", { ...base, mediaIds: [mine.id, mine.id] });
    expect([b.status, b.body.message]).toEqual([400, "The same attachment is listed twice"]);
    const c = await post(acc, "/api/campaigns", { ...base, mediaIds: ["a", "b", "c", "d", "e", "f"] });
    expect([c.status, c.body.message]).toEqual([400, "mediaIds lists at most 5 uploads (POST /api/media)"]);
    // Held by one campaign, not by a second; a duplicate gets its own copy.
    const first = await post(acc, "/api/campaigns", { ...base, mediaIds: [mine.id] });
    const second = await post(acc, "/api/campaigns", { ...base, mediaIds: [mine.id] });
    expect([second.status, second.body.message]).toEqual([400, `Attachment ${mine.id} belongs to another message: upload it again`]);
    const copy = await post(acc, `/api/campaigns/${first.body.id}/duplicate`);
    expect(copy.body.media).toHaveLength(1);
    expect(copy.body.media[0].id).not.toBe(mine.id);
    expect([copy.body.media[0].filename, copy.body.media[0].size]).toEqual(["mine.jpg", mine.size]);
  });
});

describe("a template with attachments", () => {
  test("holds its pictures; using it attaches copies of them, which a campaign then sends; deleting it lets its own go", async () => {
    const { acc } = await account();
    const photo = photoJpeg(160, 120, 85, 17);
    const up = await upload(acc, photo, "menu.jpg");
    const made = await post(acc, "/api/templates", { name: "Menu", content: "Today's menu", mediaIds: [up.id] });
    expect(made.status).toBe(201);
    expect(made.body.media).toEqual([{ id: up.id, contentType: "image/jpeg", filename: "menu.jpg", size: photo.length, status: "stored", error: null, url: `/api/media/${up.id}` }]);
    const listed = (await t.api("/api/templates", { token: acc.token })).body.data.find((x: any) => x.id === made.body.id);
    expect(listed.media.map((m: any) => m.id)).toEqual([up.id]);

    const used = await post(acc, `/api/templates/${made.body.id}/use`);
    expect(used.status).toBe(200);
    expect(used.body.usageCount).toBe(1);
    expect(used.body.attachments).toHaveLength(1);
    const copy = used.body.attachments[0];
    expect(copy.id).not.toBe(up.id);
    expect([copy.filename, copy.size, copy.contentType]).toEqual(["menu.jpg", photo.length, "image/jpeg"]);
    expect((await served(acc, copy.url)).equals(Buffer.from(photo))).toBe(true);
    // The copy goes with a campaign; the template keeps its own.
    const c = await post(acc, "/api/campaigns", { name: "From template", content: used.body.content, recipients: ["+14155557501"], mediaIds: [copy.id] });
    expect(c.body.media.map((m: any) => m.id)).toEqual([copy.id]);
    // A template's own picture is not a loose upload: no campaign takes it.
    const taken = await post(acc, "/api/campaigns", { name: "Taken", content: "x", recipients: ["+14155557502"], mediaIds: [up.id] });
    expect([taken.status, taken.body.message]).toEqual([400, `Attachment ${up.id} belongs to another message: upload it again`]);

    // Edited to none, then deleted: its picture is let go, and swept once the grace period is over.
    expect((await put(acc, `/api/templates/${made.body.id}`, { mediaIds: [] })).body.media).toEqual([]);
    expect((await t.api(`/api/templates/${made.body.id}`, { method: "DELETE", token: acc.token })).status).toBe(200);
    expect((await findMedia(t.ctx, up.id))!.held_by).toBeNull();
    await onFakeClock(LOOSE_UPLOAD_GRACE_MS + 3_600_000, async () => (await runDueJobs(t.ctx)).settled);
    expect(await findMedia(t.ctx, up.id)).toBeNull();
    expect((await findMedia(t.ctx, copy.id))!.held_by).toBe(`campaign:${c.body.id}`);
  });
});

describe("a drip step with attachments", () => {
  test("the step's picture, held by the drip, reaches the Twilio fake byte for byte as one MMS at the account's price", async () => {
    const { acc } = await account();
    expect((await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: false } })).status).toBe(200);
    const photo = photoJpeg(300, 200, 85, 31);
    const up = await upload(acc, photo, "welcome.jpg");
    const steps = [
      { delay: 0, unit: "minutes", content: "Welcome to the flower club", mediaIds: [up.id] },
      { delay: 1, unit: "days", content: "A day in: any questions?" },
    ];
    const made = await post(acc, "/api/drip-campaigns", { name: "Welcome", trigger: "manual", steps });
    expect(made.status).toBe(201);
    const view = { id: up.id, contentType: "image/jpeg", filename: "welcome.jpg", size: photo.length, status: "stored", error: null, url: `/api/media/${up.id}` };
    expect(made.body.steps).toEqual([
      { delay: 0, unit: "minutes", sendAtHour: null, content: "Welcome to the flower club", mediaIds: [up.id], media: [view] },
      { delay: 1, unit: "days", sendAtHour: null, content: "A day in: any questions?", media: [] },
    ]);
    expect((await findMedia(t.ctx, up.id))!.held_by).toBe(`drip:${made.body.id}`);
    // Held by the drip: no chat message can take it, nor a second step.
    expect((await post(acc, "/api/messages", { phone: "+14155557599", content: "x", mediaIds: [up.id] })).body.message).toBe(`Attachment ${up.id} was already sent with another message: upload it again`);
    const twice = await put(acc, `/api/drip-campaigns/${made.body.id}`, { steps: [steps[0], { ...steps[1], mediaIds: [up.id] }] });
    expect(twice.status).toBe(400);
    expect(twice.body.message).toBe("The same attachment is in two steps: upload it again for the second");

    const contact = await post(acc, "/api/contacts", { firstName: "Iris", phone: "+14155557501" });
    expect((await post(acc, `/api/drip-campaigns/${made.body.id}/enrol`, { contactIds: [contact.body.id] })).body).toEqual({ enrolled: 1, skipped: [] });
    await (await runDueJobs(t.ctx)).settled;
    const m = await waitFor(() => twilio.messages.find((x) => x.to === "+14155557501"), (x) => !!x, 15_000);
    expect(m!.body).toBe("Welcome to the flower club");
    expect(m!.mediaUrls).toHaveLength(1);
    expect(m!.mediaUrls[0]!.startsWith(`${t.ctx.config.publicUrl}/api/media/${up.id}/signed?expires=`)).toBe(true);
    const fetched = await twilio.fetchedMedia(m!.sid);
    expect(fetched[0]!.status).toBe(200);
    expect(Buffer.from(fetched[0]!.bytes).equals(Buffer.from(photo))).toBe(true);
    const row = await waitFor(
      () => t.ctx.db.$client.query(`SELECT segments, segment_price_micros AS price, mms FROM messages WHERE phone = '+14155557501'`).get() as { segments: number; price: number | null; mms: number },
      (r) => r?.price != null,
    );
    expect(row).toEqual({ segments: 1, price: DEFAULT_MMS_PRICE_MICROS.twilio, mms: 1 });
    // The step's history names the message, which shows the picture in the thread.
    const [enrolment] = (await t.api(`/api/drip-campaigns/${made.body.id}/enrolments`, { token: acc.token })).body.data;
    const message = await t.api(`/api/messages/${enrolment.history[0].messageId}`, { token: acc.token });
    expect(message.body.media).toEqual([view]);

    // The step loses its picture while Iris waits on the steps she started with: the drip keeps holding it for her.
    const kept = await put(acc, `/api/drip-campaigns/${made.body.id}`, { steps: [{ ...steps[0], mediaIds: [] }, steps[1]], applyToWaiting: false });
    expect(kept.status).toBe(200);
    expect(kept.body.steps[0].media).toEqual([]);
    expect((await findMedia(t.ctx, up.id))!.held_by).toBe(`drip:${made.body.id}`);
    // Deleted: its picture is let go, and stays while the message sent with it does.
    expect((await t.api(`/api/drip-campaigns/${made.body.id}`, { method: "DELETE", token: acc.token })).status).toBe(200);
    expect((await findMedia(t.ctx, up.id))!.held_by).toBeNull();
    await onFakeClock(LOOSE_UPLOAD_GRACE_MS + 3_600_000, async () => (await runDueJobs(t.ctx)).settled);
    expect((await findMedia(t.ctx, up.id))!.status).toBe("stored");
  });

  test("a drip whose default number's provider cannot send MMS is refused with a 400 when saved", async () => {
    const { acc } = await account("brevo");
    const up = await upload(acc, photoJpeg(40, 40, 80, 32), "p.jpg");
    const res = await post(acc, "/api/drip-campaigns", { name: "Welcome", trigger: "manual", steps: [{ delay: 0, unit: "minutes", content: "Hi", mediaIds: [up.id] }] });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      "Drips send from your default number: Brevo cannot send pictures or files (MMS): send this from a Twilio or Telnyx number, or remove the attachments",
    );
    expect((await findMedia(t.ctx, up.id))!.held_by).toBeNull();
  });

  test("a step due when the default number has moved to a provider that cannot send MMS is skipped with the refusal, nothing sent", async () => {
    const { acc } = await account();
    expect((await t.api("/api/user/settings", { method: "PATCH", token: acc.token, body: { quietHoursEnabled: false } })).status).toBe(200);
    const up = await upload(acc, photoJpeg(40, 40, 80, 33), "p.jpg");
    const made = await post(acc, "/api/drip-campaigns", { name: "Welcome", trigger: "manual", steps: [{ delay: 0, unit: "minutes", content: "Hi", mediaIds: [up.id] }] });
    expect(made.status).toBe(201);
    // The plan's one number: the Twilio number goes, a Brevo one comes.
    const [twilioNumber] = (await t.api("/api/phone-numbers", { token: acc.token })).body.data;
    expect((await t.api(`/api/phone-numbers/${twilioNumber.id}`, { method: "DELETE", token: acc.token })).status).toBe(200);
    const brevo = await post(acc, "/api/sms-providers", { provider: "brevo", displayName: "Brevo", apiKey: "xkeysib-test", senderName: "Rosa" });
    expect((await post(acc, "/api/phone-numbers", { providerId: brevo.body.id, phoneNumber: "Rosa", isDefault: true })).status).toBe(201);
    const contact = await post(acc, "/api/contacts", { firstName: "Ivy", phone: "+14155557502" });
    expect((await post(acc, `/api/drip-campaigns/${made.body.id}/enrol`, { contactIds: [contact.body.id] })).body.enrolled).toBe(1);
    await (await runDueJobs(t.ctx)).settled;
    const [enrolment] = (await t.api(`/api/drip-campaigns/${made.body.id}/enrolments`, { token: acc.token })).body.data;
    expect(enrolment.history.map((h: { outcome: string; reason: string; messageId: string | null }) => [h.outcome, h.reason, h.messageId])).toEqual([
      ["skipped", "Skipped: Brevo cannot send pictures or files (MMS): send this from a Twilio or Telnyx number, or remove the attachments", null],
    ]);
    expect(t.ctx.db.$client.query(`SELECT count(*) AS n FROM messages WHERE user_id = ?`).get(acc.user.id)).toEqual({ n: 0 });
  });
});

describe("uploads never attached", () => {
  test("are swept with their files a day after upload; a draft's attachment stays, and goes after the draft is deleted", async () => {
    const { acc } = await account();
    const loose = await upload(acc, photoJpeg(40, 40, 80, 15), "never-sent.jpg");
    const held = await upload(acc, photoJpeg(40, 40, 80, 16), "draft.jpg");
    const draft = await post(acc, "/api/campaigns", { name: "Draft", content: "Hi", recipients: ["+14155557401"], mediaIds: [held.id] });
    const loosePath = mediaPath(t.ctx, (await findMedia(t.ctx, loose.id))!);
    const heldPath = mediaPath(t.ctx, (await findMedia(t.ctx, held.id))!);
    // Within the day: both kept.
    await onFakeClock(LOOSE_UPLOAD_GRACE_MS - 60_000, async () => (await runDueJobs(t.ctx)).settled);
    expect([existsSync(loosePath), existsSync(heldPath)]).toEqual([true, true]);
    await onFakeClock(LOOSE_UPLOAD_GRACE_MS + 2 * 3_600_000, async () => (await runDueJobs(t.ctx)).settled);
    expect(await findMedia(t.ctx, loose.id)).toBeNull();
    expect([existsSync(loosePath), existsSync(heldPath)]).toEqual([false, true]);
    expect((await t.api(`/api/media/${held.id}`, { token: acc.token })).status).toBe(200);
    expect((await t.api(`/api/campaigns/${draft.body.id}`, { method: "DELETE", token: acc.token })).status).toBe(200);
    await onFakeClock(LOOSE_UPLOAD_GRACE_MS + 4 * 3_600_000, async () => (await runDueJobs(t.ctx)).settled);
    expect(await findMedia(t.ctx, held.id)).toBeNull();
    expect(existsSync(heldPath)).toBe(false);
  });
});
