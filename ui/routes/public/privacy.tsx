import { Link } from "@tanstack/react-router";
import { PolicyPage } from "./shared";

const SECTIONS = [
  { id: "who", title: "1. Who is responsible" },
  { id: "collect", title: "2. What we collect" },
  { id: "use", title: "3. How the data is used" },
  { id: "share", title: "4. Who receives data" },
  { id: "security", title: "5. How data is protected" },
  { id: "storage", title: "6. Cookies and browser storage" },
  { id: "retention", title: "7. How long data is kept" },
  { id: "rights", title: "8. Your rights" },
  { id: "recipients", title: "9. People you send messages to" },
  { id: "changes", title: "10. Changes and contact" },
];

export function PrivacyPage() {
  return (
    <PolicyPage
      title="Privacy Policy"
      intro="How smsdesk handles the information of account holders and of the people they text."
      sections={SECTIONS}
    >
      <p>
        smsdesk is software that runs on a server chosen by the organisation that operates this installation (the “operator”).
        Your account, your contacts and your messages are stored in that installation's database, not in a shared cloud service.
        This policy explains what is stored, why, and the choices you have.
      </p>

      <h2 id="who">1. Who is responsible</h2>
      <p>
        The operator of this installation decides how it is run and is responsible for the personal data it holds. If you are a
        business using smsdesk to text your customers, you are responsible for your contact list and for having your customers'
        consent, and the operator processes that list on your behalf.
      </p>

      <h2 id="collect">2. What we collect</h2>
      <ul>
        <li>
          <strong>Account details:</strong> your name, email address, optional phone number, company information you give during
          setup, and your time zone, language and date format preferences.
        </li>
        <li>
          <strong>Sign-in data:</strong> a password hash (never the password itself), two-factor settings, registered passkeys and
          active sessions.
        </li>
        <li>
          <strong>Your business data:</strong> contacts you add or import, campaigns, templates, keywords, automation rules,
          segments, conversations and the delivery results reported by your SMS provider.
        </li>
        <li>
          <strong>Consent records:</strong> each opt-in and opt-out, with its time and source.
        </li>
        <li>
          <strong>Integration settings:</strong> SMS provider credentials, phone numbers, API keys and webhook addresses.
        </li>
        <li>
          <strong>Support and error reports:</strong> messages you send through the contact form and error reports you choose to
          send from an error screen, which include the page address, browser details and the technical error.
        </li>
      </ul>
      <p>smsdesk does not include advertising trackers, and it does not sell or rent personal data.</p>

      <h2 id="use">3. How the data is used</h2>
      <ul>
        <li>To provide the service: sign you in, send the messages you ask it to send and show you the results.</li>
        <li>To keep messaging lawful: honour opt-outs, apply quiet hours and keep the consent log.</li>
        <li>To send account emails such as verification codes and password-reset links.</li>
        <li>To enforce the limits of your plan and warn you when you reach 80% of them.</li>
        <li>To answer your support requests and fix the errors you report.</li>
      </ul>

      <h2 id="share">4. Who receives data</h2>
      <p>Data leaves the installation only where it has to for the service to work:</p>
      <ul>
        <li>
          <strong>Your SMS provider</strong> (Twilio, Telnyx, Brevo, TextMagic or ClickSend, as you choose) receives the recipient
          numbers and message text of the messages you send, under your own agreement with that provider.
        </li>
        <li>
          <strong>The operator's email provider</strong> receives your email address to deliver account emails.
        </li>
        <li>
          <strong>Google</strong>, only if you choose Continue with Google, to confirm your identity.
        </li>
        <li>
          <strong>Services you connect</strong> through API keys or webhooks receive the events you configure.
        </li>
        <li>Authorities, where the law requires it.</li>
      </ul>

      <h2 id="security">5. How data is protected</h2>
      <ul>
        <li>Passwords are hashed with argon2id; API keys and two-factor backup codes are stored only as hashes.</li>
        <li>SMS provider credentials are encrypted at rest with AES-256-GCM, using a key kept outside the database.</li>
        <li>
          Every account's data is kept separate: one account can never read another account's contacts, messages or settings.
        </li>
        <li>Optional two-factor authentication and passkeys protect sign-in.</li>
      </ul>
      <p>
        Because smsdesk is self-hosted, the security of the server itself, its backups and its network connection is the
        responsibility of the operator.
      </p>

      <h2 id="storage">6. Cookies and browser storage</h2>
      <p>smsdesk uses only what it needs to work:</p>
      <ul>
        <li>
          A session cookie keeps you signed in. Scripts on the page cannot read it, and no session token is kept in your
          browser's storage.
        </li>
        <li>A second cookie, which holds no secret, tells the page that you are signed in.</li>
        <li>
          Your browser's storage keeps a few choices on screen (a closed chat popup, a postponed install card) and, for
          one tab, the page to return to after Google sign-in.
        </li>
      </ul>
      <p>There are no advertising or cross-site tracking cookies.</p>

      <h2 id="retention">7. How long data is kept</h2>
      <p>
        Account and business data is kept while your account is active. When an account is closed, its data is deleted within 30
        days, except where the law requires the operator to keep a record for longer. Consent records are kept for as long as you
        may need them to show that a message was sent with permission. Backups made by the operator are overwritten on the
        operator's backup schedule.
      </p>

      <h2 id="rights">8. Your rights</h2>
      <p>
        Depending on where you live, you may have the right to access, correct, export or delete your personal data, to object to
        or restrict its use, and to complain to a data protection authority. You can change most account details yourself in
        Account Settings. For anything else, <Link to="/contact">contact us</Link> and we will respond within 30 days.
      </p>

      <h2 id="recipients">9. People you send messages to</h2>
      <p>
        If you received a text sent with smsdesk, the business that sent it controls your number and decides what it sends. Reply
        STOP at any time to stop receiving its messages; the opt-out takes effect immediately and is recorded. Reply HELP for the
        sender's contact details.
      </p>

      <h2 id="changes">10. Changes and contact</h2>
      <p>
        We will update this policy when the way smsdesk handles data changes, and change the date at the top. Significant changes
        are announced in the application before they take effect.
      </p>
      <p>
        Questions about privacy? <Link to="/contact">Contact us</Link>, or read the <Link to="/terms">Terms of Service</Link>.
      </p>
    </PolicyPage>
  );
}
