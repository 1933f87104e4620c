import type { ReactNode } from "react";
import { cx } from "./ui";

/**
 * A box that scrolls its content (a wide table, a long list) and can be reached by keyboard: a scrollable region
 * that takes no focus cannot be scrolled without a mouse (axe: scrollable-region-focusable), so the box is a
 * focusable, named region with a visible focus ring.
 */
export function ScrollBox({ label, className, children }: { label: string; className?: string; children: ReactNode }) {
  return (
    <div
      role="region"
      aria-label={label}
      tabIndex={0}
      className={cx(
        "overflow-auto rounded focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600",
        className,
      )}
    >
      {children}
    </div>
  );
}
