export const MIN_PASSWORD_LENGTH = 6;

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: "argon2id" });
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return Bun.password.verify(password, hash);
}

// Verifying against this when the email is unknown keeps both answers equally slow.
let decoyHash: Promise<string> | undefined;
export async function verifyAgainstDecoy(password: string): Promise<void> {
  decoyHash ??= hashPassword("decoy-password-for-timing");
  await Bun.password.verify(password, await decoyHash);
}
