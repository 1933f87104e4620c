import { useState } from "react";
import {
  generateLicenseCodes,
  revokeLicenseCode,
  useLicenseCodes,
  type GeneratedCodes,
  type LicenseCode,
} from "../../../api/admin";
import { usePlans } from "../../../api/licenses";
import { Badge, type BadgeTone } from "../../../components/badge";
import { useConfirm } from "../../../components/confirm-dialog";
import { Pagination } from "../../../components/pagination";
import { Table } from "../../../components/table";
import { Alert, Button, Card, Field, Input, Select } from "../../../components/ui";
import { toast } from "../../../lib/toast";
import { submitWith, useMutation } from "../../../lib/use-mutation";
import { copyText, failed, PAGE_SIZE, when } from "./shared";

const STATUS_TONES: Record<LicenseCode["status"], BadgeTone> = { active: "green", redeemed: "blue", revoked: "slate" };

/** License codes: generate a batch for a plan and a duration, list them by status (in full, to hand out), revoke. */
export function LicenseCodesTab() {
  const plans = usePlans();
  const [planId, setPlanId] = useState("starter");
  const [durationDays, setDurationDays] = useState("365");
  const [count, setCount] = useState("1");
  const [generated, setGenerated] = useState<GeneratedCodes | null>(null);
  const [status, setStatus] = useState("");
  const [page, setPage] = useState(1);
  const list = useLicenseCodes({ status, page, pageSize: PAGE_SIZE });
  const { ask, dialog } = useConfirm();

  const generateCodes = useMutation((days: number, n: number) => generateLicenseCodes({ planId, durationDays: days, count: n }), {
    onSuccess: (answer) => {
      setGenerated(answer.data);
      void list.reload();
    },
    success: (answer) => ({
      title: "Codes generated",
      description: `${answer.data.codes.length} ${answer.data.planName} code(s) generated. They are listed below until redeemed or revoked.`,
    }),
    fallback: "Failed to generate codes",
    failureToast: "Error",
  });
  const generate = () => {
    const n = Number(count);
    const days = Number(durationDays);
    if (!Number.isInteger(n) || n < 1 || n > 500) return failed(new Error("Choose between 1 and 500 codes"), "");
    if (!Number.isInteger(days) || days < 1) return failed(new Error("The duration must be a whole number of days"), "");
    return generateCodes.run(days, n);
  };

  const download = (codes: GeneratedCodes) => {
    const blob = new Blob([codes.codes.join("\n") + "\n"], { type: "text/plain" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = `license-codes-${codes.planName.toLowerCase()}-${codes.durationDays}d.txt`;
    a.click();
    URL.revokeObjectURL(a.href);
  };
  const revoke = async (c: LicenseCode) => {
    if (
      !(await ask({ title: "Revoke code", message: `Revoke ${c.code}? It can no longer be redeemed.`, confirmLabel: "Revoke" }))
    )
      return;
    try {
      await revokeLicenseCode(c.code);
      toast({ title: "Code revoked", description: c.code });
      void list.reload();
    } catch (err) {
      failed(err, "Failed to revoke the code");
    }
  };

  return (
    <div className="space-y-6">
      <form className="grid items-end gap-3 md:grid-cols-4" onSubmit={submitWith(generate)}>
        <Field label="Plan" htmlFor="gen-plan">
          <Select id="gen-plan" value={planId} onChange={(e) => setPlanId(e.target.value)}>
            {(plans.data?.data ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="Duration (days)" htmlFor="gen-days">
          <Input
            id="gen-days"
            type="number"
            min={1}
            max={3650}
            value={durationDays}
            onChange={(e) => setDurationDays(e.target.value)}
          />
        </Field>
        <Field label="Number of codes" htmlFor="gen-count">
          <Input id="gen-count" type="number" min={1} max={500} value={count} onChange={(e) => setCount(e.target.value)} />
        </Field>
        <Button type="submit" disabled={generateCodes.busy}>
          {generateCodes.busy ? "Generating..." : "Generate Codes"}
        </Button>
      </form>

      {generated && (
        <Card className="space-y-3 border-amber-300 bg-amber-50 p-4">
          <p className="text-sm font-medium">
            {generated.codes.length} {generated.planName} code(s) for {generated.durationDays} days. Copy or download this batch to hand
            out; each code also stays in the list below, with its status, until it is redeemed or revoked.
          </p>
          <pre data-testid="generated-codes" className="max-h-60 overflow-auto rounded bg-white p-3 font-mono text-sm">
            {generated.codes.join("\n")}
          </pre>
          <div className="flex gap-2">
            <Button
              variant="secondary"
              onClick={() =>
                void copyText(generated.codes.join("\n"), "The codes are on your clipboard.", "Please copy the codes manually")
              }
            >
              Copy
            </Button>
            <Button variant="secondary" onClick={() => download(generated)}>
              Download
            </Button>
            <Button variant="ghost" onClick={() => setGenerated(null)}>
              Hide
            </Button>
          </div>
        </Card>
      )}

      <div className="space-y-3">
        <div className="flex items-center gap-3">
          <label htmlFor="code-status" className="text-sm text-slate-600">
            Status
          </label>
          <Select
            id="code-status"
            className="max-w-48"
            value={status}
            onChange={(e) => {
              setPage(1);
              setStatus(e.target.value);
            }}
          >
            <option value="">All</option>
            <option value="active">Active</option>
            <option value="redeemed">Redeemed</option>
            <option value="revoked">Revoked</option>
          </Select>
        </div>
        {list.error && <Alert>{list.error.message}</Alert>}
        <Table head={["Code", "Plan", "Days", "Status", "Redeemed by", "Created", ""]} label="License codes">
          {list.data?.data.map((c) => (
            <tr key={c.code}>
              <td className="px-2 py-2 font-mono">{c.code}</td>
              <td className="px-2 py-2">{c.planName}</td>
              <td className="px-2 py-2">{c.durationDays}</td>
              <td className="px-2 py-2">
                <Badge tone={STATUS_TONES[c.status]}>{c.status}</Badge>
              </td>
              <td className="px-2 py-2">
                {c.redeemedBy ? `${c.redeemedBy.email ?? "deleted user"} · ${when(c.redeemedAt)}` : "-"}
              </td>
              <td className="px-2 py-2">{when(c.createdAt)}</td>
              <td className="px-2 py-2">
                {c.status === "active" && (
                  <Button variant="secondary" onClick={() => revoke(c)}>
                    Revoke
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </Table>
        {list.data?.data.length === 0 && <p className="py-4 text-center text-slate-500">No license codes yet.</p>}
        {list.data && <Pagination page={page} total={list.data.total} pageSize={PAGE_SIZE} onPage={setPage} />}
      </div>
      {dialog}
    </div>
  );
}
