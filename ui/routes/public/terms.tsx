import { Link } from "@tanstack/react-router";
import { PolicyPage } from "./shared";

const SECTIONS = [
  { id: "service", title: "1. The service" },
  { id: "accounts", title: "2. Accounts" },
  { id: "use", title: "3. Acceptable use" },
  { id: "providers", title: "4. Your SMS provider" },
  { id: "plans", title: "5. Plans, trial and payment" },
  { id: "availability", title: "6. Availability" },
  { id: "data", title: "7. Your data" },
  { id: "termination", title: "8. Termination" },
  { id: "liability", title: "9. Warranties and liability" },
  { id: "changes", title: "10. Changes and contact" },
];

export function TermsPage() {
  return (
    <PolicyPage
      title="Terms of Service"
      intro="The agreement between you and the operator of this smsdesk installation."
      sections={SECTIONS}
    >
      <p>
        These terms apply when you create an account on this smsdesk installation or use it to send messages. By creating an
        account you agree to them. “We” means the operator of this installation; “you” means the person or business holding the
        account.
      </p>

      <h2 id="service">1. The service</h2>
      <p>
        smsdesk lets you manage contacts, send SMS campaigns, hold two-way text conversations, collect opt-ins with keywords and
        automate messages. Messages are sent through an SMS provider account that you connect. The software runs on a server
        operated by us, or by you if you host it yourself.
      </p>

      <h2 id="accounts">2. Accounts</h2>
      <ul>
        <li>You must give accurate information, verify your email address and keep your password secret.</li>
        <li>You are responsible for everything done with your account, including by people you share access with.</li>
        <li>
          Tell us at once if you believe your account has been used without permission. We recommend turning on two-factor
          authentication.
        </li>
      </ul>

      <h2 id="use">3. Acceptable use</h2>
      <p>You may only text people who have agreed to receive your messages. You agree that you will not:</p>
      <ul>
        <li>send messages to numbers bought, rented, scraped or otherwise obtained without consent;</li>
        <li>send unlawful, deceptive, harassing or hateful content, or content that infringes anyone's rights;</li>
        <li>disable, hide or work around opt-out handling, or message anyone who has opted out;</li>
        <li>
          break the messaging rules that apply to you, such as the TCPA and CTIA guidelines in the United States or equivalent
          laws elsewhere;
        </li>
        <li>try to access other accounts, probe or overload the service, or resell it without our written permission.</li>
      </ul>
      <p>
        smsdesk handles STOP and similar replies, applies quiet hours and records consent to help you comply, but you remain
        responsible for the messages you send and for the consent of the people you send them to. We may suspend sending from an
        account that breaks these rules.
      </p>

      <h2 id="providers">4. Your SMS provider</h2>
      <p>
        Your account with Twilio, Telnyx, Brevo, TextMagic, ClickSend or another supported provider is a separate agreement
        between you and that provider. Their terms, registration requirements and per-message charges apply to the messages you
        send. We are not responsible for a provider's delivery, outages, filtering or pricing.
      </p>

      <h2 id="plans">5. Plans, trial and payment</h2>
      <ul>
        <li>New accounts can try smsdesk free for 14 days; no credit card is needed for the trial.</li>
        <li>
          Each plan includes a monthly allowance of messages, contacts and phone numbers, shown on the{" "}
          <Link to="/pricing">pricing page</Link>. You are notified when you reach 80% of a limit.
        </li>
        <li>Messages beyond your monthly allowance are charged at $0.02 per message.</li>
        <li>
          Fees are billed monthly in advance and are non-refundable except where the law requires otherwise. A license code grants
          the plan and term it was issued for.
        </li>
        <li>We will give at least 30 days' notice of any change in price.</li>
      </ul>

      <h2 id="availability">6. Availability</h2>
      <p>
        For installations we operate, we target 99.9% monthly uptime, excluding scheduled maintenance announced in advance and
        events outside our reasonable control. For installations you host yourself, availability depends on your own server and
        network. Message delivery also depends on your SMS provider and the mobile networks.
      </p>

      <h2 id="data">7. Your data</h2>
      <p>
        Your contacts, messages and settings belong to you. We use them only to provide the service, as described in the{" "}
        <Link to="/privacy">Privacy Policy</Link>. You can ask us for a copy of your data at any time while your account is
        active.
      </p>

      <h2 id="termination">8. Termination</h2>
      <p>
        You may close your account at any time. We may suspend or close an account that seriously or repeatedly breaks these
        terms, with notice where possible. After termination, your data is deleted within 30 days, apart from records we must keep
        by law. Ask us for a copy of anything you need before you close your account.
      </p>

      <h2 id="liability">9. Warranties and liability</h2>
      <p>
        We provide the service with reasonable skill and care, but we do not guarantee that it will be free of errors or that
        every message will be delivered. To the extent the law allows, our total liability to you for any claim arising from the
        service is limited to the fees you paid us in the 12 months before the claim arose, and we are not liable for indirect or
        consequential losses such as lost profits. Nothing in these terms limits liability that cannot be limited by law.
      </p>

      <h2 id="changes">10. Changes and contact</h2>
      <p>
        We may update these terms. We will announce material changes in the application at least 30 days before they take effect;
        continuing to use the service after that means you accept them.
      </p>
      <p>
        Questions about these terms? <Link to="/contact">Contact us</Link>. You can also return to the{" "}
        <Link to="/">home page</Link>.
      </p>
    </PolicyPage>
  );
}
