import { api } from "./api";

export type ErrorReport = { message: string; stack?: string; componentStack?: string };

export const LAST_ERROR_KEY = "smsdesk-last-error";

export async function sendErrorReport(report: ErrorReport) {
  await api("/api/admin/report-error", {
    body: {
      errorReport: {
        ...report,
        timestamp: new Date().toISOString(),
        userAgent: navigator.userAgent,
        url: location.href,
      },
    },
  });
  sessionStorage.removeItem(LAST_ERROR_KEY);
}
