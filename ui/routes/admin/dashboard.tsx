import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useState, type FormEvent, type ReactNode } from "react";
import { Alert, Button, Card, cx, Field, Input, Modal, Select } from "../../components/ui";
import { api } from "../../lib/api";
import { auth } from "../../lib/auth";
import { toast } from "../../lib/toast";
import { useApi } from "../../lib/use-api";
import type { Plan } from "../app/license";

type Page<T> = { data: T[]; total: number; page: number; pageSize: number };
type AdminUser = {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  role: "user" | "admin";
  disabled: boolean;
  emailVerified: boolean;
  authProvider: "password" | "google";
  twoFactorEnabled: boolean;
  plan: { id: string; name: string; source: string; expiresAt: string | null } | null;
  createdAt: string;
};
type LicenseCode = {
  code: string;
  planName: string;
  durationDays: number;
  status: "active" | "redeemed" | "revoked";
  createdAt: string;
  redeemedAt: string | null;
  redeemedBy: { id: string; email: string | null } | null;
};
type ErrorReport = { id: string; type: string; message: string; stack: string | null; url: string | null; userAgent: string | null; user: { email: string | null } | null; createdAt: string };
type ContactMessage = { id: string; name: string; email: string; company: string | null; subject: string; message: string; priority: string; createdAt: string; handledAt: string | null };
type Health = { version: string; uptimeSeconds: number; databaseBytes: number; users: number; admins: number; disabledUsers: number; activeLicenseCodes: number; errorReports: number; openContactMessages: number };

const TABS = ["Users", "License Codes", "Plans", "Error Reports", "Contact Messages", "Health"] as const;
type Tab = (typeof TABS)[number];
const PAGE_SIZE = 20;

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "-");
const qs = (params: Record<string, string | number | undefined>) =>
  new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== "").map(([k, v]) => [k, String(v)])).toString();

function Pager({ page, total, pageSize, onPage }: { page: number; total: number; pageSize: number; onPage: (p: number) => void }) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return (
    <div className="flex items-center justify-between pt-3 text-sm text-slate-600">
      <span>
        {total} total · page {page} of {pages}
      </span>
      <div className="flex gap-2">
        <Button variant="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
          Previous
        </Button>
        <Button variant="secondary" disabled={page >= pages} onClick={() => onPage(page + 1)}>
          Next
        </Button>
      </div>
    </div>
  );
}

function Table({ head, children }: { head: string[]; children: ReactNode }) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left text-sm">
        <thead className="border-b text-xs uppercase text-slate-500">
          <tr>
            {head.map((h) => (
              <th key={h} className="px-2 py-2 font-medium">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y">{children}</tbody>
      </table>
    </div>
  );
}

const failed = (err: unknown, fallback: string) =>
  toast({ title: "Error", description: (err as Error).message || fallback, variant: "destructive" });

function UsersTab() {
  const me = auth.value.user!;
  const [search, setSearch] = useState("");
  const [query, setQuery] = useState("");
  const [page, setPage] = useState(1);
  const list = useApi<Page<AdminUser>>(`/api/admin/users?${qs({ search: query, page, pageSize: PAGE_SIZE })}`);

  const act = async (u: AdminUser, action: string, confirmText?: string) => {
    if (confirmText && !window.confirm(confirmText)) return;
    try {
      await api(`/api/admin/users/${u.id}/${action}`, { method: "POST" });
      toast({ title: "User updated", description: `${u.email}: ${action.replace("-", " ")} done.` });
      void list.reload();
    } catch (err) {
      failed(err, "Failed to update the user");
    }
  };

  // Without SMTP the server answers with the link itself, for the administrator to pass on.
  const [resetLink, setResetLink] = useState<{ email: string; link: string; message: string } | null>(null);
  const sendReset = async (u: AdminUser) => {
    if (!window.confirm(`Send ${u.email} a link to choose a new password?`)) return;
    try {
      const answer = await api<{ message: string; data: { link: string | null } }>(`/api/admin/users/${u.id}/send-password-reset`, { method: "POST" });
      if (answer.data.link) setResetLink({ email: u.email, link: answer.data.link, message: answer.message });
      else toast({ title: "Reset link sent", description: answer.message });
    } catch (err) {
      failed(err, "Failed to start the password reset");
    }
  };
  const copyLink = async (link: string) => {
    try {
      await navigator.clipboard.writeText(link);
      toast({ title: "Copied", description: "The reset link is on your clipboard." });
    } catch {
      toast({ title: "Failed to copy", description: "Please copy the link manually", variant: "destructive" });
    }
  };

  return (
    <div className="space-y-3">
      <form
        className="flex gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setQuery(search.trim());
        }}
      >
        <Input aria-label="Search users" placeholder="Search by email or name" value={search} onChange={(e) => setSearch(e.target.value)} />
        <Button type="submit">Search</Button>
      </form>
      {list.error && <Alert>{list.error.message}</Alert>}
      {list.loading && !list.data ? (
        <p className="text-slate-500">Loading users...</p>
      ) : (
        <>
          <Table head={["User", "Role", "Status", "Plan", "2FA", "Joined", "Actions"]}>
            {list.data?.data.map((u) => (
              <tr key={u.id} data-testid="admin-user-row">
                <td className="px-2 py-2">
                  <p className="font-medium">{u.email}</p>
                  <p className="text-xs text-slate-500">{[u.firstName, u.lastName].filter(Boolean).join(" ")}</p>
                </td>
                <td className="px-2 py-2">{u.role === "admin" ? "Admin" : "User"}</td>
                <td className="px-2 py-2">{u.disabled ? <span className="text-red-700">Disabled</span> : u.emailVerified ? "Active" : "Unverified"}</td>
                <td className="px-2 py-2">{u.plan ? `${u.plan.name}${u.plan.source === "trial" ? " (trial)" : ""}` : "None"}</td>
                <td className="px-2 py-2">{u.twoFactorEnabled ? "On" : "Off"}</td>
                <td className="px-2 py-2">{new Date(u.createdAt).toLocaleDateString()}</td>
                <td className="space-x-1 whitespace-nowrap px-2 py-2">
                  {u.id !== me.id &&
                    (u.disabled ? (
                      <Button variant="secondary" onClick={() => act(u, "enable")}>
                        Enable
                      </Button>
                    ) : (
                      <Button variant="danger" onClick={() => act(u, "disable", `Disable ${u.email}? They are signed out everywhere.`)}>
                        Disable
                      </Button>
                    ))}
                  {u.role === "user" ? (
                    <Button variant="secondary" onClick={() => act(u, "make-admin", `Make ${u.email} an administrator?`)}>
                      Make admin
                    </Button>
                  ) : (
                    u.id !== me.id && (
                      <Button variant="secondary" onClick={() => act(u, "remove-admin", `Remove administrator role from ${u.email}?`)}>
                        Remove admin
                      </Button>
                    )
                  )}
                  {u.twoFactorEnabled && (
                    <Button variant="secondary" onClick={() => act(u, "reset-2fa", `Turn off two-factor authentication for ${u.email}?`)}>
                      Reset 2FA
                    </Button>
                  )}
                  {!u.emailVerified && !u.disabled && (
                    <Button variant="secondary" onClick={() => act(u, "verify-email", `Mark ${u.email} as verified? Only do this if you know the address is theirs.`)}>
                      Mark verified
                    </Button>
                  )}
                  {!u.disabled && u.authProvider === "password" && (
                    <Button variant="secondary" onClick={() => void sendReset(u)}>
                      Send reset link
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
          {list.data?.data.length === 0 && <p className="py-4 text-center text-slate-500">No users found.</p>}
          {list.data && <Pager page={page} total={list.data.total} pageSize={PAGE_SIZE} onPage={setPage} />}
        </>
      )}
      <Modal open={!!resetLink} onClose={() => setResetLink(null)} title="Password reset link">
        {resetLink && (
          <div className="space-y-3">
            <p className="text-sm text-slate-600">{resetLink.message}</p>
            <Input readOnly aria-label={`Reset link for ${resetLink.email}`} value={resetLink.link} onFocus={(e) => e.currentTarget.select()} />
            <div className="flex justify-end gap-2">
              <Button variant="secondary" onClick={() => setResetLink(null)}>
                Close
              </Button>
              <Button onClick={() => void copyLink(resetLink.link)}>Copy link</Button>
            </div>
          </div>
        )}
      </Modal>
    </div>
  );
}

function LicenseCodesTab() {
  const plans = useApi<{ data: Plan[] }>("/api/license/plans");
  const [planId, setPlanId] = useState("starter");
  const [durationDays, setDurationDays] = useState("365");
  const [count, setCount] = useState("1");
  const [busy, setBusy] = useState(false);
  const [generated, setGenerated] = useState<{ planName: string; durationDays: number; codes: string[] } | null>(null);
  const [status, setStatus] = useState("");
  const [page, setPage] = useState(1);
  const list = useApi<Page<LicenseCode>>(`/api/admin/license-codes?${qs({ status, page, pageSize: PAGE_SIZE })}`);

  const generate = async (e: FormEvent) => {
    e.preventDefault();
    const n = Number(count);
    const days = Number(durationDays);
    if (!Number.isInteger(n) || n < 1 || n > 500) return failed(new Error("Choose between 1 and 500 codes"), "");
    if (!Number.isInteger(days) || days < 1) return failed(new Error("The duration must be a whole number of days"), "");
    setBusy(true);
    try {
      const answer = await api<{ data: { planName: string; durationDays: number; codes: string[] } }>("/api/admin/license-codes", {
        body: { planId, durationDays: days, count: n },
      });
      setGenerated(answer.data);
      toast({ title: "Codes generated", description: `${answer.data.codes.length} ${answer.data.planName} code(s). Copy them now: they are shown once.` });
      void list.reload();
    } catch (err) {
      failed(err, "Failed to generate codes");
    } finally {
      setBusy(false);
    }
  };

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(generated!.codes.join("\n"));
      toast({ title: "Copied", description: "The codes are on your clipboard." });
    } catch {
      toast({ title: "Failed to copy", description: "Please copy the codes manually", variant: "destructive" });
    }
  };
  const download = () => {
    const blob = new Blob([generated!.codes.join("\n") + "\n"], { type: "text/plain" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = `license-codes-${generated!.planName.toLowerCase()}-${generated!.durationDays}d.txt`;
    a.click();
    URL.revokeObjectURL(a.href);
  };
  const revoke = async (c: LicenseCode) => {
    if (!window.confirm(`Revoke ${c.code}? It can no longer be redeemed.`)) return;
    try {
      await api(`/api/admin/license-codes/${c.code}/revoke`, { method: "POST" });
      toast({ title: "Code revoked", description: c.code });
      void list.reload();
    } catch (err) {
      failed(err, "Failed to revoke the code");
    }
  };

  return (
    <div className="space-y-6">
      <form className="grid items-end gap-3 md:grid-cols-4" onSubmit={generate}>
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
          <Input id="gen-days" type="number" min={1} max={3650} value={durationDays} onChange={(e) => setDurationDays(e.target.value)} />
        </Field>
        <Field label="Number of codes" htmlFor="gen-count">
          <Input id="gen-count" type="number" min={1} max={500} value={count} onChange={(e) => setCount(e.target.value)} />
        </Field>
        <Button type="submit" disabled={busy}>
          {busy ? "Generating..." : "Generate Codes"}
        </Button>
      </form>

      {generated && (
        <Card className="space-y-3 border-amber-300 bg-amber-50 p-4">
          <p className="text-sm font-medium">
            {generated.codes.length} {generated.planName} code(s) for {generated.durationDays} days. They are shown only once.
          </p>
          <pre data-testid="generated-codes" className="max-h-60 overflow-auto rounded bg-white p-3 font-mono text-sm">
            {generated.codes.join("\n")}
          </pre>
          <div className="flex gap-2">
            <Button variant="secondary" onClick={copy}>
              Copy
            </Button>
            <Button variant="secondary" onClick={download}>
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
        <Table head={["Code", "Plan", "Days", "Status", "Redeemed by", "Created", ""]}>
          {list.data?.data.map((c) => (
            <tr key={c.code}>
              <td className="px-2 py-2 font-mono">{c.code}</td>
              <td className="px-2 py-2">{c.planName}</td>
              <td className="px-2 py-2">{c.durationDays}</td>
              <td className="px-2 py-2">
                <span
                  className={cx(
                    "rounded-full px-2 text-xs",
                    c.status === "active" ? "bg-green-100 text-green-800" : c.status === "redeemed" ? "bg-blue-100 text-blue-800" : "bg-slate-200 text-slate-700",
                  )}
                >
                  {c.status}
                </span>
              </td>
              <td className="px-2 py-2">{c.redeemedBy ? `${c.redeemedBy.email ?? "deleted user"} · ${when(c.redeemedAt)}` : "-"}</td>
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
        {list.data && <Pager page={page} total={list.data.total} pageSize={PAGE_SIZE} onPage={setPage} />}
      </div>
    </div>
  );
}

function PlanEditor({ plan, onSaved }: { plan: Plan; onSaved: () => void }) {
  const [form, setForm] = useState({
    price: String(plan.price / 100),
    monthlyContacts: String(plan.monthlyContacts),
    monthlyMessages: String(plan.monthlyMessages),
    phoneNumbers: String(plan.phoneNumbers),
    features: plan.features.join(", "),
  });
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      await api(`/api/admin/plans/${plan.id}`, {
        method: "PUT",
        body: {
          price: Math.round(Number(form.price) * 100),
          monthlyContacts: Number(form.monthlyContacts),
          monthlyMessages: Number(form.monthlyMessages),
          phoneNumbers: Number(form.phoneNumbers),
          features: form.features.split(",").map((f) => f.trim()).filter(Boolean),
        },
      });
      toast({ title: "Plan saved", description: `${plan.name} updated.` });
      onSaved();
    } catch (err) {
      failed(err, "Failed to save the plan");
    } finally {
      setBusy(false);
    }
  };
  const id = (k: string) => `plan-${plan.id}-${k}`;
  return (
    <Card className="p-4">
      <form className="space-y-3" onSubmit={save}>
        <h3 className="font-semibold">{plan.name}</h3>
        <div className="grid gap-3 md:grid-cols-4">
          <Field label="Price ($/month)" htmlFor={id("price")}>
            <Input id={id("price")} type="number" min={0} step="0.01" value={form.price} onChange={set("price")} />
          </Field>
          <Field label="Contacts (-1 unlimited)" htmlFor={id("contacts")}>
            <Input id={id("contacts")} type="number" min={-1} value={form.monthlyContacts} onChange={set("monthlyContacts")} />
          </Field>
          <Field label="Messages/month (-1 unlimited)" htmlFor={id("messages")}>
            <Input id={id("messages")} type="number" min={-1} value={form.monthlyMessages} onChange={set("monthlyMessages")} />
          </Field>
          <Field label="Phone numbers" htmlFor={id("numbers")}>
            <Input id={id("numbers")} type="number" min={-1} value={form.phoneNumbers} onChange={set("phoneNumbers")} />
          </Field>
        </div>
        <Field label="Features (comma separated)" htmlFor={id("features")}>
          <Input id={id("features")} value={form.features} onChange={set("features")} />
        </Field>
        <Button type="submit" disabled={busy}>
          {busy ? "Saving..." : "Save Plan"}
        </Button>
      </form>
    </Card>
  );
}

function PlansTab() {
  const plans = useApi<{ data: Plan[] }>("/api/admin/plans");
  if (plans.loading && !plans.data) return <p className="text-slate-500">Loading plans...</p>;
  return (
    <div className="space-y-4">
      {plans.data?.data.map((p) => (
        <PlanEditor key={`${p.id}-${p.price}-${p.monthlyContacts}-${p.monthlyMessages}`} plan={p} onSaved={() => void plans.reload()} />
      ))}
    </div>
  );
}

function ErrorReportsTab() {
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string | null>(null);
  const list = useApi<Page<ErrorReport>>(`/api/admin/error-reports?${qs({ page, pageSize: PAGE_SIZE })}`);
  return (
    <div className="space-y-2">
      {list.error && <Alert>{list.error.message}</Alert>}
      {list.data?.data.length === 0 && <p className="py-4 text-center text-slate-500">No error reports.</p>}
      {list.data?.data.map((r) => (
        <Card key={r.id} className="p-3">
          <button type="button" className="w-full text-left" onClick={() => setOpen(open === r.id ? null : r.id)}>
            <p className="font-medium text-red-700">{r.message}</p>
            <p className="text-xs text-slate-500">
              {when(r.createdAt)} · {r.type} · {r.url ?? "no url"} · {r.user?.email ?? "signed out"}
            </p>
          </button>
          {open === r.id && (
            <pre className="mt-2 max-h-80 overflow-auto whitespace-pre-wrap rounded bg-slate-50 p-2 text-xs">
              {r.stack ?? "No stack"}
              {"\n\n"}
              {r.userAgent}
            </pre>
          )}
        </Card>
      ))}
      {list.data && <Pager page={page} total={list.data.total} pageSize={PAGE_SIZE} onPage={setPage} />}
    </div>
  );
}

function ContactMessagesTab() {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState("open");
  const list = useApi<Page<ContactMessage>>(`/api/admin/contact-messages?${qs({ status, page, pageSize: PAGE_SIZE })}`);
  const mark = async (m: ContactMessage, handled: boolean) => {
    try {
      await api(`/api/admin/contact-messages/${m.id}/handled`, { body: { handled } });
      void list.reload();
    } catch (err) {
      failed(err, "Failed to update the message");
    }
  };
  return (
    <div className="space-y-3">
      <Select
        aria-label="Message status"
        className="max-w-48"
        value={status}
        onChange={(e) => {
          setPage(1);
          setStatus(e.target.value);
        }}
      >
        <option value="open">Open</option>
        <option value="handled">Handled</option>
        <option value="">All</option>
      </Select>
      {list.error && <Alert>{list.error.message}</Alert>}
      {list.data?.data.length === 0 && <p className="py-4 text-center text-slate-500">No messages.</p>}
      {list.data?.data.map((m) => (
        <Card key={m.id} className="space-y-1 p-3">
          <div className="flex items-start justify-between gap-3">
            <div>
              <p className="font-medium">{m.subject}</p>
              <p className="text-xs text-slate-500">
                {m.name} &lt;{m.email}&gt;{m.company ? ` · ${m.company}` : ""} · {m.priority} · {when(m.createdAt)}
              </p>
            </div>
            {m.handledAt ? (
              <Button variant="ghost" onClick={() => mark(m, false)}>
                Reopen
              </Button>
            ) : (
              <Button variant="secondary" onClick={() => mark(m, true)}>
                Mark handled
              </Button>
            )}
          </div>
          <p className="whitespace-pre-wrap text-sm text-slate-700">{m.message}</p>
        </Card>
      ))}
      {list.data && <Pager page={page} total={list.data.total} pageSize={PAGE_SIZE} onPage={setPage} />}
    </div>
  );
}

const bytes = (n: number) => (n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KB` : n < 1024 ** 3 ? `${(n / 1024 ** 2).toFixed(1)} MB` : `${(n / 1024 ** 3).toFixed(2)} GB`);
function uptime(s: number) {
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  return d ? `${d}d ${h}h ${m}m` : h ? `${h}h ${m}m` : `${m}m ${s % 60}s`;
}

function HealthTab() {
  const health = useApi<{ data: Health }>("/api/admin/health", { refreshMs: 30_000 });
  const h = health.data?.data;
  if (health.error) return <Alert>{health.error.message}</Alert>;
  if (!h) return <p className="text-slate-500">Loading health...</p>;
  const items: [string, string][] = [
    ["Version", h.version],
    ["Uptime", uptime(h.uptimeSeconds)],
    ["Database size", bytes(h.databaseBytes)],
    ["Users", String(h.users)],
    ["Administrators", String(h.admins)],
    ["Disabled users", String(h.disabledUsers)],
    ["Unused license codes", String(h.activeLicenseCodes)],
    ["Error reports", String(h.errorReports)],
    ["Open contact messages", String(h.openContactMessages)],
  ];
  return (
    <dl className="grid gap-3 sm:grid-cols-3">
      {items.map(([k, v]) => (
        <Card key={k} className="p-4">
          <dt className="text-xs uppercase text-slate-500">{k}</dt>
          <dd className="text-lg font-semibold" data-testid={`health-${k}`}>
            {v}
          </dd>
        </Card>
      ))}
    </dl>
  );
}

/** /admin/dashboard: users, license codes, plans, error reports, contact messages, health. Admins only. */
export function AdminDashboardPage() {
  useSignals();
  const user = auth.value.user;
  const [tab, setTab] = useState<Tab>(() => {
    const fromHash = decodeURIComponent(window.location.hash.slice(1));
    return (TABS as readonly string[]).includes(fromHash) ? (fromHash as Tab) : "Users";
  });
  useEffect(() => {
    history.replaceState(history.state, "", `#${encodeURIComponent(tab)}`);
  }, [tab]);

  if (user?.role !== "admin") {
    return (
      <div className="mx-auto max-w-lg space-y-3 py-12 text-center">
        <h1 className="text-2xl font-bold">Access Denied</h1>
        <Alert>Administrator access required. Sign in with an administrator account at /admin.</Alert>
      </div>
    );
  }

  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-bold">Admin Panel</h1>
        <p className="text-slate-600">Users, plans, license codes and the health of this installation.</p>
      </div>
      <div role="tablist" aria-label="Admin sections" className="flex flex-wrap gap-1 border-b">
        {TABS.map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            aria-selected={tab === t}
            className={cx("-mb-px border-b-2 px-3 py-2 text-sm", tab === t ? "border-brand-600 font-medium text-brand-700" : "border-transparent text-slate-600 hover:text-slate-900")}
            onClick={() => setTab(t)}
          >
            {t}
          </button>
        ))}
      </div>
      <div role="tabpanel" aria-label={tab}>
        {tab === "Users" && <UsersTab />}
        {tab === "License Codes" && <LicenseCodesTab />}
        {tab === "Plans" && <PlansTab />}
        {tab === "Error Reports" && <ErrorReportsTab />}
        {tab === "Contact Messages" && <ContactMessagesTab />}
        {tab === "Health" && <HealthTab />}
      </div>
    </div>
  );
}
