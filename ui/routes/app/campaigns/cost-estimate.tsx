import { useSegmentPrices } from "../../../api/results";
import { formatNumber } from "../../../lib/format";
import { dollars } from "../dashboard/figures";
import type { useSenders } from "./senders";

/**
 * What a send will cost before it goes: every recipient's segments (the delivery preview counts them with merge
 * fields filled) times the price per segment of the chosen number's provider account, the user's own or its
 * default (said so, with where to set it). With attachments (`mmsMessages`: one MMS per recipient) it is their
 * count times the account's price per MMS instead.
 */
export function CostEstimate({
  fromNumber,
  totalSegments,
  senders,
  locale,
  mmsMessages = null,
}: {
  fromNumber: string;
  totalSegments: number | null;
  senders: ReturnType<typeof useSenders>;
  locale: string;
  mmsMessages?: number | null;
}) {
  const prices = useSegmentPrices();
  const sender = senders.numbers.find((n) => n.phoneNumber === fromNumber);
  const price = prices.data?.data.find((p) => p.providerId === sender?.providerId);
  if (mmsMessages !== null) {
    if (!sender || !price) return <span className="text-slate-500">—</span>;
    if (price.mmsPriceMicros === null) return <span className="text-red-700">This number's provider sends no MMS</span>;
    return (
      <span data-testid="cost-estimate">
        <strong>{dollars(mmsMessages * price.mmsPriceMicros, locale)}</strong>{" "}
        <span className="font-normal text-slate-500">
          ({formatNumber(mmsMessages, locale)} MMS × {dollars(price.mmsPriceMicros, locale, true)}
          {price.customMmsPriceMicros === null ? ", the provider's usual price per MMS; set yours on Results & Stats" : ""})
        </span>
      </span>
    );
  }
  if (!sender || !price || totalSegments === null) return <span className="text-slate-500">—</span>;
  return (
    <span data-testid="cost-estimate">
      <strong>{dollars(totalSegments * price.priceMicros, locale)}</strong>{" "}
      <span className="font-normal text-slate-500">
        ({formatNumber(totalSegments, locale)} segment{totalSegments === 1 ? "" : "s"} × {dollars(price.priceMicros, locale, true)}
        {price.customPriceMicros === null ? ", the provider's usual price; set yours on Results & Stats" : ""})
      </span>
    </span>
  );
}
