import { useCallback, useRef, useState, type FormEvent } from "react";
import { errorMessage } from "./api";
import { toast, type Toast } from "./toast";

type ToastSpec = Omit<Toast, "id">;

export type MutationOptions<A extends unknown[], R> = {
  /** Applied at once, before the server answers; the function it returns undoes it when the call fails. */
  optimistic?: (...args: A) => (() => void) | void;
  /** After the call succeeded, before the success toast; `busy` stays on until it ends. */
  onSuccess?: (result: R, ...args: A) => unknown;
  /** The toast after a success: a title, a toast, or one built from the result (null for none). */
  success?: string | ToastSpec | ((result: R, ...args: A) => ToastSpec | string | null);
  /** A failure's message when the error carries none. */
  fallback?: string;
  /**
   * A toast for a failure: its title (the message is its description), or one built from the message (and the error,
   * for a screen that words one kind of failure its own way). Without it a failure shows only where the screen puts
   * `error`.
   */
  failureToast?: string | ((message: string, err: unknown) => ToastSpec);
};

export type Mutation<A extends unknown[], R> = {
  /** Runs the call unless one is under way; answers its result, or undefined when it failed or was skipped. */
  run: (...args: A) => Promise<R | undefined>;
  busy: boolean;
  /** The arguments of the run under way, null when none is: a list marks the row being changed with them. */
  args: A | null;
  /** The last failure's message until the next run; screens also set it for what they check themselves. */
  error: string | null;
  setError: (message: string | null) => void;
};

/**
 * One change sent to the server, with what every screen needs around it: `busy` while it runs (a second click is
 * ignored), the failure's message in `error` and, as asked, a toast, an optimistic update undone on failure, and a
 * success toast. The call and the options are read when it runs, so they may close over the screen's current state.
 *
 *   const save = useMutation(() => updateProfile(form), { success: "Profile saved", failureToast: "Error" });
 *   <Button onClick={() => save.run()} disabled={save.busy}>
 */
export function useMutation<A extends unknown[], R>(call: (...args: A) => Promise<R>, options: MutationOptions<A, R> = {}): Mutation<A, R> {
  const [args, setArgs] = useState<A | null>(null);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef({ call, options });
  latest.current = { call, options };
  const running = useRef(false);

  const run = useCallback(async (...args: A): Promise<R | undefined> => {
    if (running.current) return undefined;
    running.current = true;
    setArgs(args);
    setError(null);
    const { call, options } = latest.current;
    const undo = options.optimistic?.(...args);
    try {
      let result: R;
      try {
        result = await call(...args);
      } catch (err) {
        if (undo) undo();
        const message = errorMessage(err, options.fallback ?? "Something went wrong");
        setError(message);
        const failure = options.failureToast;
        if (failure) toast(typeof failure === "string" ? { title: failure, description: message, variant: "destructive" } : failure(message, err));
        return undefined;
      }
      await options.onSuccess?.(result, ...args);
      const shown = typeof options.success === "function" ? options.success(result, ...args) : options.success;
      if (shown) toast(typeof shown === "string" ? { title: shown } : shown);
      return result;
    } finally {
      running.current = false;
      setArgs(null);
    }
  }, []);

  return { run, busy: args !== null, args, error, setError };
}

/** A form's onSubmit that stays on the page and runs `action` (a mutation's run, or a check before it). */
export const submitWith = (action: () => unknown) => (e: FormEvent) => {
  e.preventDefault();
  void action();
};
