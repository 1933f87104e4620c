import { lazy, type ComponentType } from "react";

/**
 * A screen (or the signed-in app's layout) loaded on demand: the bundler puts what only it imports into a chunk of
 * its own, fetched the first time it renders, so a visitor of the public pages never downloads the app.
 */
export function lazyNamed<M, K extends keyof M>(load: () => Promise<M>, name: K): M[K] {
  return lazy(async () => ({ default: (await load())[name] as ComponentType<any> })) as M[K];
}
