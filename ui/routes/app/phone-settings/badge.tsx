import type { ReactNode } from "react";

const TONES = {
  green: "bg-green-100 text-green-800",
  slate: "bg-slate-100 text-slate-700",
  brand: "bg-brand-100 text-brand-700",
  amber: "bg-amber-100 text-amber-900",
};

export function Badge({ tone, children }: { tone: keyof typeof TONES; children: ReactNode }) {
  return <span className={`whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ${TONES[tone]}`}>{children}</span>;
}
