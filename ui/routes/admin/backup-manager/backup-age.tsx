import { Link } from "@tanstack/react-router";
import { useBackups, type Backup } from "../../../api/backups";
import { Card } from "../../../components/ui";
import { accountTime } from "../../../lib/format";

/** A drilled backup older than this is worth a warning: the schedule presets run at least weekly. */
const STALE_MS = 8 * 24 * 3600_000;

function age(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? "" : "s"}`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} hour${hours === 1 ? "" : "s"}`;
  return `${Math.floor(hours / 24)} days`;
}

/**
 * The age of the newest good backup that passed its restore drill (what a disaster would be recovered from), on
 * the admin dashboard and the backup manager; amber when there is none or it is over a week old.
 */
export function BackupAgeCard({ lastDrilled }: { lastDrilled?: Backup | null }) {
  // The backup manager passes what it already loaded; the dashboard loads it here.
  const own = useBackups(lastDrilled === undefined);
  const last = lastDrilled !== undefined ? lastDrilled : own.data?.lastDrilled;
  if (last === undefined) return null;
  const stale = !last || Date.now() - last.createdAt > STALE_MS;
  return (
    <section data-testid="backup-age">
      <Card className={`p-4 ${stale ? "border-amber-300 bg-amber-50" : ""}`}>
        <p className="text-xs uppercase text-slate-500">Last good, drilled backup</p>
        {last ? (
          <p className="text-lg font-semibold">
            {age(Date.now() - last.createdAt)} old{" "}
            <span className="text-sm font-normal text-slate-600">
              ({accountTime(last.createdAt)}, drill passed {accountTime(last.drill!.at)})
            </span>
          </p>
        ) : (
          <p className="text-lg font-semibold">None yet</p>
        )}
        {stale && (
          <p className="text-sm text-amber-800">
            Create a backup and test it (or turn on the schedule) in the{" "}
            <Link to="/admin/backup-manager" className="underline">
              Backup Manager
            </Link>
            ; the restore drill runs daily at 05:00 server time.
          </p>
        )}
      </Card>
    </section>
  );
}
