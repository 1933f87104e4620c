import { useStateRules } from "../../api/state-rules";

/**
 * The state rule table in force (issue 34 item 2), as the server holds it: the built-in lines of
 * src/sending/state-rules.ts and an administrator's changes, read from GET /api/state-rules.
 */
export function StateRulesSection() {
  const rules = useStateRules();
  return (
    <section aria-labelledby="state-rules" data-testid="state-rules">
      <h2 id="state-rules" className="text-2xl font-bold tracking-tight text-slate-900">
        State rules for marketing texts
      </h2>
      <p className="mt-2 max-w-3xl text-slate-600">
        Federal law allows marketing texts from 8 AM to 9 PM in the recipient's time. The states below allow fewer hours or fewer
        texts, and smsdesk holds a campaign message that would break their rule until it may go; the recipient's list in the
        campaign's details says which rule held it. The state comes from the number's area code, or from the contact's own custom
        field “state” (such as FL or Florida) when you fill it in. Every marketing text counts toward a daily limit, whatever its
        subject. Your own quiet hours still apply: the stricter wins.
      </p>
      {rules.error && <p className="mt-4 text-sm text-red-600">Could not load the state rules: {rules.error.message}</p>}
      {rules.data && (
        <div className="mt-6 overflow-x-auto rounded-2xl border border-slate-200 bg-white">
          <table className="w-full text-left text-sm">
            <thead className="bg-slate-50 text-slate-600">
              <tr>
                <th scope="col" className="px-4 py-3 font-semibold">
                  State
                </th>
                <th scope="col" className="px-4 py-3 font-semibold">
                  Texts allowed
                </th>
                <th scope="col" className="px-4 py-3 font-semibold">
                  At most per 24 hours
                </th>
                <th scope="col" className="px-4 py-3 font-semibold">
                  Legal source
                </th>
                <th scope="col" className="px-4 py-3 font-semibold">
                  Checked
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100 text-slate-700">
              {rules.data.rules.map((r) => (
                <tr key={r.state}>
                  <td className="px-4 py-3 font-medium text-slate-900">{r.name}</td>
                  <td className="px-4 py-3">{r.hours ?? "No hours rule"}</td>
                  <td className="px-4 py-3">{r.capPer24h ?? "No limit"}</td>
                  <td className="px-4 py-3">{r.source}</td>
                  <td className="px-4 py-3 whitespace-nowrap">
                    {r.checked}
                    {r.origin !== "built-in" && <span className="ml-1 text-xs text-slate-500">(set by the administrator)</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
