import { RouterProvider } from "@tanstack/react-router";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { ErrorBoundary } from "./components/error-boundary";
import { forgetStoredTokens, refreshUser } from "./lib/auth";
import { startPwa } from "./lib/pwa";
import { router } from "./router";

forgetStoredTokens();
void refreshUser();
startPwa();
window.addEventListener("focus", () => void refreshUser());

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <ErrorBoundary>
      <RouterProvider router={router} />
    </ErrorBoundary>
  </StrictMode>,
);
