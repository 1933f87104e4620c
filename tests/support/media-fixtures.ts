import jpeg from "jpeg-js";

/**
 * Pictures for the MMS tests, made here rather than kept as binary files: a photo-like JPEG (smooth gradients
 * under fine grain, which compresses as badly as a real phone photo) of about the size asked, and a small one.
 */
export function photoJpeg(width: number, height: number, quality = 92, seed = 1): Uint8Array {
  const data = new Uint8Array(width * height * 4);
  let s = seed >>> 0;
  const rand = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const grain = (rand() - 0.5) * 90;
      data[i] = Math.max(0, Math.min(255, (x / width) * 200 + 30 + grain));
      data[i + 1] = Math.max(0, Math.min(255, (y / height) * 180 + 40 + grain));
      data[i + 2] = Math.max(0, Math.min(255, ((x + y) / (width + height)) * 220 + grain));
      data[i + 3] = 255;
    }
  }
  return new Uint8Array(jpeg.encode({ width, height, data }, quality).data);
}
