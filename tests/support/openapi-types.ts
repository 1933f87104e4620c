/**
 * Writes the TypeScript types openapi-typescript generates for an OpenAPI document: `bun tests/support/openapi-types.ts
 * <document.json> <out.ts>`. openapi-typescript prints with TypeScript 5's compiler API (`import ts from
 * "typescript"`), which the project's TypeScript 7 no longer has; TypeScript 5.9 is installed as "typescript5", so
 * this process (and only it) resolves "typescript" to that before loading the generator.
 */
import { plugin } from "bun";

const typescript5 = require.resolve("typescript5");
plugin({
  name: "typescript 5 for openapi-typescript",
  setup(build) {
    // Runtime plugins see loads, not resolutions of packages: the module "typescript" resolves to is swapped.
    build.onLoad({ filter: /[\\/]node_modules[\\/]typescript[\\/]lib[\\/]version\.cjs$/ }, () => ({
      contents: `export { default } from ${JSON.stringify(typescript5)};`,
      loader: "js",
    }));
  },
});

const [input, output] = process.argv.slice(2);
if (!input || !output) throw new Error("usage: bun tests/support/openapi-types.ts <document.json> <out.ts>");
const { default: openapiTS, astToString } = await import("openapi-typescript");
await Bun.write(output, astToString(await openapiTS(await Bun.file(input).text())));
