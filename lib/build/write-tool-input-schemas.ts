/**
 * Writes lambdas/tools/built-in-tool-input-schemas.json from the built-in tools' zod input schemas:
 * `npm run tool-schemas` after changing a tool's input (a unit test fails while the two disagree).
 * The Lambdas read the file instead of converting at run time (tool-input-json-schema.ts says why).
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { builtInToolInputSchemas } from "../../lambdas/tools/tool-input-json-schema";

const target = path.join(
  import.meta.dirname,
  "..",
  "..",
  "lambdas",
  "tools",
  "built-in-tool-input-schemas.json",
);
writeFileSync(target, `${JSON.stringify(builtInToolInputSchemas(), null, 2)}\n`);
console.log(`wrote ${target}`);
