import { computed } from "@preact/signals-react";
import { useEffect, useRef } from "react";
import { liveState, subscribe, type LiveEventType, type LiveFrame, type ResetFrame } from "../lib/live";

/** The socket is up: pushes arrive, nothing needs to poll. */
export const liveConnected = computed(() => liveState.value === "connected");

type FrameOf<T extends LiveEventType> = T extends LiveFrame["type"]
  ? Extract<LiveFrame, { type: T }>
  : ResetFrame;

/** Calls the latest `handler` with each frame of `type` while the component is mounted. */
export function useLiveEvent<T extends LiveEventType>(type: T, handler: (frame: FrameOf<T>) => void) {
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => subscribe(type, (frame) => latest.current(frame as FrameOf<T>)), [type]);
}
