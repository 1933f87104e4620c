import { CODE_ALPHABET, CODE_LENGTH } from "../../shared/links/text";

/**
 * A short link's code from its row's id and back (issue 32): a keyed permutation of the 62^7 codes, so the row is
 * found by its integer key (no index of random codes to write at every message) while codes stay as unguessable
 * as drawn ones to anyone without the installation's key (src/links/links.ts keeps it in short_link_keys).
 *
 * The permutation is a balanced Feistel network of ROUNDS rounds over 42 bits, each round's function SipHash-2-4
 * (a keyed pseudo-random function made for short inputs) of the round's number and half, walked in cycles until it
 * lands below 62^7 (about 1.25 steps on average), as format-preserving encryption does. Pure, with no imports but
 * the alphabet: the redirect decodes with it, the outbox encodes.
 */

/** How many codes there are: 62^7, about 3.5 * 10^12 (ids from 0 to CODES - 1 have one). */
export const CODES = 62 ** CODE_LENGTH;
const HALF = 2 ** 21;
const MASK = HALF - 1;
const ROUNDS = 8;

/** SipHash-2-4's key as four 32-bit words (k0 low, k0 high, k1 low, k1 high). */
export type CodeKey = Uint32Array;

/** A key from 32 hexadecimal digits (16 bytes, little-endian words as SipHash reads them). */
export function codeKey(hex: string): CodeKey {
  if (!/^[0-9a-f]{32}$/.test(hex)) throw new Error("a short-link key is 32 lowercase hexadecimal digits");
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 16; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  const view = new DataView(bytes.buffer);
  return new Uint32Array([view.getUint32(0, true), view.getUint32(4, true), view.getUint32(8, true), view.getUint32(12, true)]);
}

/** A new random key, as codeKey reads it. */
export const newCodeKey = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");

/** SipHash's state v0..v3 as (low, high) 32-bit halves: v[0] v0 low, v[1] v0 high, ... v[7] v3 high. */
const v = new Int32Array(8);

/** `n` SipRounds on the state. */
function sipRounds(n: number) {
  let v0l = v[0]!, v0h = v[1]!, v1l = v[2]!, v1h = v[3]!, v2l = v[4]!, v2h = v[5]!, v3l = v[6]!, v3h = v[7]!;
  let s: number, a: number, b: number;
  for (let r = 0; r < n; r++) {
    // v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32)
    s = (v0l + v1l) | 0;
    v0h = (v0h + v1h + (((v0l & v1l) | ((v0l | v1l) & ~s)) >>> 31)) | 0;
    v0l = s;
    a = ((v1h << 13) | (v1l >>> 19)) | 0;
    b = ((v1l << 13) | (v1h >>> 19)) | 0;
    v1h = (a ^ v0h) | 0;
    v1l = (b ^ v0l) | 0;
    a = v0h;
    v0h = v0l;
    v0l = a;
    // v2 += v3; v3 = rotl(v3, 16); v3 ^= v2
    s = (v2l + v3l) | 0;
    v2h = (v2h + v3h + (((v2l & v3l) | ((v2l | v3l) & ~s)) >>> 31)) | 0;
    v2l = s;
    a = ((v3h << 16) | (v3l >>> 16)) | 0;
    b = ((v3l << 16) | (v3h >>> 16)) | 0;
    v3h = (a ^ v2h) | 0;
    v3l = (b ^ v2l) | 0;
    // v0 += v3; v3 = rotl(v3, 21); v3 ^= v0
    s = (v0l + v3l) | 0;
    v0h = (v0h + v3h + (((v0l & v3l) | ((v0l | v3l) & ~s)) >>> 31)) | 0;
    v0l = s;
    a = ((v3h << 21) | (v3l >>> 11)) | 0;
    b = ((v3l << 21) | (v3h >>> 11)) | 0;
    v3h = (a ^ v0h) | 0;
    v3l = (b ^ v0l) | 0;
    // v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32)
    s = (v2l + v1l) | 0;
    v2h = (v2h + v1h + (((v2l & v1l) | ((v2l | v1l) & ~s)) >>> 31)) | 0;
    v2l = s;
    a = ((v1h << 17) | (v1l >>> 15)) | 0;
    b = ((v1l << 17) | (v1h >>> 15)) | 0;
    v1h = (a ^ v2h) | 0;
    v1l = (b ^ v2l) | 0;
    a = v2h;
    v2h = v2l;
    v2l = a;
  }
  v[0] = v0l; v[1] = v0h; v[2] = v1l; v[3] = v1h; v[4] = v2l; v[5] = v2h; v[6] = v3l; v[7] = v3h;
}

/**
 * SipHash-2-4 of one 8-byte message (mLo, mHi little-endian words), answering the output's low 32 bits. 64-bit
 * words are kept as pairs of 32-bit halves.
 */
export function sipHash8(k: CodeKey, mLo: number, mHi: number): number {
  v[0] = k[0]! ^ 0x70736575;
  v[1] = k[1]! ^ 0x736f6d65;
  v[2] = k[2]! ^ 0x6e646f6d;
  v[3] = k[3]! ^ 0x646f7261;
  v[4] = k[0]! ^ 0x6e657261;
  v[5] = k[1]! ^ 0x6c796765;
  v[6] = k[2]! ^ 0x79746573 ^ mLo;
  v[7] = k[3]! ^ 0x74656462 ^ mHi;
  sipRounds(2);
  v[0] ^= mLo;
  v[1] ^= mHi;
  // The last block: the message's length (8) in the top byte.
  v[7] ^= 0x08000000;
  sipRounds(2);
  v[1] ^= 0x08000000;
  v[4] ^= 0xff;
  sipRounds(4);
  return (v[0]! ^ v[2]! ^ v[4]! ^ v[6]!) >>> 0;
}

function encrypt(k: CodeKey, x: number): number {
  let l = Math.floor(x / HALF);
  let r = x % HALF;
  for (let i = 0; i < ROUNDS; i++) {
    const f = sipHash8(k, r, i) & MASK;
    const next = (l ^ f) | 0;
    l = r;
    r = next;
  }
  return l * HALF + r;
}

function decrypt(k: CodeKey, y: number): number {
  let l = Math.floor(y / HALF);
  let r = y % HALF;
  for (let i = ROUNDS - 1; i >= 0; i--) {
    const prev = (r ^ (sipHash8(k, l, i) & MASK)) | 0;
    r = l;
    l = prev;
  }
  return l * HALF + r;
}

/** The code of a row's id (0 <= id < CODES). */
export function codeOf(k: CodeKey, id: number): string {
  if (!Number.isInteger(id) || id < 0 || id >= CODES) throw new Error(`no short-link code for id ${id}`);
  let y = encrypt(k, id);
  while (y >= CODES) y = encrypt(k, y);
  let code = "";
  for (let i = 0; i < CODE_LENGTH; i++) {
    code = CODE_ALPHABET[y % 62]! + code;
    y = Math.floor(y / 62);
  }
  return code;
}

const DIGIT = new Map([...CODE_ALPHABET].map((c, i) => [c, i]));

/** The id a code stands for, or null when it is not a code (wrong length or character). */
export function idOf(k: CodeKey, code: string): number | null {
  if (code.length !== CODE_LENGTH) return null;
  let y = 0;
  for (const c of code) {
    const d = DIGIT.get(c);
    if (d === undefined) return null;
    y = y * 62 + d;
  }
  let x = decrypt(k, y);
  while (x >= CODES) x = decrypt(k, x);
  return x;
}
