import { useNavigate } from "@tanstack/react-router";
import { useEffect } from "react";

/** `<Navigate>` for an address with its query and hash (its `to` takes a route path only). */
export function NavigateHref({ href, replace = false }: { href: string; replace?: boolean }) {
  const navigate = useNavigate();
  useEffect(() => {
    void navigate({ href, replace });
  }, [href, replace, navigate]);
  return null;
}
