/**
 * Writes lib/config/goal-loops.config.schema.json from the zod schema: `npm run config-schema`
 * after changing the configuration's shape (a unit test fails while the two disagree).
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { CONFIG_SCHEMA_FILE, configJsonSchema } from "./config-json-schema";

const target = path.join(import.meta.dirname, "..", "..", CONFIG_SCHEMA_FILE);
writeFileSync(target, `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
console.log(`wrote ${target}`);
