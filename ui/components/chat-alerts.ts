/**
 * What an inbound text does when nobody is looking at the tab: a desktop notification (only once the user has said
 * yes, asked from a button, never on page load) and a short two-note chime made with WebAudio (no sound file).
 */

let audio: AudioContext | null = null;

/**
 * Browsers only let a page make sound after the user has interacted with it: the context is created on the first
 * click or key press, so that a chime can play later while the tab is in the background.
 */
export function unlockSoundOnFirstGesture() {
  const unlock = () => {
    if (!audio && typeof AudioContext !== "undefined") audio = new AudioContext();
    void audio?.resume();
    window.removeEventListener("pointerdown", unlock);
    window.removeEventListener("keydown", unlock);
  };
  window.addEventListener("pointerdown", unlock);
  window.addEventListener("keydown", unlock);
}

/** Two soft sine notes, 0.3 s in all. Silently nothing when the page has had no gesture yet. */
export function playChime() {
  if (!audio || audio.state === "closed") return;
  const start = audio.currentTime;
  for (const [offset, freq] of [
    [0, 880],
    [0.14, 1320],
  ] as const) {
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = "sine";
    osc.frequency.value = freq;
    // A quick fade in and out: a plain start and stop clicks.
    gain.gain.setValueAtTime(0.0001, start + offset);
    gain.gain.exponentialRampToValueAtTime(0.15, start + offset + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + offset + 0.16);
    osc.connect(gain).connect(audio.destination);
    osc.start(start + offset);
    osc.stop(start + offset + 0.17);
  }
}

export const notificationsSupported = () => typeof Notification !== "undefined";

/** "default" means the browser has not asked yet: the popup offers a button for it. */
export const notificationPermission = (): NotificationPermission | "unsupported" =>
  notificationsSupported() ? Notification.permission : "unsupported";

export async function askNotificationPermission(): Promise<NotificationPermission | "unsupported"> {
  if (!notificationsSupported()) return "unsupported";
  return Notification.requestPermission();
}

/** A desktop notification that brings the tab forward when clicked; one per conversation (a newer one replaces it). */
export function notifyDesktop(title: string, body: string, tag: string, onClick: () => void) {
  if (notificationPermission() !== "granted") return;
  const n = new Notification(title, { body, tag, icon: "/favicon.svg" });
  n.onclick = () => {
    window.focus();
    onClick();
    n.close();
  };
}

/** True when the user would not see the popup open: another tab, a minimised window, or another window focused. */
export const pageUnattended = () => document.hidden || !document.hasFocus();
