import { hostname } from "node:os";

/**
 * This process among the installation's (issue 31: several processes serve one installation): its host name and
 * pid, and when it started. `/api/health` answers it (doctor names the process that answered) and `/metrics`
 * labels its figures' process with it, so a scrape of each process behind a load balancer says which one it is.
 */
export const PROCESS = { name: `${hostname()}:${process.pid}`, startedAt: Date.now() };
