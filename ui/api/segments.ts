/** Saved segments of contacts and the quick-start templates: /api/segments/*. */
import { api } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { Ok, Routes } from "./types";

type Segments = Routes["api"]["segments"];

export type SegmentView = Ok<Segments["get"]>["data"][number];
export type Conditions = Record<string, Record<string, unknown>>;
/** Written out: the server's templates are literal objects, each with only its own fields. */
export type SegmentTemplate = { id: string; name: string; description: string; conditions: Conditions };

export const useSegments = () => useApi<Ok<Segments["get"]>>("/api/segments");

export const useSegmentTemplates = () => useApi<{ data: SegmentTemplate[] }>("/api/segments/templates");

export const createSegment = (name: string, conditions: Conditions) => api("/api/segments", { body: { name, conditions } });

/** Counts the segment's contacts again. */
export const refreshSegment = (id: string) => api(`/api/segments/${id}/refresh`, { method: "POST" });

export const deleteSegment = (id: string) => api(`/api/segments/${id}`, { method: "DELETE" });
