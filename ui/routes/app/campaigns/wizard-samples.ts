import type { CampaignType } from "../../../lib/search";

export type { CampaignType };

export const CAMPAIGN_TYPES: { id: CampaignType; label: string; description: string; samples: string[] }[] = [
  {
    id: "promotion",
    label: "Promotion",
    description: "Sales, offers and discount codes",
    samples: [
      "Hi [Name]! This weekend only: 20% off everything at [Business]. Show this text at checkout. Ends Sunday.",
      "Flash sale at [Business]! Buy one, get one half price on all items today until 6 PM. See you soon!",
      "[Name], our spring collection just arrived at [Business]. Reply YES to reserve your favourite before it sells out.",
      "Thanks for being a customer, [Name]! Use code THANKS15 for 15% off your next visit to [Business]. Valid all month.",
    ],
  },
  {
    id: "reminder",
    label: "Reminder",
    description: "Appointments, pickups and events",
    samples: [
      "Hi [Name], a reminder of your appointment at [Business] tomorrow. Reply C to confirm or R to reschedule.",
      "[Name], your order is ready for pickup at [Business]. We're open until 7 PM today.",
      "Don't forget: our customer evening at [Business] is this Thursday at 6 PM. We'd love to see you, [Name]!",
      "Hi [Name], it's been 6 months since your last visit to [Business]. Reply BOOK and we'll find a time that suits you.",
    ],
  },
  {
    id: "update",
    label: "Update",
    description: "News, opening hours and announcements",
    samples: [
      "[Business] news: from next Monday we're open until 8 PM on weekdays. See you soon, [Name]!",
      "Hi [Name], [Business] is closed on Monday for the public holiday. We reopen Tuesday at 9 AM.",
      "Good news from [Business]: you can now book your next visit online, any time of day.",
      "[Name], we've moved! [Business] is now at 24 Market Street, two doors down. Same team, more space.",
    ],
  },
  {
    id: "welcome",
    label: "Welcome",
    description: "Greet new subscribers and customers",
    samples: [
      "Welcome to [Business], [Name]! Thanks for joining our texts. Expect offers and news about twice a month.",
      "Hi [Name], thanks for signing up! Here's 10% off your first order at [Business] with code WELCOME10.",
      "You're in, [Name]! As a [Business] text member you'll hear about our sales before anyone else.",
      "Welcome, [Name]! Save this number: text us here any time with questions for the [Business] team.",
    ],
  },
];

export const typeLabel = (id: string) => CAMPAIGN_TYPES.find((t) => t.id === id)?.label ?? "Campaign";
