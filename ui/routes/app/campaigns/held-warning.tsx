import { formatNumber } from "../../../lib/format";
import type { Campaign } from "./model";

/**
 * The compliance warning before a campaign's held messages go out at once: quiet hours keep marketing texts out of
 * the recipients' night, and the rules that ask for it are the sender's to keep.
 */
export function HeldWarning({ campaign: c, locale }: { campaign: Campaign; locale: string }) {
  const count = c.quietWait?.count ?? 0;
  return (
    <div className="space-y-3" data-testid="held-warning">
      <p>
        {formatNumber(count, locale)} message{count === 1 ? "" : "s"} of “{c.name}” {count === 1 ? "waits" : "wait"} for quiet
        hours to end at {c.quietWait?.resumesAt} on {count === 1 ? "its recipient's" : "their recipients'"} clock. Sent now, they
        arrive in the recipients' night.
      </p>
      <p role="alert" className="rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-amber-900">
        In the United States the TCPA allows marketing texts only between 8 AM and 9 PM in the recipient's time zone, and some
        states allow fewer hours. Send now only if these recipients expect the message at this hour: you are responsible for it.
      </p>
      <p>From now on quiet hours will not hold this campaign's messages.</p>
      {(c.quietWait?.byLaw ?? 0) > 0 && (
        <p>
          {formatNumber(c.quietWait!.byLaw, locale)} held by a state's law will still wait for it: only an administrator changes the state
          rules.
        </p>
      )}
    </div>
  );
}
