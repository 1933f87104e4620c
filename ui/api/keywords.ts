/** Text-to-join keywords, their totals and the "what would fire" tester: /api/keywords/*. */
import { api } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { Ok, Routes } from "./types";

type Keywords = Routes["api"]["keywords"];

export type KeywordList = Ok<Keywords["get"]>;
export type Keyword = KeywordList["data"][number];
export type KeywordTotals = KeywordList["totals"];
export type KeywordTestResult = Ok<Keywords["test"]["post"]>;

/** What the create/edit modal sends; fields left out of an edit keep their values. */
export type KeywordInput = {
  keyword: string;
  autoReply: string;
  shortCode: string | null;
  alreadyReply: string | null;
  tags: string[];
  matchMode: "whole" | "first_word";
  numbers: string[];
  doubleOptIn: boolean;
  /** Links in the replies go out as short links (issue 32); off: as written. */
  shortenLinks: boolean;
};

export const useKeywords = () => useApi<KeywordList>("/api/keywords");

export const createKeyword = (body: KeywordInput) => api<Keyword>("/api/keywords", { body });

export const updateKeyword = (id: string, body: KeywordInput) => api<Keyword>(`/api/keywords/${id}`, { method: "PUT", body });

export const toggleKeyword = (id: string, isActive: boolean) => api<Keyword>(`/api/keywords/${id}/toggle`, { body: { isActive } });

/** Which rule fires if someone texts `text` to `number` ("" for any number); nothing is sent. */
export const testKeyword = (number: string, text: string) => api<KeywordTestResult>("/api/keywords/test", { body: { number, text } });
