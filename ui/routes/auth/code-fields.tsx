import { Button, Field, Input } from "../../components/ui";

/** The 6-digit email code, its Verify button and the resend with its cooldown: sign-up's code step and
 * /verify-email ask for the same code the same way. */
export function CodeFields(props: { id: string; code: string; onCode: (code: string) => void; busy: boolean; cooldown: number; onResend: () => void }) {
  const { id, code, onCode, busy, cooldown, onResend } = props;
  return (
    <>
      <Field label="Verification code" htmlFor={id}>
        <Input
          id={id}
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={6}
          value={code}
          onChange={(e) => onCode(e.target.value.replace(/\D/g, "").slice(0, 6))}
          className="text-center text-2xl tracking-[0.5em]"
        />
      </Field>
      <Button type="submit" className="w-full" disabled={busy}>
        {busy ? "Verifying..." : "Verify Email"}
      </Button>
      <Button variant="secondary" className="w-full" disabled={cooldown > 0} onClick={onResend}>
        {cooldown > 0 ? `Resend code in ${cooldown}s` : "Resend code"}
      </Button>
    </>
  );
}
