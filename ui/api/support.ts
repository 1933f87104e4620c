/** The open contact form and the error reports the UI sends: /api/contact, /api/admin/report-error. */
import { api } from "../lib/api";

export type ContactForm = {
  name: string;
  email: string;
  company: string | null;
  phone: string | null;
  subject: string;
  priority: "low" | "normal" | "high" | "critical";
  message: string;
};

export const sendContactMessage = (form: ContactForm) => api("/api/contact", { body: form });

export type ErrorReportBody = {
  message: string;
  stack?: string;
  componentStack?: string;
  timestamp: string;
  userAgent: string;
  url: string;
};

export const reportError = (errorReport: ErrorReportBody) => api("/api/admin/report-error", { body: { errorReport } });
