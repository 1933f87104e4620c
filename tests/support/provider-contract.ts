/**
 * What every provider adapter promises, whatever its API: one send is one request answered with the provider's id;
 * numbers are listed across every page; the connection test names the account's state; a 429 is rate_limited with
 * the Retry-After and never retried by the adapter; a 5xx, an unreachable or a slow API is transient; an invalid
 * number is permanent with the provider's code and message; wrong credentials are an auth error on every call; a
 * webhook the adapter cannot trust or read is rejected.
 *
 * A provider test file starts its fake and adapter in its own beforeAll, calls `providerContract` with a descriptor
 * of its provider, and keeps the tests only its provider has. The contract registers its tests in the describe
 * blocks the files used before ("send", "numbers and connection", "errors", "webhooks").
 */
import { describe, expect, test } from "bun:test";
import {
  ProviderError,
  WebhookRejected,
  type AdapterOptions,
  type AvailableNumber,
  type OutboundMessage,
  type ProviderAdapter,
  type ProviderKind,
  type SendResult,
  type WebhookRequest,
} from "../../src/providers/types";

type Call = "send" | "listNumbers" | "testConnection";

/** What every fake in tests/support/fakes records and offers. */
export type ContractFake<R extends { method: string; path: string } = { method: string; path: string }> = {
  url: string;
  requests: R[];
  stop(): void;
};

type RequestOf<F> = F extends ContractFake<infer R> ? R : never;

export type ProviderDescriptor<F extends ContractFake<any>> = {
  /** The adapter's kind, and how its webhooks are authenticated. */
  kind: ProviderKind;
  webhookAuth: "signature" | "url-secret";
  /** The fake and adapter the file started in its beforeAll (read when a test runs). */
  current(): { fake: F; adapter: ProviderAdapter };
  /** Another fake: without numbers, or answering after `delayMs`. */
  start(options?: { delayMs?: number }): Promise<F>;
  /** An adapter for `fake` with its right credentials. */
  connect(fake: F, options?: Omit<AdapterOptions, "baseUrl"> & { baseUrl?: string }): ProviderAdapter;
  /** Adapters for `fake` whose credentials the provider refuses. */
  connectWrong(fake: F): ProviderAdapter[];
  /** A message to `to` from the account's sender; `recipient(i)` is a valid number no provider-specific test uses. */
  message(to: string, body?: string): OutboundMessage;
  recipient(i: number): string;
  /** Make the fake answer the next `count` requests (sends, for fakes that fail only those) with this status. */
  failNext(fake: F, count: number, failure: { status: 429 | 500; retryAfter?: number }): void;

  send: {
    /** The request one send makes (toMatchObject), its body as the fake read it (toEqual), and the answer. */
    request(fake: F, to: string): Record<string, unknown>;
    contentType: string;
    payload(request: RequestOf<F>): unknown;
    expectedPayload(to: string): unknown;
    result(fake: F): SendResult;
    /** The path a send posts to. */
    path(fake: F): string;
    /** Whether the provider says how many segments it counted (a 200-character body is 2). */
    countsSegments: boolean;
  };
  connection: {
    prepare?(fake: F): void;
    message: string;
    request(fake: F): Record<string, unknown>;
  };
  /** Absent for a provider without a number API. */
  listing?: {
    numbers: AvailableNumber[];
    /** Each page request as [method, path, page, page size]; `authorized` checks its credentials. */
    page(request: RequestOf<F>): unknown[];
    pages(fake: F): unknown[][];
    authorized(request: RequestOf<F>, fake: F): boolean;
  };
  errors: {
    rateLimited: { code: string; retryAfter: number; message?: string };
    /** The calls a 500 reaches (a fake that fails only sends: ["send"]). */
    serverErrorCalls: Call[];
    serverErrorCode: string;
    invalidNumber: { to: string; code: string; httpStatus: number; message: string };
    /** The calls wrong credentials reach, what they answer, and what the last one sent. */
    authCalls: Call[];
    auth: { code: string; httpStatus: number; message?: string };
    afterWrongCredentials?(fake: F): void;
    timeoutMessage: string;
  };
  webhooks: {
    /** Requests the adapter must reject: forged, altered, unsigned, unreadable. */
    rejected(fake: F): [name: string, request: WebhookRequest][];
  };
};

export async function providerError(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

/** Runs `attempt` and answers what it threw (null when it did not), sync throws included. */
export async function rejection(attempt: () => unknown): Promise<unknown> {
  try {
    await attempt();
    return null;
  } catch (err) {
    return err;
  }
}

const call = (adapter: ProviderAdapter, name: Call, message: OutboundMessage): Promise<unknown> =>
  name === "send" ? adapter.send(message) : adapter[name]();

export function providerContract<F extends ContractFake<any>>(p: ProviderDescriptor<F>): void {
  const fake = () => p.current().fake;
  const adapter = () => p.current().adapter;

  describe("send", () => {
    test("one send is one request to the send endpoint, answered with the provider's message id", async () => {
      const to = p.recipient(1);
      const before = fake().requests.length;
      const result = await adapter().send(p.message(to));

      const sent = fake().requests.slice(before) as RequestOf<F>[];
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({ ...p.send.request(fake(), to), path: p.send.path(fake()) });
      expect((sent[0] as { contentType: string }).contentType).toStartWith(p.send.contentType);
      expect(p.send.payload(sent[0]!)).toEqual(p.send.expectedPayload(to));
      expect(result).toEqual(p.send.result(fake()));
    });

    if (p.send.countsSegments) {
      test("reports the segments the provider counted", async () => {
        expect((await adapter().send(p.message(p.recipient(2), "x".repeat(200)))).segments).toBe(2);
      });
    }

    test("a base URL with a trailing slash still reaches the API", async () => {
      const slashed = p.connect(fake(), { baseUrl: `${fake().url}/` });
      await slashed.send(p.message(p.recipient(3)));
      expect(fake().requests.at(-1)!.path).toBe(p.send.path(fake()));
    });
  });

  describe("numbers and connection", () => {
    const listing = p.listing;
    if (listing) {
      test("lists every number across every page", async () => {
        const before = fake().requests.length;
        expect(await adapter().listNumbers()).toEqual(listing.numbers);
        const pages = fake().requests.slice(before) as RequestOf<F>[];
        expect(pages.map(listing.page)).toEqual(listing.pages(fake()));
        expect(pages.every((r) => listing.authorized(r, fake()))).toBe(true);
      });
    }

    test("an account without numbers lists none", async () => {
      const empty = await p.start();
      try {
        expect(await p.connect(empty).listNumbers()).toEqual([]);
      } finally {
        empty.stop();
      }
    });

    test("test connection describes the account", async () => {
      p.connection.prepare?.(fake());
      expect(await adapter().testConnection()).toBe(p.connection.message);
      expect(fake().requests.at(-1)).toMatchObject(p.connection.request(fake()));
    });
  });

  describe("errors", () => {
    const e = p.errors;

    test("429 is rate_limited with the Retry-After, and the adapter does not retry by itself", async () => {
      p.failNext(fake(), 1, { status: 429, retryAfter: e.rateLimited.retryAfter });
      const before = fake().requests.length;
      const err = await providerError(adapter().send(p.message(p.recipient(4))));

      expect(err).toMatchObject({
        kind: "rate_limited",
        code: e.rateLimited.code,
        httpStatus: 429,
        retryAfterMs: e.rateLimited.retryAfter * 1000,
      });
      if (e.rateLimited.message !== undefined) expect(err.message).toBe(e.rateLimited.message);
      expect(err.retryable).toBe(true);
      expect(fake().requests.length - before).toBe(1);
    });

    test("429 without Retry-After leaves the delay to the engine", async () => {
      p.failNext(fake(), 1, { status: 429 });
      expect(await providerError(adapter().send(p.message(p.recipient(5))))).toMatchObject({
        kind: "rate_limited",
        retryAfterMs: null,
      });
    });

    test(`500 is transient, on ${e.serverErrorCalls.join(", ")}`, async () => {
      p.failNext(fake(), e.serverErrorCalls.length, { status: 500 });
      for (const name of e.serverErrorCalls) {
        expect(await providerError(call(adapter(), name, p.message(p.recipient(6))))).toMatchObject({
          kind: "transient",
          code: e.serverErrorCode,
          httpStatus: 500,
        });
      }
    });

    test("an invalid number is permanent and keeps the provider's code and message", async () => {
      const err = await providerError(adapter().send(p.message(e.invalidNumber.to)));
      expect(err).toMatchObject({ kind: "permanent", code: e.invalidNumber.code, httpStatus: e.invalidNumber.httpStatus });
      expect(err.message).toBe(e.invalidNumber.message);
      expect(err.retryable).toBe(false);
    });

    test(`wrong credentials are an auth error on ${e.authCalls.join(", ")}`, async () => {
      for (const wrong of p.connectWrong(fake())) {
        for (const name of e.authCalls) {
          const err = await providerError(call(wrong, name, p.message(p.recipient(7))));
          expect(err).toMatchObject({ kind: "auth", code: e.auth.code, httpStatus: e.auth.httpStatus });
          if (e.auth.message !== undefined) expect(err.message).toBe(e.auth.message);
        }
      }
      e.afterWrongCredentials?.(fake());
    });

    test("an unreachable API is transient", async () => {
      const gone = await p.start();
      gone.stop();
      expect(await providerError(p.connect(gone).send(p.message(p.recipient(8))))).toMatchObject({
        kind: "transient",
        code: "network",
      });
    });

    test("an API slower than the timeout is transient, and the call ends at the timeout", async () => {
      const slow = await p.start({ delayMs: 1500 });
      try {
        const started = Date.now();
        const err = await providerError(p.connect(slow, { timeoutMs: 200 }).send(p.message(p.recipient(9))));
        expect(err).toMatchObject({ kind: "transient", code: "timeout", message: e.timeoutMessage });
        expect(Date.now() - started).toBeLessThan(1400);
      } finally {
        slow.stop();
      }
    });
  });

  describe("webhooks", () => {
    test(`webhooks are authenticated by ${p.webhookAuth === "signature" ? "the provider's signature" : "the URL secret"}`, () => {
      expect(adapter().webhookAuth).toBe(p.webhookAuth);
      expect(adapter().kind).toBe(p.kind);
    });

    test("a webhook the adapter cannot trust or read is rejected", async () => {
      for (const [name, request] of p.webhooks.rejected(fake())) {
        const err = await rejection(() => adapter().parseWebhook(request));
        expect({ name, rejected: err instanceof WebhookRejected }).toEqual({ name, rejected: true });
      }
    });
  });
}
