import { eq } from "drizzle-orm";
import { users, type OnboardingAnswers } from "../../db/schema";
import type { AppContext } from "../context";

export type User = typeof users.$inferSelect;

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export function findUserByEmail(ctx: AppContext, email: string): User | undefined {
  return ctx.db.select().from(users).where(eq(users.email, normalizeEmail(email))).get();
}

export function findUserById(ctx: AppContext, id: string): User | undefined {
  return ctx.db.select().from(users).where(eq(users.id, id)).get();
}

export function insertUser(
  ctx: AppContext,
  fields: Pick<User, "email" | "passwordHash" | "firstName" | "lastName"> & Partial<User>,
): User {
  return ctx.db
    .insert(users)
    .values({ id: crypto.randomUUID(), ...fields, email: normalizeEmail(fields.email) })
    .returning()
    .get();
}

export function updateUser(ctx: AppContext, id: string, fields: Partial<Omit<User, "id" | "createdAt">>): User {
  return ctx.db
    .update(users)
    .set({ ...fields, updatedAt: new Date(ctx.now()) })
    .where(eq(users.id, id))
    .returning()
    .get()!;
}

export type RegionalSettings = Pick<User, "timezone" | "locale" | "dateFormat">;

export function saveOnboarding(ctx: AppContext, id: string, answers: OnboardingAnswers): User {
  return updateUser(ctx, id, { onboarding: answers, onboardedAt: new Date(ctx.now()) });
}

/** How messages name the sender: the business from onboarding, else the owner's name. */
export function businessNameOf(user: User): string {
  return user.onboarding?.businessName?.trim() || `${user.firstName} ${user.lastName}`.trim() || "Your Business";
}

/** The user as every call returns it: no password hash, no internal flags. */
export function publicUser(user: User) {
  return {
    id: user.id,
    email: user.email,
    emailVerified: user.emailVerified,
    firstName: user.firstName,
    lastName: user.lastName,
    phone: user.phone,
    profileImageUrl: user.profileImageUrl,
    role: user.role,
    authProvider: user.authProvider,
    timezone: user.timezone,
    locale: user.locale,
    dateFormat: user.dateFormat,
    onboarding: user.onboarding ?? null,
    onboardedAt: user.onboardedAt?.toISOString() ?? null,
    createdAt: user.createdAt.toISOString(),
  };
}
