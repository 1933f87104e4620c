import { eq } from "drizzle-orm";
import { plans } from "../../db/schema";
import type { AppContext } from "../context";
import type { Plan } from "./licenses";

export type PlanChanges = Partial<
  Pick<Plan, "name" | "price" | "monthlyContacts" | "monthlyMessages" | "phoneNumbers" | "features">
>;

/** Changes the fields given (an administrator's edit in the portal); undefined for an unknown plan. */
export function updatePlan(ctx: AppContext, id: string, changes: PlanChanges): Plan | undefined {
  return ctx.db
    .update(plans)
    .set({ ...changes, updatedAt: new Date(ctx.now()) })
    .where(eq(plans.id, id))
    .returning()
    .get();
}
