import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { TabPanel, Tabs } from "../../../components/tabs";
import { Card } from "../../../components/ui";
import type { AutomationTab } from "../../../lib/search";
import { automationRoute } from "../../../router";
import { DripsTab } from "./drips-tab";
// SLOT: the Automation Rules tab. ./rules-tab is owned by the rules work (issue 15 item 1), which replaces it.
import { RulesTab } from "./rules-tab";

type Tab = AutomationTab;
const TABS: { value: Tab; label: string }[] = [
  { value: "rules", label: "Automation Rules" },
  { value: "drips", label: "Drip Campaigns" },
  { value: "templates", label: "Templates" },
];

/** /automation: the spec's three tabs. */
export function AutomationPage() {
  const [tab, setTab] = useState<Tab>(automationRoute.useSearch().tab);
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-bold text-slate-900">Automation</h1>
        <p className="text-sm text-slate-600">Rules that react to your contacts, and drip sequences that text them step by step.</p>
      </div>
      <Tabs tabs={TABS} value={tab} onChange={setTab} idPrefix="automation" label="Automation" />
      <TabPanel idPrefix="automation" value={tab}>
        {tab === "rules" && <RulesTab />}
        {tab === "drips" && <DripsTab />}
        {tab === "templates" && (
          <Card className="p-6 text-sm text-slate-700">
            <p>Templates are shared by campaigns, chat and drips: the messages of a drip's steps can start from one.</p>
            <Link to="/templates" className="mt-3 inline-block font-medium text-brand-700 hover:underline">
              Open Templates
            </Link>
          </Card>
        )}
      </TabPanel>
    </div>
  );
}
