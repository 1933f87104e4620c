import jpeg from "jpeg-js";
import { PNG } from "pngjs";
import { CARRIER_SAFE_BYTES, formatBytes, tooLargeMessage } from "../../shared/media/limits";
import { TooLarge } from "./resize-contract";
import type { MediaType } from "../../shared/media/sniff";

export { CARRIER_SAFE_BYTES, formatBytes };

/**
 * Pictures larger than carriers deliver are made smaller before they are stored: decoded, scaled down and written
 * as JPEG, with pure-JavaScript codecs (jpeg-js, pngjs) that work inside the single executable (no native sharp,
 * no WebAssembly file to ship beside it). A GIF is not re-encoded (it may be animated): one over the limit is refused.
 */

/** The longest side a resized picture starts from: more than a phone's screen shows. */
const FIRST_LONGEST_SIDE = 1600;
/** Tries, each 3/4 of the previous size and a little lower quality, before giving up. */
const TRIES = 7;

const tooLarge = (size: number, what: "GIF" | "file" | "picture") => new TooLarge(tooLargeMessage(size, what));

type Rgba = { width: number; height: number; data: Uint8Array };

function decode(bytes: Uint8Array, type: MediaType): Rgba {
  if (type.contentType === "image/jpeg") {
    const img = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: 100, maxMemoryUsageInMB: 1024 });
    return { width: img.width, height: img.height, data: img.data };
  }
  const png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  // JPEG has no transparency: transparent parts become white, as on a phone's light background.
  const data = png.data;
  for (let i = 0; i < data.length; i += 4) {
    const a = data[i + 3]! / 255;
    if (a === 1) continue;
    data[i] = Math.round(data[i]! * a + 255 * (1 - a));
    data[i + 1] = Math.round(data[i + 1]! * a + 255 * (1 - a));
    data[i + 2] = Math.round(data[i + 2]! * a + 255 * (1 - a));
    data[i + 3] = 255;
  }
  return { width: png.width, height: png.height, data };
}

/** Box-filter downscale (each target pixel the mean of the source pixels it covers): sharp enough, and one pass. */
function downscale(src: Rgba, longest: number): Rgba {
  const scale = Math.max(src.width, src.height) / longest;
  if (scale <= 1) return src;
  const width = Math.max(1, Math.round(src.width / scale));
  const height = Math.max(1, Math.round(src.height / scale));
  const out = new Uint8Array(width * height * 4);
  const xs = new Int32Array(width + 1);
  for (let x = 0; x <= width; x++) xs[x] = Math.min(src.width, Math.round((x * src.width) / width));
  const sums = new Float64Array(width * 3);
  const counts = new Float64Array(width);
  for (let y = 0; y < height; y++) {
    const y0 = Math.round((y * src.height) / height);
    const y1 = Math.max(y0 + 1, Math.round(((y + 1) * src.height) / height));
    sums.fill(0);
    counts.fill(0);
    for (let sy = y0; sy < y1; sy++) {
      const row = sy * src.width * 4;
      for (let x = 0; x < width; x++) {
        for (let sx = xs[x]!; sx < Math.max(xs[x]! + 1, xs[x + 1]!); sx++) {
          const p = row + sx * 4;
          sums[x * 3] = sums[x * 3]! + src.data[p]!;
          sums[x * 3 + 1] = sums[x * 3 + 1]! + src.data[p + 1]!;
          sums[x * 3 + 2] = sums[x * 3 + 2]! + src.data[p + 2]!;
          counts[x] = counts[x]! + 1;
        }
      }
    }
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      const n = counts[x]!;
      out[o] = sums[x * 3]! / n;
      out[o + 1] = sums[x * 3 + 1]! / n;
      out[o + 2] = sums[x * 3 + 2]! / n;
      out[o + 3] = 255;
    }
  }
  return { width, height, data: out };
}

/**
 * An item within the carrier-safe size: as it is when it fits, else (JPEG, PNG) scaled down and re-encoded as
 * JPEG. Throws TooLarge, naming the size and the limit, for what cannot be made small enough.
 */
export function fitForMms(bytes: Uint8Array, type: MediaType): { bytes: Uint8Array; type: MediaType } {
  if (bytes.length <= CARRIER_SAFE_BYTES) return { bytes, type };
  if (type.contentType !== "image/jpeg" && type.contentType !== "image/png") {
    throw tooLarge(bytes.length, type.image ? "GIF" : "file");
  }
  let source: Rgba;
  try {
    source = decode(bytes, type);
  } catch (err) {
    throw new TooLarge(`This picture is ${formatBytes(bytes.length)}, over the ${formatBytes(CARRIER_SAFE_BYTES)} an MMS carries, and could not be read to make it smaller (${(err as Error).message})`);
  }
  let longest = Math.min(FIRST_LONGEST_SIDE, Math.max(source.width, source.height));
  let quality = 82;
  for (let i = 0; i < TRIES; i++) {
    const scaled = downscale(source, longest);
    const out = jpeg.encode({ width: scaled.width, height: scaled.height, data: scaled.data }, quality).data;
    if (out.length <= CARRIER_SAFE_BYTES) return { bytes: new Uint8Array(out), type: { contentType: "image/jpeg", extension: "jpg", image: true } };
    longest = Math.max(64, Math.round(longest * 0.75));
    quality = Math.max(50, quality - 6);
  }
  throw tooLarge(bytes.length, "picture");
}
