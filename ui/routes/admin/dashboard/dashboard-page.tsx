import { useSignals } from "@preact/signals-react/runtime";
import { Link } from "@tanstack/react-router";
import { useEffect, useState } from "react";
import { TabPanel, Tabs, type TabItem } from "../../../components/tabs";
import { Alert } from "../../../components/ui";
import { auth } from "../../../lib/auth";
import { BackupAgeCard } from "../backup-manager/backup-age";
import { ContactMessagesTab } from "./contact-messages-tab";
import { ErrorReportsTab } from "./error-reports-tab";
import { HealthTab } from "./health-tab";
import { LicenseCodesTab } from "./license-codes-tab";
import { PlansTab } from "./plans-tab";
import { SettingsTab } from "./settings-tab";
import { UsersTab } from "./users-tab";

const TABS = [
  { value: "users", label: "Users" },
  { value: "license-codes", label: "License Codes" },
  { value: "plans", label: "Plans" },
  { value: "error-reports", label: "Error Reports" },
  { value: "contact-messages", label: "Contact Messages" },
  { value: "health", label: "Health" },
  { value: "settings", label: "Settings" },
] as const satisfies readonly TabItem<string>[];
type Tab = (typeof TABS)[number]["value"];

const PANELS: Record<Tab, () => React.JSX.Element> = {
  users: UsersTab,
  "license-codes": LicenseCodesTab,
  plans: PlansTab,
  "error-reports": ErrorReportsTab,
  "contact-messages": ContactMessagesTab,
  health: HealthTab,
  settings: SettingsTab,
};

/** The tab named in the address (#health), so a reload or a shared link opens the same one. */
const tabFromHash = (): Tab => TABS.find((t) => t.value === decodeURIComponent(window.location.hash.slice(1)))?.value ?? "users";

/** /admin/dashboard: users, license codes, plans, error reports, contact messages, health. Admins only. */
export function AdminDashboardPage() {
  useSignals();
  const user = auth.value.user;
  const [tab, setTab] = useState<Tab>(tabFromHash);
  useEffect(() => {
    history.replaceState(history.state, "", `#${tab}`);
  }, [tab]);

  if (user?.role !== "admin") {
    return (
      <div className="mx-auto max-w-lg space-y-3 py-12 text-center">
        <h1 className="text-2xl font-bold">Access Denied</h1>
        <Alert>Administrator access required. Sign in with an administrator account at /admin.</Alert>
      </div>
    );
  }

  const Panel = PANELS[tab];
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-bold">Admin Panel</h1>
        <p className="text-slate-600">
          Users, plans, license codes and the health of this installation. Backups:{" "}
          <Link to="/admin/backup-manager" className="text-blue-700 underline">
            Backup Manager
          </Link>
        </p>
      </div>
      <BackupAgeCard />
      <Tabs tabs={TABS} value={tab} onChange={setTab} label="Admin sections" idPrefix="admin" />
      <TabPanel idPrefix="admin" value={tab}>
        <Panel />
      </TabPanel>
    </div>
  );
}
