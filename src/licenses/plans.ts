import { eq } from "drizzle-orm";
import { plans } from "../../db/schema";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import type { Plan } from "./licenses";

export type PlanChanges = Partial<
  Pick<Plan, "name" | "price" | "monthlyContacts" | "monthlyMessages" | "phoneNumbers" | "features">
>;

/** Changes the fields given (an administrator's edit in the portal); undefined for an unknown plan. */
export async function updatePlan(ctx: AppContext, id: string, changes: PlanChanges): Promise<Plan | undefined> {
  await ready(ctx.db);
  return ctx.records
    .update(plans)
    .set({ ...changes, updatedAt: new Date(ctx.now()) })
    .where(eq(plans.id, id))
    .returning()
    .get();
}
