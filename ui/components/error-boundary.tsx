import { Component, useState, type ErrorInfo, type ReactNode } from "react";
import { sendErrorReport } from "../lib/error-reports";
import { Button, Card } from "./ui";

type State = { error: Error | null; componentStack?: string };

/** The generic error screen: 'Something went wrong' with Notify to Fix, Try Again and Reload Page. */
export class ErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    this.setState({ error, componentStack: info.componentStack ?? undefined });
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <ErrorScreen
        error={this.state.error}
        componentStack={this.state.componentStack}
        onReset={() => this.setState({ error: null })}
      />
    );
  }
}

const isSafari = () => /^((?!chrome|android|crios|fxios).)*safari/i.test(navigator.userAgent);

/** Safari's own screen: its failures are mostly stale caches and content blockers, so say how to clear them. */
function SafariErrorScreen({ onReset }: { onReset: () => void }) {
  return (
    <div className="flex min-h-screen items-center justify-center p-4">
      <Card className="w-full max-w-lg p-8">
        <h1 className="text-2xl font-bold">Safari Compatibility Issue</h1>
        <p className="mt-2 text-slate-600">
          There was an issue loading the page on Safari. This might be due to browser compatibility.
        </p>
        <ul className="mt-4 list-disc space-y-1 pl-5 text-sm text-slate-600">
          <li>Refresh the page</li>
          <li>Clear Safari's cache for this site</li>
          <li>Turn off content blockers for this site</li>
          <li>Use the latest version of Safari</li>
        </ul>
        <div className="mt-6 flex gap-2">
          <Button onClick={() => location.reload()}>Refresh Page</Button>
          <Button variant="secondary" onClick={onReset}>
            Try Again
          </Button>
        </div>
      </Card>
    </div>
  );
}

function ErrorScreen({ error, componentStack, onReset }: { error: Error; componentStack?: string; onReset: () => void }) {
  const [report, setReport] = useState<"idle" | "sending" | "sent">("idle");
  if (isSafari()) return <SafariErrorScreen onReset={onReset} />;
  const notify = async () => {
    setReport("sending");
    try {
      await sendErrorReport({ message: error.message || "An unexpected error occurred", stack: error.stack, componentStack });
      setReport("sent");
    } catch (err) {
      console.error("error report failed", err);
      setReport("idle");
    }
  };
  return (
    <div className="flex min-h-screen items-center justify-center p-4">
      <Card className="w-full max-w-lg p-8 text-center">
        <h1 className="text-2xl font-bold">Something went wrong</h1>
        <p className="mt-2 text-slate-600">We encountered an unexpected error. Our team has been notified.</p>
        <pre className="mt-4 overflow-x-auto rounded-lg bg-slate-100 p-3 text-left text-sm text-red-700">
          {error.message || "An unexpected error occurred"}
        </pre>
        <div className="mt-6 flex flex-wrap justify-center gap-2">
          <Button onClick={notify} disabled={report !== "idle"}>
            {report === "sending" ? "Sending..." : report === "sent" ? "✓ Error report sent" : "Notify to Fix"}
          </Button>
          <Button variant="secondary" onClick={onReset}>
            Try Again
          </Button>
          <Button variant="secondary" onClick={() => location.reload()}>
            Reload Page
          </Button>
        </div>
      </Card>
    </div>
  );
}
