import type { TemplateCategory } from "../../db/schema";

/**
 * The six sample templates every account sees (business.md: "Six built-in sample templates"; the simple home names
 * Weekend Special Offer, Appointment Reminder, New Customer Welcome and Customer Survey). They live here, shared and
 * read-only, so a new sample or a corrected text reaches every account; each account's use count of them is its
 * own row in builtin_template_uses and starts at zero. An account that wants a different text creates its own.
 * None promises a reply the product does not handle (no "Reply C to confirm").
 */
export const BUILTIN_TEMPLATES: { id: string; name: string; category: TemplateCategory; content: string }[] = [
  {
    id: "builtin-weekend-special",
    name: "Weekend Special Offer",
    category: "restaurant",
    content: "Hi {firstName|there}! This weekend only at {business}: 20% off your order. Show this text when you pay.",
  },
  {
    id: "builtin-appointment-reminder",
    name: "Appointment Reminder",
    category: "healthcare",
    content: "Hi {firstName|there}, a reminder of your appointment with {business} tomorrow. Call us if you need to reschedule.",
  },
  {
    id: "builtin-new-customer-welcome",
    name: "New Customer Welcome",
    category: "service",
    content: "Welcome to {business}, {firstName|friend}! Thanks for choosing us. Save this number to reach us any time.",
  },
  {
    id: "builtin-customer-survey",
    name: "Customer Survey",
    category: "custom",
    content: "Hi {firstName|there}, how did we do? Reply with a number from 1 (poor) to 5 (great) to rate your last visit to {business}.",
  },
  {
    id: "builtin-new-arrivals",
    name: "New Arrivals",
    category: "retail",
    content: "{firstName|Hi}, new arrivals just landed at {business}. Stop by this week for first pick!",
  },
  {
    id: "builtin-class-reminder",
    name: "Class Reminder",
    category: "fitness",
    content: "Hi {firstName|there}, your class at {business} starts in 2 hours. Bring water and see you there!",
  },
];
