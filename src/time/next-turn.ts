/** Resolves after the event loop's next turn: long work awaits it between chunks so requests are answered meanwhile. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
