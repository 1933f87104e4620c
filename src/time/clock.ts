/** "08:00" as the user's locale writes a time of day ("8:00 AM" in en-US, "08:00" in en-GB). */
export function clockLabel(clock: string, locale: string): string {
  const [h, m] = clock.split(":").map(Number);
  const at = Date.UTC(2000, 0, 1, h ?? 0, m ?? 0);
  try {
    return new Intl.DateTimeFormat(locale, { timeStyle: "short", timeZone: "UTC" }).format(at);
  } catch {
    return clock;
  }
}
