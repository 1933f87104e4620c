// The client address. server.ts hands requests to `app.handle()`, where Elysia has no `server` to ask,
// so it records the socket's address here first. X-Forwarded-For is never trusted: anyone can send it.
const addresses = new WeakMap<Request, string>();

export function rememberClientIp(request: Request, ip: string | null | undefined) {
  if (ip) addresses.set(request, ip);
}

export function clientIp(request: Request, server?: { requestIP(r: Request): { address: string } | null } | null): string {
  return addresses.get(request) ?? server?.requestIP(request)?.address ?? "unknown";
}
