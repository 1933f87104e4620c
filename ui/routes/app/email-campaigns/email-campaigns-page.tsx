import { Link } from "@tanstack/react-router";
import { Badge } from "../../../components/badge";
import { Card } from "../../../components/ui";

/**
 * /email-campaigns: email marketing is planned, not built. The page says so and leads to what works today, rather
 * than showing a form that could not send.
 */
export function EmailCampaignsPage() {
  return (
    <div className="mx-auto max-w-2xl p-6">
      <Link to="/" className="text-sm text-brand-700 hover:underline">
        ← Back to Dashboard
      </Link>
      <Card className="mt-4 space-y-4 p-8 text-center">
        <div className="flex items-center justify-center gap-2">
          <h1 className="text-2xl font-bold">Email Marketing</h1>
          <Badge tone="amber">Soon</Badge>
        </div>
        <p className="text-slate-600">
          Email campaigns are coming to smsdesk. This version sends text messages only: your contacts, templates and
          campaigns all work for SMS today.
        </p>
        <Link
          to="/sms-campaigns"
          className="inline-block rounded-lg bg-brand-600 px-4 py-2 text-sm font-medium text-white hover:bg-brand-700"
        >
          Send a text campaign
        </Link>
      </Card>
    </div>
  );
}
