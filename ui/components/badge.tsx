import type { ReactNode } from "react";
import { cx } from "./ui";

const TONES = {
  green: "bg-green-100 text-green-800",
  slate: "bg-slate-100 text-slate-700",
  brand: "bg-brand-100 text-brand-700",
  amber: "bg-amber-100 text-amber-900",
  red: "bg-red-100 text-red-700",
  blue: "bg-blue-100 text-blue-800",
};

export type BadgeTone = keyof typeof TONES;

/** A small rounded label: a status, a kind, "Current", "This device". */
export function Badge({ tone, children, className }: { tone: BadgeTone; children: ReactNode; className?: string }) {
  return (
    <span className={cx("whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium", TONES[tone], className)}>
      {children}
    </span>
  );
}
