import { useSignals } from "@preact/signals-react/runtime";
import { useNavigate } from "@tanstack/react-router";
import { Modal } from "../../components/ui";
import { authModal, closeAuthModal } from "../../lib/auth-modal";
import { AuthTabs } from "./auth-tabs";

export function AuthModal() {
  useSignals();
  const navigate = useNavigate();
  const { open, tab } = authModal.value;
  const done = (to: string) => {
    closeAuthModal();
    void navigate({ to });
  };
  return (
    <Modal open={open} onClose={closeAuthModal} title="Welcome to smsdesk">
      <AuthTabs key={tab} initialTab={tab} onSignedIn={() => done("/")} onRegistered={() => done("/onboarding")} />
    </Modal>
  );
}
