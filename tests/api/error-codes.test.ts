// Every error body carries a machine code by kind (src/http/errors.ts), which the UI branches on instead of the
// message text: one request per kind, its status and its code.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type Account, type TestServer } from "../support/test-server";

let t: TestServer;
let acc: Account;
beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  acc = await t.signUpVerified();
});
afterAll(() => t?.stop());

const answer = async (path: string, opts: Parameters<TestServer["api"]>[1] = {}) => {
  const res = await t.api(path, opts);
  return { status: res.status, code: res.body?.code };
};

describe("validation messages", () => {
  test("a wrong type on an optional field names the type expected, not TypeBox's 'union value'", async () => {
    const res = await t.api("/api/auth/login", { body: { email: "a@b.co", password: 1 } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Invalid password: expected string", code: "validation" });
  });

  test("a value of the right type outside an optional field's bounds is told the bounds, and a bad choice the choices, not 'expected string'", async () => {
    const long = await t.api("/api/auth/confirm", { token: acc.token, body: { password: "x".repeat(201) } });
    expect(long.body).toEqual({ message: "Invalid password: Expected string length less or equal to 200", code: "validation" });
    const status = await t.api("/api/campaign-logs?status=bogus", { token: acc.token });
    expect(status.body.message).toBe("Invalid status: expected one of pending, sending, sent, delivered, failed, unknown, skipped, expired, cancelled");
  });
});

describe("error codes", () => {
  test("each kind of error names its code", async () => {
    expect(await answer("/api/contacts", { method: "POST", token: acc.token, body: { firstName: "Pat" } })).toEqual({
      status: 400,
      code: "validation",
    });
    expect(await answer("/api/contacts")).toEqual({ status: 401, code: "unauthorized" });
    expect(await answer("/api/admin/users", { token: acc.token })).toEqual({ status: 403, code: "forbidden" });
    expect(await answer("/api/contacts/nope", { token: acc.token })).toEqual({ status: 404, code: "not_found" });
    expect(await answer("/api/nothing-here")).toEqual({ status: 404, code: "not_found" });
    expect(await answer("/pricing", { method: "POST", body: {} })).toEqual({ status: 405, code: "method_not_allowed" });
    const first = await t.api("/api/contacts", {
      method: "POST",
      token: acc.token,
      body: { firstName: "Ann", phone: "+14155550123" },
    });
    expect(first.status).toBe(201);
    expect(
      await answer("/api/contacts", { method: "POST", token: acc.token, body: { firstName: "Bo", phone: "+14155550123" } }),
    ).toEqual({
      status: 409,
      code: "conflict",
    });
  });

  test("sending to an audience with nobody in it answers 400 no_recipients", async () => {
    // A new account with a sender number and one contact, who opted out: the audience of subscribed contacts is empty.
    const owner = await t.signUpVerified();
    const post = (path: string, body: unknown) => t.api(path, { method: "POST", token: owner.token, body });
    const provider = await post("/api/sms-providers", { provider: "simulator", displayName: "Simulator" });
    const numbers = await t.api(`/api/providers/${provider.body.id}/available-numbers`, { token: owner.token });
    const number = await post("/api/phone-numbers", {
      providerId: provider.body.id,
      phoneNumber: numbers.body.numbers[0].phoneNumber,
    });
    expect([provider.status, number.status]).toEqual([201, 201]);
    const out = await post("/api/contacts", { firstName: "Out", phone: "+14155550151" });
    expect((await post(`/api/contacts/${out.body.id}/opt-out`, {})).status).toBe(200);
    const created = await post("/api/campaigns", {
      type: "sms",
      name: "Nobody",
      content: "Hello",
      recipients: [],
      audience: { kind: "all" },
    });
    expect(created.status).toBe(201);
    const res = await post(`/api/campaigns/${created.body.id}/send`, {});
    expect({ status: res.status, message: res.body.message, code: res.body.code }).toEqual({
      status: 400,
      message: "No recipients selected",
      code: "no_recipients",
    });
  });
});
