/**
 * A bench's account: signs up through POST /api/auth/register and finishes with the 6-digit code, read from the
 * log of a server started in development mode (SMSDESK_DEV, no SMTP: the code is written there). Answers what
 * sign-up answered before it took a code step: the session's token and the user.
 */
export async function benchSignUp(url: string, origin: string, logs: string[], email = "bench@example.com"): Promise<{ token: string; user: { id: string } }> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(url + path, { method: "POST", headers: { "content-type": "application/json", origin }, body: JSON.stringify(body) });
    const json = (await res.json()) as any;
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const started = await post("/api/auth/register", { email, password: "bench-password-1", confirmPassword: "bench-password-1", firstName: "B", lastName: "M" });
  const mail = logs.findLast((line) => line.includes(`to=${email}`));
  const code = mail && /\b(\d{6})\b/.exec(mail)?.[1];
  if (!code) throw new Error(`no verification code for ${email} in the server's log`);
  return post("/api/auth/register/verify", { signupToken: started.signupToken, code });
}
