import { useHealth } from "../../../api/admin";
import { Alert, Card } from "../../../components/ui";

const bytes = (n: number) =>
  n < 1024
    ? `${n} B`
    : n < 1024 ** 2
      ? `${(n / 1024).toFixed(1)} KB`
      : n < 1024 ** 3
        ? `${(n / 1024 ** 2).toFixed(1)} MB`
        : `${(n / 1024 ** 3).toFixed(2)} GB`;
function uptime(s: number) {
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  return d ? `${d}d ${h}h ${m}m` : h ? `${h}h ${m}m` : `${m}m ${s % 60}s`;
}

/** The installation's health, read again every 30 seconds. */
export function HealthTab() {
  const health = useHealth(30_000);
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
