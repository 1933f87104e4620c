/**
 * The API test files that pass with their apps on PostgreSQL (issue 31): `npm test` (scripts/test.ts) runs the API
 * suite on SQLite, then these files again with SMSDESK_TEST_DATABASE=postgres. A file joins the list once every test
 * in it passes on both engines; the list grows until it is the whole suite.
 */
export const POSTGRES_READY = [
  "tests/api/health.test.ts",
  "tests/api/auth-register.test.ts",
  "tests/api/auth-login.test.ts",
  "tests/api/rate-limit.test.ts",
  "tests/api/sign-in-uniform.test.ts",
  "tests/api/messages-records.test.ts",
  "tests/api/lockout.test.ts",
  "tests/api/two-factor.test.ts",
  "tests/api/sessions.test.ts",
  "tests/api/google-signin.test.ts",
  "tests/api/passkeys.test.ts",
  "tests/api/contact-pages-engines.test.ts",
  "tests/api/api-keys.test.ts",
  "tests/api/reauth.test.ts",
  "tests/api/session-credentials.test.ts",
  "tests/api/settings.test.ts",
  "tests/api/sms-providers.test.ts",
];
