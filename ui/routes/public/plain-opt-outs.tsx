import {
  OPT_OUT_ALONE,
  OPT_OUT_PHRASES,
  PLAIN_RULES,
  POSSIBLE_ALONE,
  POSSIBLE_PHRASES,
  STOP_NEAR_MISSES,
  WORD_GROUPS,
  type Phrase,
} from "../../../shared/keywords/plain-opt-out";
import { Card } from "../../components/ui";

/**
 * /help's section on opt-outs in plain words, rendered from the matcher's own lists (shared/keywords/plain-opt-out.ts):
 * the page cannot say other than what the inbound flow matches.
 */

const LISTS: { id: string; title: string; note: string; phrases: readonly Phrase[] }[] = [
  {
    id: "opt-out-phrases",
    title: "Opt out wherever they stand",
    note: "Anywhere in a clause, unless a negation comes just before.",
    phrases: OPT_OUT_PHRASES,
  },
  {
    id: "opt-out-alone",
    title: "Opt out as the whole text",
    note: "Polite words such as please, thanks, now or por favor set aside.",
    phrases: OPT_OUT_ALONE,
  },
  {
    id: "possible-phrases",
    title: "Possible opt-outs",
    note: "Anywhere in the text; the owner decides in Chat.",
    phrases: POSSIBLE_PHRASES,
  },
  {
    id: "possible-alone",
    title: "Possible opt-outs as the whole text",
    note: "Short answers that may mean stop.",
    phrases: POSSIBLE_ALONE,
  },
];

const LANGUAGE = { en: "English", es: "Spanish" } as const;

/** Everything the section says, for the help search. */
export const PLAIN_OPT_OUT_TEXT = [
  "Opt-outs in plain words",
  ...PLAIN_RULES,
  ...LISTS.flatMap((l) => [l.title, ...l.phrases.map((p) => p.text)]),
  ...Object.entries(WORD_GROUPS).flatMap(([name, words]) => [name, ...words]),
].join(" ");

const PHRASES = LISTS.reduce((n, l) => n + l.phrases.length, 0);

/** `open`: the lists shown at once (a search found them), else behind their summary. */
export function PlainOptOuts({ open }: { open: boolean }) {
  return (
    <section aria-labelledby="plain-opt-outs">
      <h2 id="plain-opt-outs" className="text-2xl font-bold tracking-tight text-slate-900">
        Opt-outs in plain words
      </h2>
      <ul className="mt-4 max-w-3xl list-disc space-y-2 pl-5 text-sm leading-relaxed text-slate-600">
        {PLAIN_RULES.map((r) => (
          <li key={r}>{r}</li>
        ))}
      </ul>
      <details className="group mt-6" open={open}>
        <summary className="cursor-pointer text-sm font-semibold text-brand-700 hover:underline">
          Every phrase ({PHRASES}) and word group ({Object.keys(WORD_GROUPS).length}) the matcher reads
        </summary>
        <div className="mt-6 grid gap-6 md:grid-cols-2">
          {LISTS.map((l) => (
            <Card key={l.id} className="p-6">
              <h3 id={l.id} className="font-semibold text-slate-900">
                {l.title}
              </h3>
              <p className="mt-1 text-sm text-slate-500">{l.note}</p>
              <table aria-labelledby={l.id} className="mt-3 w-full text-left text-sm">
                <thead>
                  <tr className="text-xs uppercase text-slate-500">
                    <th className="py-1 pr-3 font-medium">Phrase</th>
                    <th className="py-1 font-medium">Language</th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-slate-100">
                  {l.phrases.map((p) => (
                    <tr key={`${p.lang} ${p.text}`}>
                      <td className="py-1 pr-3 font-mono text-slate-800">{p.text}</td>
                      <td className="py-1 text-slate-600">{LANGUAGE[p.lang]}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Card>
          ))}
        </div>
        <Card className="mt-6 p-6">
          <h3 id="word-groups" className="font-semibold text-slate-900">
            Word groups
          </h3>
          <p className="mt-1 text-sm text-slate-500">
            A phrase's word in braces stands for any word of its group; one ending in “?” may be left out. A “stop” inside a
            longer sentence is no opt-out after {STOP_NEAR_MISSES.before.join(", ")} or before {STOP_NEAR_MISSES.after.join(", ")}
            .
          </p>
          <dl className="mt-3 grid gap-x-6 gap-y-2 text-sm md:grid-cols-2">
            {Object.entries(WORD_GROUPS).map(([name, words]) => (
              <div key={name}>
                <dt className="font-mono font-semibold text-slate-800">{`{${name}}`}</dt>
                <dd className="text-slate-600">{words.join(", ")}</dd>
              </div>
            ))}
          </dl>
        </Card>
      </details>
    </section>
  );
}
