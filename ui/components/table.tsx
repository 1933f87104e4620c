import type { ReactNode } from "react";
import { ScrollBox } from "./scroll-box";

/**
 * A plain table with a header row of column names; the rows are the caller's <tr>s. Scrolls sideways on a phone,
 * in a box a keyboard can reach; the label names both.
 */
export function Table({ head, children, label }: { head: readonly string[]; children: ReactNode; label: string }) {
  return (
    <ScrollBox label={label}>
      <table className="w-full text-left text-sm" aria-label={label}>
        <thead className="border-b text-xs uppercase text-slate-500">
          <tr>
            {head.map((h, i) => (
              <th key={`${h}-${i}`} className="px-2 py-2 font-medium">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y">{children}</tbody>
      </table>
    </ScrollBox>
  );
}
