import type { AppContext } from "../context";
import { badRequest, notFound } from "../http/errors";
import { findPlan, listPlans, planView } from "../licenses/licenses";
import { updatePlan, type PlanChanges } from "../licenses/plans";

export const planList = async (ctx: AppContext) => (await listPlans(ctx)).map(planView);

/**
 * An administrator's edit of a plan: the fields given change; a name must stay non-blank; blank features drop.
 * `beforeChange` runs (and may refuse) once the edit would be saved: the route's check that the administrator confirmed.
 */
export async function editPlan(ctx: AppContext, id: string, input: PlanChanges, beforeChange?: () => Promise<void>) {
  if (!(await findPlan(ctx, id))) throw notFound("Plan not found");
  const name = input.name?.trim();
  if (input.name !== undefined && !name) throw badRequest("The plan needs a name");
  const features = input.features?.map((f) => f.trim()).filter(Boolean);
  const changes: PlanChanges = {
    ...(name ? { name } : {}),
    ...(input.price !== undefined ? { price: input.price } : {}),
    ...(input.monthlyContacts !== undefined ? { monthlyContacts: input.monthlyContacts } : {}),
    ...(input.monthlyMessages !== undefined ? { monthlyMessages: input.monthlyMessages } : {}),
    ...(input.phoneNumbers !== undefined ? { phoneNumbers: input.phoneNumbers } : {}),
    ...(features ? { features } : {}),
  };
  await beforeChange?.();
  return planView((await updatePlan(ctx, id, changes))!);
}
