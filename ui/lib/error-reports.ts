import { reportError } from "../api/support";

export type ErrorReport = { message: string; stack?: string; componentStack?: string };

export const LAST_ERROR_KEY = "smsdesk-last-error";

export async function sendErrorReport(report: ErrorReport) {
  await reportError({ ...report, timestamp: new Date().toISOString(), userAgent: navigator.userAgent, url: location.href });
  sessionStorage.removeItem(LAST_ERROR_KEY);
}
