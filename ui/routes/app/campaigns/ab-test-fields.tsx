import { findLinks } from "../../../../shared/links/text";
import { Button, Field, Input, Select } from "../../../components/ui";
import { SegmentCounter } from "./segment-counter";

/** The wizard's A/B test (issue 32 item 3): variant A is the message written above; these are B to D. */
export type AbDraft = {
  enabled: boolean;
  variants: string[];
  testPercent: number;
  measure: "clicks" | "replies";
  decide: "hours" | "hand";
  hours: number;
};

export const NO_AB_TEST: AbDraft = { enabled: false, variants: [""], testPercent: 20, measure: "clicks", decide: "hours", hours: 4 };
const MAX_VARIANTS = 4;
const LETTERS = "ABCD";

/** What the A/B test still needs before Continue; null when it is complete (the server checks the same and more). */
export function abMissing(ab: AbDraft, message: string, shortenLinks: boolean): string | null {
  if (!ab.enabled) return null;
  const texts = [message, ...ab.variants];
  const empty = texts.findIndex((t) => !t.trim());
  if (empty >= 0) return `Write variant ${LETTERS[empty]}.`;
  if (!Number.isInteger(ab.testPercent) || ab.testPercent < 2 || ab.testPercent > 50) return "The test share is 2% to 50%.";
  if (ab.measure === "clicks" && !shortenLinks) return "The click rate is counted on short links: shorten links, or pick the winner by replies.";
  if (ab.measure === "clicks" && texts.some((t) => !findLinks(t).length)) return "Every variant needs a link for the click rate (or pick the winner by replies).";
  if (ab.decide === "hours" && (!Number.isInteger(ab.hours) || ab.hours < 1 || ab.hours > 168)) return "Decide after 1 to 168 hours.";
  return null;
}

/** The campaign's abTest as the server takes it, or null without a test. */
export function abTestBody(ab: AbDraft, message: string) {
  if (!ab.enabled) return null;
  return { variants: [message, ...ab.variants], testPercent: ab.testPercent, measure: ab.measure, decideAfterHours: ab.decide === "hours" ? ab.hours : null };
}

/** What the review says of the test. */
export function abSummary(ab: AbDraft) {
  const k = ab.variants.length + 1;
  return `${k} variants to ${ab.testPercent}% of the audience, split evenly; the rest get the one with the higher ${
    ab.measure === "clicks" ? "human click rate" : "reply rate"
  }, ${ab.decide === "hours" ? `picked ${ab.hours} hour${ab.hours === 1 ? "" : "s"} after the start` : "picked by you"}`;
}

export function AbTestFields({
  ab,
  appendOptOut,
  linkDomain,
  onChange,
}: {
  ab: AbDraft;
  appendOptOut: boolean;
  linkDomain: string | null;
  onChange: (ab: AbDraft) => void;
}) {
  const set = (patch: Partial<AbDraft>) => onChange({ ...ab, ...patch });
  const setVariant = (i: number, text: string) => set({ variants: ab.variants.map((v, j) => (j === i ? text : v)) });
  return (
    <section className="space-y-3 rounded-lg border border-slate-200 p-3" aria-label="A/B test">
      <label className="flex items-center gap-2 text-sm font-medium text-slate-700">
        <input type="checkbox" checked={ab.enabled} onChange={(e) => set({ enabled: e.target.checked })} />
        A/B test: try 2 to 4 versions of the text on part of the audience, then send the best to the rest
      </label>
      {ab.enabled && (
        <>
          <p className="text-xs text-slate-500">The message above is variant A.</p>
          {ab.variants.map((v, i) => (
            <Field key={i} label={`Variant ${LETTERS[i + 1]}`} htmlFor={`ab-variant-${i + 1}`}>
              <textarea
                id={`ab-variant-${i + 1}`}
                rows={3}
                value={v}
                onChange={(e) => setVariant(i, e.target.value)}
                className="w-full rounded-lg border border-slate-300 px-3 py-2 text-sm shadow-sm focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30"
              />
              <div className="flex items-start justify-between gap-2">
                <SegmentCounter content={v} appendOptOut={appendOptOut} linkDomain={linkDomain} />
                {ab.variants.length > 1 && (
                  <Button variant="secondary" className="!px-2 !py-1 text-xs" onClick={() => set({ variants: ab.variants.filter((_, j) => j !== i) })}>
                    Remove variant {LETTERS[i + 1]}
                  </Button>
                )}
              </div>
            </Field>
          ))}
          {ab.variants.length + 1 < MAX_VARIANTS && (
            <Button variant="secondary" className="!px-2 !py-1 text-xs" onClick={() => set({ variants: [...ab.variants, ""] })}>
              Add variant {LETTERS[ab.variants.length + 1]}
            </Button>
          )}
          <div className="grid gap-3 sm:grid-cols-3">
            <Field label="Test share (%)" htmlFor="ab-share" hint={`Each variant goes to about ${Math.round((ab.testPercent / (ab.variants.length + 1)) * 10) / 10}%`}>
              <Input id="ab-share" type="number" min={2} max={50} value={ab.testPercent} onChange={(e) => set({ testPercent: Number(e.target.value) })} />
            </Field>
            <Field label="Winner by" htmlFor="ab-measure">
              <Select id="ab-measure" value={ab.measure} onChange={(e) => set({ measure: e.target.value as AbDraft["measure"] })}>
                <option value="clicks">Human click rate</option>
                <option value="replies">Reply rate</option>
              </Select>
            </Field>
            <Field label="Pick the winner" htmlFor="ab-decide">
              <Select id="ab-decide" value={ab.decide} onChange={(e) => set({ decide: e.target.value as AbDraft["decide"] })}>
                <option value="hours">After some hours</option>
                <option value="hand">By hand</option>
              </Select>
            </Field>
          </div>
          {ab.decide === "hours" && (
            <Field label="Hours after the start" htmlFor="ab-hours" hint="The higher rate then goes to the rest, within quiet hours, even without a clear winner.">
              <Input id="ab-hours" type="number" min={1} max={168} value={ab.hours} onChange={(e) => set({ hours: Number(e.target.value) })} />
            </Field>
          )}
        </>
      )}
    </section>
  );
}
