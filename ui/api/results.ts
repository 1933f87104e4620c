/** The dashboards' figures and charts, and the prices per segment and per MMS of each provider account: /api/results/*. */
import { api } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { Ok, Routes } from "./types";

type Results = Routes["api"]["results"];
type Prices = Routes["api"]["sms-providers"]["segment-prices"];

export type Overview = Ok<Results["overview"]["get"]>;
export type Figures = Overview["allTime"];
export type Comparison = Overview["week"];
export type Series = Ok<Results["series"]["get"]>;
export type Range = 7 | 30 | 90;
export const RANGES: Range[] = [7, 30, 90];
export type SegmentPrice = Ok<Prices["get"]>["data"][number];

/** Cards and comparisons of the homes and the dashboard. */
export const useOverview = () => useApi<Overview>("/api/results/overview");

/** The charts' data for the last `days` days in the account's zone. */
export const useSeries = (days: Range) => useApi<Series>(`/api/results/series?days=${days}`);

export const useSegmentPrices = () => useApi<Ok<Prices["get"]>>("/api/sms-providers/segment-prices");

/** Sets a provider account's price per segment in millionths of a dollar; null puts its default back. */
export const setSegmentPrice = (providerId: string, priceMicros: number | null) =>
  api<SegmentPrice>(`/api/sms-providers/${encodeURIComponent(providerId)}/segment-price`, { method: "PUT", body: { priceMicros } });

/** Sets a provider account's price per MMS in millionths of a dollar; null puts its default back (400 for a provider that sends no MMS). */
export const setMmsPrice = (providerId: string, priceMicros: number | null) =>
  api<SegmentPrice>(`/api/sms-providers/${encodeURIComponent(providerId)}/mms-price`, { method: "PUT", body: { priceMicros } });
