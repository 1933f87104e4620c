/** "Just now", "N hours ago", "Yesterday", "N days ago", as the spec's recent activity shows. */
export function timeAgo(iso: string, now = Date.now()): string {
  const ms = now - new Date(iso).getTime();
  const hours = Math.floor(ms / 3_600_000);
  if (hours < 1) return "Just now";
  if (hours < 24) return `${hours} hour${hours === 1 ? "" : "s"} ago`;
  const days = Math.floor(hours / 24);
  return days === 1 ? "Yesterday" : `${days} days ago`;
}

export const formatNumber = (n: number, locale?: string) => new Intl.NumberFormat(locale).format(n);

/** "1 campaign", "1,592 segments": a count with its noun in the singular for exactly one. */
export const countOf = (n: number, one: string, many: string, locale?: string) => `${formatNumber(n, locale)} ${n === 1 ? one : many}`;
