import { useEffect, useState } from "react";
import { Badge, type BadgeTone } from "../../../components/badge";
import { Alert, Button, Card, Spinner } from "../../../components/ui";
import { refreshRegistration, useRegistration, type NumberRegistration, type RegistrationOverview } from "../../../api/phone-numbers";
import { useRegistrationChecklist } from "../../../api/campaigns";
import { accountTime } from "../../../lib/format";
import { useMutation } from "../../../lib/use-mutation";
import { formatSender, providerName } from "./model";

/**
 * US carrier registration per account and per number (issue 34): each number's A2P 10DLC campaign or toll-free
 * verification as its provider last reported it, what that does to sending, and what to do. "Check now" reads them
 * from the providers; the server also reads them twice a day.
 */

const TONE: Record<NonNullable<NumberRegistration["state"]>, BadgeTone> = {
  registered: "green",
  pending: "amber",
  rejected: "red",
  unregistered: "red",
  not_applicable: "slate",
  unknown: "slate",
};

const PROGRAM: Record<NumberRegistration["program"], string> = { "10dlc": "A2P 10DLC", toll_free: "Toll-free verification", none: "" };

function NumberLine({ n }: { n: NumberRegistration }) {
  return (
    <li className="space-y-1 px-4 py-3 text-sm" data-testid="registration-row" data-state={n.state ?? "unchecked"}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium">{formatSender(n.phoneNumber)}</span>
        <Badge tone={n.state ? TONE[n.state] : "slate"}>{n.label}</Badge>
        {PROGRAM[n.program] && <span className="text-xs text-slate-500">{PROGRAM[n.program]}</span>}
      </div>
      {n.reason && (
        <p className={n.state === "rejected" ? "text-red-800" : "text-slate-700"}>
          {n.state === "rejected" ? "Reason: " : ""}
          {n.reason}
        </p>
      )}
      <p className="text-slate-600">{n.sending}</p>
      {n.todo && n.state && <p className="text-slate-600">What to do: {n.todo}</p>}
      {n.detail && <p className="break-all text-xs text-slate-500">{n.detail}</p>}
      {n.checkError && <p className="text-xs text-amber-800">Last check failed: {n.checkError}</p>}
      {n.checkedAt && <p className="text-xs text-slate-500">Checked {accountTime(n.checkedAt)}</p>}
    </li>
  );
}

const CHECK_TONE = { pass: "green", fail: "red", manual: "amber" } as const;
const CHECK_LABEL = { pass: "Ready", fail: "Fix", manual: "Check yourself" } as const;

/** Before a registration is submitted (and paid for again on each resubmission): what reviewers reject, checked. */
function Checklist() {
  const query = useRegistrationChecklist();
  const items = query.data?.items ?? [];
  if (!items.length) return null;
  return (
    <details className="border-t border-slate-200 px-4 py-3 text-sm">
      <summary className="cursor-pointer font-medium">Before you submit a registration: what reviewers reject</summary>
      <ul className="mt-2 space-y-2" aria-label="Registration checklist">
        {items.map((i) => (
          <li key={i.id} data-testid="checklist-item" data-status={i.status}>
            <div className="flex items-center gap-2">
              <Badge tone={CHECK_TONE[i.status]}>{CHECK_LABEL[i.status]}</Badge>
              <span className="font-medium">{i.label}</span>
            </div>
            <p className="mt-0.5 text-slate-600">{i.detail}</p>
          </li>
        ))}
      </ul>
    </details>
  );
}

export function RegistrationCard({ reloadKey }: { reloadKey: number }) {
  const query = useRegistration();
  const [data, setData] = useState<RegistrationOverview | null>(null);
  useEffect(() => setData(query.data), [query.data]);
  // The numbers changed (added, deleted): read the cached states again.
  useEffect(() => {
    if (reloadKey) void query.reload();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [reloadKey]);
  const check = useMutation(() => refreshRegistration(), {
    onSuccess: (fresh) => setData(fresh),
    fallback: "Could not check the registrations",
    failureToast: "Error",
  });
  const accounts = data?.accounts ?? [];
  if (!accounts.length) return null;
  return (
    <Card>
      <div className="flex flex-wrap items-start justify-between gap-3 border-b border-slate-200 px-4 py-3">
        <div>
          <h2 className="font-semibold">US carrier registration</h2>
          <p className="max-w-2xl text-sm text-slate-600">
            US carriers block texts from local numbers that are not in a registered A2P 10DLC campaign, and from toll-free
            numbers that are not verified. Read from your providers twice a day.
          </p>
        </div>
        <Button variant="secondary" onClick={() => check.run()} disabled={check.busy}>
          {check.busy && <Spinner />}
          Check now
        </Button>
      </div>
      {query.error && <Alert>Could not load the registrations: {query.error.message}</Alert>}
      {accounts.map((a) => (
        <section key={a.providerId} aria-label={`Registration of ${a.providerName}`} className="border-b border-slate-100 last:border-b-0">
          <div className="flex flex-wrap items-baseline justify-between gap-2 bg-slate-50 px-4 py-2 text-sm">
            <span className="font-medium">
              {a.providerName} <span className="font-normal text-slate-500">({providerName(a.provider)})</span>
            </span>
            <span className="text-slate-600" data-testid="registration-summary">
              {a.summary}
            </span>
          </div>
          <ul className="divide-y divide-slate-100">
            {a.numbers.map((n) => (
              <NumberLine key={n.phoneNumberId} n={n} />
            ))}
          </ul>
        </section>
      ))}
      <Checklist />
    </Card>
  );
}
