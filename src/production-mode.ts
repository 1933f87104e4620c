/**
 * The appliance always runs its dependencies in their production mode, however it is started (the executable,
 * `npm start`, Docker, the systemd unit) and whatever NODE_ENV the shell had. Elysia reads NODE_ENV once, when it
 * is first imported, and outside production it formats every failed validation with the value indented in it: one
 * request of 40 KB of nested arrays held the event loop for 20 s. The build's `define` rewrites our own reads of
 * `process.env.NODE_ENV`, not Elysia's `Bun.env` read at run time, so it is set here, in the environment itself.
 *
 * Imported first by src/main.ts, before anything that imports Elysia (ES modules run in import order). Written
 * through Object.assign because the build's `define` would rewrite `process.env.NODE_ENV` on the left of `=` too.
 */
Object.assign(process.env, { NODE_ENV: "production" });
