/** The delivery rate of the stat card: delivered over sent, rounded; 0 with nothing sent. */
export const deliveryRate = (sent: number, delivered: number) => {
  const base = Math.max(sent, delivered);
  return base > 0 ? Math.round((delivered / base) * 100) : 0;
};
