import { useState } from "react";
import { ErrorBoundary } from "../../../components/error-boundary";
import { Alert, Button, Card } from "../../../components/ui";
import { sendErrorReport } from "../../../lib/error-reports";

const SOURCE = "from /test-error-demo";

/**
 * Fails while rendering, once clicked. It lives inside the error boundary, so the boundary's Try Again mounts a
 * fresh one that works again (React's own retry of the failed render fails too, as a real bug would).
 */
function RenderErrorButton() {
  const [crash, setCrash] = useState(false);
  if (crash) throw new Error(`Test render error ${SOURCE}`);
  return <Button onClick={() => setCrash(true)}>Throw a render error</Button>;
}

function Demo({ title, text, children }: { title: string; text: string; children: React.ReactNode }) {
  return (
    <Card className="space-y-3 p-6">
      <div>
        <h2 className="font-semibold">{title}</h2>
        <p className="text-sm text-slate-600">{text}</p>
      </div>
      {children}
    </Card>
  );
}

/** /test-error-demo: each of the app's ways of catching and reporting an error, set off on purpose. */
export function TestErrorDemoPage() {
  const [report, setReport] = useState<{ state: "idle" | "sending" | "sent" | "failed"; message?: string }>({ state: "idle" });
  const sendReport = async () => {
    setReport({ state: "sending" });
    try {
      await sendErrorReport({ message: `Test error report ${SOURCE}`, stack: new Error("Test error report").stack });
      setReport({ state: "sent" });
    } catch (err) {
      setReport({ state: "failed", message: err instanceof Error ? err.message : "The report could not be sent" });
    }
  };
  return (
    <div className="mx-auto max-w-3xl space-y-6 p-6">
      <div>
        <h1 className="text-2xl font-bold">Error Reporting Test</h1>
        <p className="text-slate-600">
          Try what you and your team see when something breaks. Reports you send appear under Error Reports in the
          Admin Panel.
        </p>
      </div>
      <div className="grid gap-4 md:grid-cols-2">
        <Demo title="Screen error" text="A screen fails to draw: the error screen replaces it, with Notify to Fix and Try Again.">
          <ErrorBoundary>
            <RenderErrorButton />
          </ErrorBoundary>
        </Demo>
        <Demo title="Uncaught error" text="Code outside any screen fails: the red error card appears at the top right.">
          <Button
            variant="secondary"
            onClick={() =>
              setTimeout(() => {
                throw new Error(`Test uncaught error ${SOURCE}`);
              })
            }
          >
            Throw an uncaught error
          </Button>
        </Demo>
        <Demo title="Unhandled rejection" text="A background task fails and nobody handles it: the same card appears.">
          <Button variant="secondary" onClick={() => void Promise.reject(new Error(`Test unhandled rejection ${SOURCE}`))}>
            Reject a promise
          </Button>
        </Demo>
        <Demo title="Error report" text="Send a report straight to the administrators, as Notify to Fix does.">
          <Button variant="secondary" onClick={() => void sendReport()} disabled={report.state === "sending"}>
            {report.state === "sending" ? "Sending..." : "Send a test report"}
          </Button>
          {report.state === "sent" && <Alert tone="success">✓ Report sent</Alert>}
          {report.state === "failed" && <Alert>{report.message}</Alert>}
        </Demo>
      </div>
    </div>
  );
}
