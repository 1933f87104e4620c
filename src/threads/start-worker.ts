/** How long a worker thread may take to say it is ready before the next entry point is tried. */
const WORKER_START_MS = 10_000;

/**
 * Starts a worker thread from the first of `urls` that answers `{ type: "ready" }`: a worker's entry point sits next
 * to its module when run from source, and under its folder at the single executable's root (scripts/build.ts lists
 * it as an entry point). Rejects, naming the worker (`what`), when none starts.
 */
export function startWorker(urls: URL[], what: string): Promise<Worker> {
  const [url, ...rest] = urls;
  if (!url) return Promise.reject(new Error(`the ${what} worker does not start`));
  return new Promise<Worker | null>((resolve) => {
    let worker: Worker;
    try {
      worker = new Worker(url);
    } catch {
      return resolve(null);
    }
    const give = (ready: boolean) => {
      clearTimeout(timer);
      worker.onmessage = null;
      worker.onerror = null;
      if (!ready) worker.terminate();
      resolve(ready ? worker : null);
    };
    const timer = setTimeout(() => give(false), WORKER_START_MS);
    worker.onmessage = (e: MessageEvent<{ type?: string }>) => give(e.data?.type === "ready");
    worker.onerror = () => give(false);
  }).then((w) => w ?? startWorker(rest, what));
}
