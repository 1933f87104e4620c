// Issue 33: MMS against a Twilio fake that fetches the MediaUrl it is given, as Twilio does right after it accepts
// the message. Our URL's signature and expiry are checked by the appliance; the fake records what it was answered.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { SIGNED_URL_TTL_MS, findMedia, mediaPath } from "../../src/media/media";
import { CARRIER_SAFE_BYTES } from "../../src/media/resize";
import { runDueJobs } from "../../src/jobs/jobs";
import { grantLicense } from "../../src/licenses/licenses";
import { DEFAULT_MMS_PRICE_MICROS } from "../../shared/providers/mms";
import { signedTwilioWebhook, startTwilioFake, twilioInboundParams, type TwilioFake } from "../support/fakes/twilio";
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

async function account(provider: "twilio" | "brevo" = "twilio") {
  const acc = await t.signUpVerified();
  const p =
    provider === "twilio"
      ? await post(acc, "/api/sms-providers", { provider: "twilio", displayName: "Twilio", accountSid: twilio.accountSid, authToken: twilio.authToken })
      : await post(acc, "/api/sms-providers", { provider: "brevo", displayName: "Brevo", apiKey: "xkeysib-test", senderName: "Rosa" });
  expect(p.status).toBe(201);
  if (provider === "twilio") expect((await post(acc, "/api/phone-numbers", { providerId: p.body.id, phoneNumber: MAIN })).status).toBe(201);
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

/** The fake's message to `to` once it arrived, and what the fake fetched from its MediaUrls. */
async function arrived(to: string) {
  const m = await waitFor(() => twilio.messages.find((x) => x.to === to), (x) => !!x, 15_000);
  return { message: m!, fetched: await twilio.fetchedMedia(m!.sid) };
}

describe("sending MMS through Twilio", () => {
  test("a picture sent from /chat arrives at Twilio byte for byte, by a signed URL that later expires", async () => {
    const { acc } = await account();
    const photo = photoJpeg(320, 240, 85);
    const up = await upload(acc, photo, "bouquet.jpg");
    const sent = await post(acc, "/api/messages", { phone: "+14155557001", content: "Today's bouquet!", mediaIds: [up.id] });
    expect(sent.status).toBe(202);
    expect(sent.body.segments).toBe(1);
    expect(sent.body.media).toEqual([{ id: up.id, contentType: "image/jpeg", filename: "bouquet.jpg", size: photo.length, status: "stored", error: null, url: `/api/media/${up.id}` }]);

    const { message, fetched } = await arrived("+14155557001");
    expect(message.body).toBe("Today's bouquet!");
    expect(message.mediaUrls).toHaveLength(1);
    expect(message.mediaUrls[0]!.startsWith(`${t.ctx.config.publicUrl}/api/media/${up.id}/signed?expires=`)).toBe(true);
    expect(fetched[0]!.status).toBe(200);
    expect(Buffer.from(fetched[0]!.bytes).equals(Buffer.from(photo))).toBe(true);
    expect(fetched[0]!.headers.get("content-type")).toBe("image/jpeg");
    expect(fetched[0]!.headers.get("x-content-type-options")).toBe("nosniff");
    // Spend counts it as one MMS at Twilio's list price per MMS (a default), not per SMS segment.
    const priced = await waitFor(
      () => t.ctx.db.$client.query(`SELECT segments, segment_price_micros AS price FROM messages WHERE id = ?`).get(sent.body.id) as { segments: number; price: number | null },
      (r) => r.price !== null,
    );
    expect(priced).toEqual({ segments: 1, price: DEFAULT_MMS_PRICE_MICROS.twilio! });

    // The same URL after its day: refused, the file not served.
    const realNow = t.ctx.now;
    const start = realNow();
    t.ctx.now = () => start + SIGNED_URL_TTL_MS + 1000;
    try {
      const late = await twilio.fetchMedia(message.mediaUrls[0]!);
      expect(late.status).toBe(410);
      expect(late.bytes.length).toBeLessThan(200);
    } finally {
      t.ctx.now = realNow;
    }
    // A URL for another item, its signature borrowed: refused.
    const other = await upload(acc, photoJpeg(64, 64, 80, 7), "other.jpg");
    const forged = await twilio.fetchMedia(message.mediaUrls[0]!.replace(up.id, other.id));
    expect(forged.status).toBe(403);

    // The thread shows the picture on the message.
    const thread = await t.api(`/api/messages/${sent.body.conversationId}`, { token: acc.token });
    expect(thread.body.at(-1).media.map((m: any) => m.id)).toEqual([up.id]);
    // An upload goes with one message only.
    const again = await post(acc, "/api/messages", { phone: "+14155557002", content: "again", mediaIds: [up.id] });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe(`Attachment ${up.id} was already sent with another message: upload it again`);
  });

  test("a deleted message's pictures leave the disk at the next hourly sweep", async () => {
    const { acc } = await account();
    const up = await upload(acc, photoJpeg(64, 48, 80, 3), "gone.jpg");
    const sent = await post(acc, "/api/messages", { phone: "+14155557009", content: "Soon gone", mediaIds: [up.id] });
    expect(sent.status).toBe(202);
    await arrived("+14155557009");
    const row = (await findMedia(t.ctx, up.id))!;
    expect(existsSync(mediaPath(t.ctx, row))).toBe(true);
    // What deleting a campaign's or an account's messages does to the row; the trigger marks the item orphaned.
    t.ctx.db.$client.query(`DELETE FROM messages WHERE id = ?`).run(sent.body.id);
    expect((await t.api(`/api/media/${up.id}`, { token: acc.token })).status).toBe(404);
    const realNow = t.ctx.now;
    const start = realNow();
    t.ctx.now = () => start + 61 * 60_000;
    try {
      await (await runDueJobs(t.ctx)).settled;
    } finally {
      t.ctx.now = realNow;
    }
    expect(await findMedia(t.ctx, up.id)).toBeNull();
    expect(existsSync(mediaPath(t.ctx, row))).toBe(false);
  });

  test("a 6 MB photo arrives resized under the limit; a picture alone needs no text", async () => {
    const { acc } = await account();
    const big = photoJpeg(3400, 2300, 96);
    expect(big.length).toBeGreaterThan(5_500_000);
    const up = await upload(acc, big, "IMG_2041.JPG");
    expect(up.resizedFrom).toBe(big.length);
    const sent = await post(acc, "/api/messages/send", { phone: "+14155557003", content: "", mediaIds: [up.id] });
    expect(sent.status).toBe(202);
    const { message, fetched } = await arrived("+14155557003");
    expect(message.body).toBe("");
    expect(fetched[0]!.status).toBe(200);
    expect(fetched[0]!.bytes.length).toBe(up.size);
    expect(fetched[0]!.bytes.length).toBeLessThanOrEqual(CARRIER_SAFE_BYTES);
    expect([...fetched[0]!.bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
  });

  test("an API key uploads a picture (POST /api/v1/media) and sends it alone as an MMS: it arrives byte for byte", async () => {
    const { acc } = await account();
    await grantLicense(t.ctx, acc.user.id, "professional", 30);
    await t.confirm(acc);
    const key = (await t.api("/api/api-keys", { method: "POST", token: acc.token, body: { name: "Shop", permissions: ["messages:send", "messages:read"] } })).body.key;
    const readOnly = (await t.api("/api/api-keys", { method: "POST", token: acc.token, body: { name: "Reader", permissions: ["messages:read"] } })).body.key;
    const photo = photoJpeg(300, 200, 85, 9);
    const uploadAs = (token: string, bytes: Uint8Array, filename: string) =>
      fetch(`${t.url}/api/v1/media?filename=${filename}`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: bytes as Uint8Array<ArrayBuffer> });
    const res = await uploadAs(key, photo, "order.jpg");
    expect(res.status).toBe(201);
    const up = (await res.json()) as any;
    expect(up).toEqual({ id: up.id, contentType: "image/jpeg", filename: "order.jpg", size: photo.length, status: "stored", error: null, url: `/api/media/${up.id}`, resizedFrom: null });
    // A key without messages:send may not upload; an SVG is refused as the session's upload refuses it.
    const denied = await uploadAs(readOnly, photo, "x.jpg");
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as any).message).toBe("This API key lacks the 'messages:send' permission. Create a key with it under Integrations.");
    const svg = await uploadAs(key, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>'), "x.jpg");
    expect(svg.status).toBe(415);
    expect(((await svg.json()) as any).message).toBe("This file is not a JPEG, PNG or GIF image, a PDF or a vCard, the files an MMS can carry (SVG and HTML files are refused)");

    // A picture alone: no text.
    const sent = await t.api("/api/v1/messages", { method: "POST", token: key, origin: false, body: { phone: "+14155557005", content: "", mediaIds: [up.id] } });
    expect(sent.status).toBe(202);
    expect(sent.body.media.map((m: any) => m.id)).toEqual([up.id]);
    const { message, fetched } = await arrived("+14155557005");
    expect(message.body).toBe("");
    expect(Buffer.from(fetched[0]!.bytes).equals(Buffer.from(photo))).toBe(true);
    const read = await t.api(`/api/v1/messages/${sent.body.id}`, { token: key, origin: false });
    expect(read.body.media).toHaveLength(1);
    // No text and no picture is still refused.
    const empty = await t.api("/api/v1/messages", { method: "POST", token: key, origin: false, body: { phone: "+14155557006", content: "" } });
    expect([empty.status, empty.body.message]).toEqual([400, "Message content is required"]);
  });

  test("a provider that cannot send MMS refuses before anything is queued", async () => {
    const { acc, providerId } = await account("brevo");
    expect((await post(acc, "/api/phone-numbers", { providerId, phoneNumber: "Rosa" })).status).toBe(201);
    const up = await upload(acc, photoJpeg(64, 64), "p.jpg");
    const sent = await post(acc, "/api/messages", { phone: "+14155557004", content: "hi", mediaIds: [up.id] });
    expect(sent.status).toBe(400);
    expect(sent.body.message).toBe("Brevo cannot send pictures or files (MMS): send this from a Twilio or Telnyx number, or remove the attachments");
    const list = await t.api(`/api/messages?phone=${encodeURIComponent("+14155557004")}`, { token: acc.token });
    expect(list.body.total).toBe(0);
  });
});

describe("receiving MMS from Twilio", () => {
  const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>');

  async function inbound(acc: Account, from: string, media: string[], body = "Look at this") {
    const url = `${t.ctx.config.publicUrl}/api/webhooks/twilio/sms/${acc.user.id}`;
    const params = twilioInboundParams({ accountSid: twilio.accountSid, from, to: MAIN, body, media });
    // Twilio names each item's declared type; ours is read from the bytes whatever it says.
    media.forEach((_u, i) => (params[`MediaContentType${i}`] = "image/jpeg"));
    const signed = signedTwilioWebhook(twilio.authToken, url, params);
    const res = await fetch(`${t.url}/api/webhooks/twilio/sms/${acc.user.id}`, { method: "POST", body: signed.body, headers: signed.headers });
    expect(res.status).toBe(200);
  }

  const threadOf = async (acc: Account, phone: string) => {
    const list = await t.api(`/api/conversations?filter=all&q=${encodeURIComponent(phone.slice(2))}`, { token: acc.token });
    const c = list.body.data.find((x: any) => x.phone === phone);
    return (await t.api(`/api/messages/${c.id}`, { token: acc.token })).body as any[];
  };

  test("three items are copied at once with the account's credentials, typed from their bytes; an SVG posing as a JPEG is only a download", async () => {
    const { acc } = await account();
    const jpg = photoJpeg(200, 150, 80, 3);
    const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
    const urls = [twilio.hostMedia(jpg, "image/jpeg"), twilio.hostMedia(png, "image/png"), twilio.hostMedia(SVG, "image/jpeg")];
    await inbound(acc, "+14155558001", urls);
    const media = await waitFor(
      async () => (await threadOf(acc, "+14155558001"))[0].media as any[],
      (m) => m.length === 3 && m.every((x) => x.status === "stored"),
    );
    expect(media.map((m) => [m.contentType, m.filename, m.size])).toEqual([
      ["image/jpeg", "received-1.jpg", jpg.length],
      ["image/png", "received-2.png", png.length],
      ["application/octet-stream", "received-3.bin", SVG.length],
    ]);
    // Fetched with Basic auth (the fake answers nothing without it).
    expect(twilio.requests.filter((r) => urls.some((u) => u.endsWith(r.path))).map((r) => r.authUser)).toEqual([twilio.accountSid, twilio.accountSid, twilio.accountSid]);

    const served = await Promise.all(media.map((m) => fetch(`${t.url}${m.url}`, { headers: { authorization: `Bearer ${acc.token}` } })));
    const bytes = await Promise.all(served.map(async (r) => Buffer.from(await r.arrayBuffer())));
    expect(bytes[0]!.equals(Buffer.from(jpg))).toBe(true);
    expect(bytes[1]!.equals(png)).toBe(true);
    expect(bytes[2]!.equals(SVG)).toBe(true);
    for (const r of served) {
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
      expect(r.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    }
    expect(served.map((r) => r.headers.get("content-disposition"))).toEqual([
      'inline; filename="received-1.jpg"',
      'inline; filename="received-2.png"',
      'attachment; filename="received-3.bin"',
    ]);
    // The SVG is never served as a picture or a page.
    expect(served[2]!.headers.get("content-type")).toBe("application/octet-stream");
  });

  test("an item that cannot be copied yet says so in the thread and is copied by the retry", async () => {
    const { acc } = await account();
    const jpg = photoJpeg(100, 80, 80, 5);
    const later = `${twilio.url}/2010-04-01/Accounts/${twilio.accountSid}/Messages/MMlater/Media/MElater`;
    await inbound(acc, "+14155558002", [later], "");
    const [item] = await waitFor(
      async () => (await threadOf(acc, "+14155558002"))[0].media as any[],
      (m) => m[0]?.error?.startsWith("Could not copy it from the provider yet"),
    );
    expect(item).toMatchObject({ status: "pending", error: "Could not copy it from the provider yet: the provider answered HTTP 404" });
    twilio.hostMedia(jpg, "image/jpeg", later);
    const realNow = t.ctx.now;
    const start = realNow();
    t.ctx.now = () => start + 31_000;
    try {
      await (await runDueJobs(t.ctx)).settled;
    } finally {
      t.ctx.now = realNow;
    }
    const [copied] = (await threadOf(acc, "+14155558002"))[0].media;
    expect(copied).toMatchObject({ status: "stored", error: null, contentType: "image/jpeg", size: jpg.length });
  });
});
