import { lazy, type ComponentType } from "react";

const RELOADED_KEY = "smsdesk-chunk-reload";

/**
 * A screen (or the signed-in app's layout) loaded on demand: the bundler puts what only it imports into a chunk of
 * its own, fetched the first time it renders, so a visitor of the public pages never downloads the app.
 *
 * A page opened before the appliance was upgraded asks for chunks the new build no longer has (the service worker
 * keeps them, but plain http on a LAN address has no service worker): the page then reloads once into the new
 * version instead of showing an error.
 */
export function lazyNamed<M, K extends keyof M>(load: () => Promise<M>, name: K): M[K] {
  return lazy(async () => {
    try {
      const module = await load();
      sessionStorage.removeItem(RELOADED_KEY);
      return { default: module[name] as ComponentType<any> };
    } catch (err) {
      if (!navigator.onLine || sessionStorage.getItem(RELOADED_KEY)) throw err;
      sessionStorage.setItem(RELOADED_KEY, "1");
      location.reload();
      // The loader stays up until the new page replaces this one.
      return new Promise<never>(() => {});
    }
  }) as M[K];
}
