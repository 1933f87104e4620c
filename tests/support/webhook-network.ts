// The test seam of the webhook guard (AppContext.webhookTestNetwork): a test's receiver listens on 127.0.0.1, which
// the appliance never calls; here its address is judged as a public host's (most tests) or as a host on a LAN the
// administrator may allow-list. Only entry points under tests/support set it; the product has no way to.
import type { AppContext } from "../../src/context";

/** A public address (example.com's) and a private one the receiver stands in for. */
export const PUBLIC_STAND_IN = "93.184.216.34";
export const LAN_STAND_IN = "10.20.30.40";

export function receiversStandFor(ctx: AppContext, kind: "public" | "lan" | "themselves") {
  const as = kind === "public" ? PUBLIC_STAND_IN : LAN_STAND_IN;
  ctx.webhookTestNetwork = kind === "themselves" ? undefined : { judgeAs: { "127.0.0.1": as, "::1": as } };
}
