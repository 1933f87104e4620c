import {
  CARRIER_SAFE_BYTES,
  formatBytes,
  MAX_INBOUND_ITEMS,
  MAX_INBOUND_MEDIA_BYTES,
  MAX_MEDIA_PER_MESSAGE,
  NOT_AN_MMS_FILE,
  tooLargeMessage,
} from "../../../shared/media/limits";
import { MMS_TYPES } from "../../../shared/media/sniff";
import { cannotSendMms, DEFAULT_MMS_PRICE_MICROS, PROVIDER_NAMES, SENDS_MMS } from "../../../shared/providers/mms";
import type { ProviderKind } from "../../../shared/providers/kinds";

/**
 * /help's section on pictures and files (issue 33), rendered from the constants the server enforces: the types
 * sniffed (shared/media/sniff.ts), the sizes and refusals (shared/media/limits.ts), the providers that send MMS and their
 * default prices (shared/providers/mms.ts). The page cannot say other than what ships.
 */

const KINDS = Object.keys(SENDS_MMS) as ProviderKind[];
const names = (list: string[]) => (list.length > 1 ? `${list.slice(0, -1).join(", ")} and ${list.at(-1)}` : (list[0] ?? ""));
const TYPES = Object.values(MMS_TYPES);
const PICTURES = TYPES.filter((t) => t.image).map((t) => t.name);
const FILES = TYPES.filter((t) => !t.image).map((t) => t.name);
/** A GIF of 1.2 MB, to show the refusal as it reads (the size is the file's own). */
const EXAMPLE_GIF_BYTES = Math.round(1.2 * 1024 * 1024);

const price = (micros: number) => (micros === 0 ? "Free: nothing is really sent" : `$${(micros / 1_000_000).toFixed(3)} per MMS`);

export function MmsSection() {
  const sending = KINDS.filter((k) => SENDS_MMS[k]);
  const refusing = KINDS.filter((k) => !SENDS_MMS[k]);
  return (
    <section aria-labelledby="mms" data-testid="mms">
      <h2 id="mms" className="text-2xl font-bold tracking-tight text-slate-900">
        Pictures and files (MMS)
      </h2>
      <div className="mt-4 max-w-3xl space-y-3 text-slate-600">
        <p data-testid="mms-types">
          Attach {names(PICTURES)} pictures and {names(FILES)} files, up to {MAX_MEDIA_PER_MESSAGE} per message, to a reply in Chat, a
          campaign (in the wizard or the full form), a template, a drip step, or a message sent with the API (upload each with POST
          /api/v1/media, then pass their ids as mediaIds of POST /api/v1/messages).
        </p>
        <p data-testid="mms-where">
          A campaign sends its one copy to every recipient. A template keeps its pictures and files: using it, in Chat's template picker
          or a campaign, attaches copies of them to the message you are writing. A drip step's go with every contact's message at that
          step; drips send from your default number, so it must be one whose provider sends MMS.
        </p>
        <p data-testid="mms-size">
          Every item is kept within {formatBytes(CARRIER_SAFE_BYTES)}, what carriers deliver reliably. A larger JPEG or PNG is
          made smaller when you attach it (scaled down and saved as a JPEG); a GIF (it may be animated), a PDF or a vCard over{" "}
          {formatBytes(CARRIER_SAFE_BYTES)} is refused.
        </p>
      </div>
      <h3 className="mt-6 text-lg font-semibold text-slate-900">What is refused</h3>
      <p className="mt-1 max-w-3xl text-sm text-slate-600">
        The type is read from the file's bytes, never from its name: an SVG or an HTML page named photo.jpg is refused all the same.
      </p>
      <dl className="mt-3 max-w-3xl space-y-3 text-sm" data-testid="mms-refusals">
        <div>
          <dt className="font-semibold text-slate-900">An SVG, an HTML page or any other file</dt>
          <dd className="mt-1 text-slate-600">{NOT_AN_MMS_FILE}</dd>
        </div>
        <div>
          <dt className="font-semibold text-slate-900">A GIF over {formatBytes(CARRIER_SAFE_BYTES)} (here of {formatBytes(EXAMPLE_GIF_BYTES)})</dt>
          <dd className="mt-1 text-slate-600">{tooLargeMessage(EXAMPLE_GIF_BYTES, "GIF")}</dd>
        </div>
        {refusing.slice(0, 1).map((k) => (
          <div key={k}>
            <dt className="font-semibold text-slate-900">Attachments sent from a {PROVIDER_NAMES[k]} number</dt>
            <dd className="mt-1 text-slate-600">{cannotSendMms(k)}</dd>
          </div>
        ))}
      </dl>
      <h3 className="mt-6 text-lg font-semibold text-slate-900">Providers</h3>
      <p className="mt-1 max-w-3xl text-sm text-slate-600">
        {names(sending.map((k) => PROVIDER_NAMES[k]))} send MMS. {names(refusing.map((k) => PROVIDER_NAMES[k]))} send text only:
        a message or campaign with attachments from one of their numbers is refused before it is queued, a drip with attachments
        cannot be saved while your default number is theirs, and a drip step due after it became so is skipped with that reason.
      </p>
      <p className="mt-2 max-w-3xl text-sm text-slate-600" data-testid="mms-price">
        An MMS is one message in your plan's usage, however long its text, and costs its provider account's price per MMS. Until you
        set that price under Results &amp; Stats (Price per MMS), the provider's list price for a US MMS below (late 2025, carrier
        fees left out) stands in, labelled as the default. Each MMS keeps the price it was sent at, and Results &amp; Stats counts
        what was sent, delivered and spent in MMS apart from SMS.
      </p>
      <div className="mt-4 max-w-xl overflow-x-auto rounded-2xl border border-slate-200 bg-white">
        <table className="w-full text-left text-sm" data-testid="mms-providers">
          <thead className="bg-slate-50 text-slate-600">
            <tr>
              <th scope="col" className="px-4 py-3 font-semibold">
                Provider
              </th>
              <th scope="col" className="px-4 py-3 font-semibold">
                Sends MMS
              </th>
              <th scope="col" className="px-4 py-3 font-semibold">
                Default price
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 text-slate-700">
            {KINDS.map((k) => {
              const micros = DEFAULT_MMS_PRICE_MICROS[k];
              return (
                <tr key={k}>
                  <td className="px-4 py-3 font-medium text-slate-900">{PROVIDER_NAMES[k]}</td>
                  <td className="px-4 py-3">{SENDS_MMS[k] ? "Yes" : "No"}</td>
                  <td className="px-4 py-3">{micros === null ? "—" : `${price(micros)} (default)`}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <h3 className="mt-6 text-lg font-semibold text-slate-900">Pictures and files you receive</h3>
      <p className="mt-1 max-w-3xl text-sm text-slate-600" data-testid="mms-received">
        Every item of a received MMS (up to {MAX_INBOUND_ITEMS}, each up to {formatBytes(MAX_INBOUND_MEDIA_BYTES)}) is copied at once
        from the provider into your own storage, its type read from its bytes. {names(PICTURES)} pictures show in Chat as thumbnails
        that open full size; {names(FILES)} files, and any other file, are served as downloads only, never opened as a page. A copy that
        fails is tried again, and the conversation says so meanwhile.
      </p>
    </section>
  );
}
