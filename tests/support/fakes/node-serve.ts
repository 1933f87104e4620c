/**
 * Serves a fetch handler (a fake written for Bun.serve) with node:http, for the Playwright runner, which is Node.
 * GET and HEAD only: the registration fakes are read, never written to.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export async function serveOnNode(fetch: (req: Request) => Response | Promise<Response>) {
  const server = createServer(async (req, res) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    const answer = await fetch(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers }));
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
