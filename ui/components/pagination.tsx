import { formatNumber } from "../lib/format";
import { Button } from "./ui";

/** Previous / Next with "Showing a–b of N" ("N+" when the server stopped counting at N). Pages are 1-based. */
export function Pagination({
  page,
  pageSize,
  total,
  onPage,
  locale,
  capped = false,
}: {
  page: number;
  pageSize: number;
  total: number;
  onPage: (page: number) => void;
  locale?: string;
  capped?: boolean;
}) {
  const from = total === 0 ? 0 : (page - 1) * pageSize + 1;
  const to = capped ? page * pageSize : Math.min(total, page * pageSize);
  const n = (v: number) => formatNumber(v, locale);
  return (
    <div className="flex items-center justify-between gap-3 px-4 py-3 text-sm text-slate-600">
      <span data-testid="pagination-summary">
        Showing {n(from)}–{n(to)} of {n(total)}
        {capped ? "+" : ""}
      </span>
      <div className="flex gap-2">
        <Button variant="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
          Previous
        </Button>
        <Button variant="secondary" disabled={!capped && to >= total} onClick={() => onPage(page + 1)}>
          Next
        </Button>
      </div>
    </div>
  );
}
