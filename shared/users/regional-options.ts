/** The choices offered on /settings; shared by the server's validation and the UI. */
export const TIMEZONES = [
  { value: "Pacific/Honolulu", label: "Hawaii (HST)" },
  { value: "America/Anchorage", label: "Alaska (AKST)" },
  { value: "America/Los_Angeles", label: "Pacific Time (PT)" },
  { value: "America/Phoenix", label: "Arizona (MST)" },
  { value: "America/Denver", label: "Mountain Time (MT)" },
  { value: "America/Chicago", label: "Central Time (CT)" },
  { value: "America/New_York", label: "Eastern Time (ET)" },
  { value: "America/Halifax", label: "Atlantic Time (AT)" },
  { value: "America/Sao_Paulo", label: "Brasília (BRT)" },
  { value: "UTC", label: "Coordinated Universal Time (UTC)" },
  { value: "Europe/London", label: "London (GMT/BST)" },
  { value: "Europe/Paris", label: "Paris (CET)" },
  { value: "Europe/Berlin", label: "Berlin (CET)" },
  { value: "Europe/Athens", label: "Athens (EET)" },
  { value: "Africa/Johannesburg", label: "Johannesburg (SAST)" },
  { value: "Asia/Dubai", label: "Dubai (GST)" },
  { value: "Asia/Kolkata", label: "India (IST)" },
  { value: "Asia/Singapore", label: "Singapore (SGT)" },
  { value: "Asia/Shanghai", label: "China (CST)" },
  { value: "Asia/Tokyo", label: "Tokyo (JST)" },
  { value: "Australia/Sydney", label: "Sydney (AEST)" },
  { value: "Pacific/Auckland", label: "Auckland (NZST)" },
] as const;

export const LOCALES = [
  { value: "en-US", label: "English (United States)" },
  { value: "en-GB", label: "English (United Kingdom)" },
  { value: "en-CA", label: "English (Canada)" },
  { value: "en-AU", label: "English (Australia)" },
  { value: "fr-FR", label: "Français (France)" },
  { value: "fr-CA", label: "Français (Canada)" },
  { value: "es-ES", label: "Español (España)" },
  { value: "es-MX", label: "Español (México)" },
  { value: "de-DE", label: "Deutsch (Deutschland)" },
  { value: "it-IT", label: "Italiano (Italia)" },
  { value: "pt-BR", label: "Português (Brasil)" },
  { value: "nl-NL", label: "Nederlands (Nederland)" },
  { value: "sv-SE", label: "Svenska (Sverige)" },
  { value: "ja-JP", label: "日本語 (日本)" },
  { value: "zh-CN", label: "中文 (中国)" },
  { value: "hi-IN", label: "हिन्दी (भारत)" },
] as const;

export const DATE_FORMATS = ["MM/DD/YYYY", "DD/MM/YYYY", "YYYY/MM/DD", "DD.MM.YYYY", "YYYY-MM-DD"] as const;

export const INDUSTRIES = [
  "Restaurant & Food",
  "Retail & E-commerce",
  "Healthcare & Wellness",
  "Real Estate",
  "Automotive",
  "Professional Services",
  "Fitness & Gym",
  "Beauty & Salon",
  "Education",
  "Non-profit",
  "Other",
] as const;

export const CUSTOMER_TYPES = [
  { value: "local", label: "Local customers in my area" },
  { value: "online", label: "Online customers nationwide" },
  { value: "existing", label: "Existing customers to re-engage" },
  { value: "new", label: "New customers to attract" },
  { value: "mixed", label: "Mix of local and online" },
] as const;

export const GOALS = [
  { value: "sales", label: "Drive more sales" },
  { value: "loyalty", label: "Build customer loyalty" },
  { value: "bookings", label: "Fill appointments and bookings" },
  { value: "reviews", label: "Get more reviews" },
  { value: "events", label: "Promote events" },
  { value: "retention", label: "Win back lost customers" },
] as const;

/** Formats a date the way the user chose on /settings, in their timezone. */
export function formatDate(date: Date, dateFormat: string, timeZone: string): string {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })
    .formatToParts(date)
    .reduce<Record<string, string>>((acc, p) => ((acc[p.type] = p.value), acc), {});
  return dateFormat.replace("YYYY", parts.year!).replace("MM", parts.month!).replace("DD", parts.day!);
}
