import * as z from "zod";
import { GoalLoopsConfigSchema } from "./goal-loops-config";

/** Where the generated JSON Schema of the configuration file is committed, for editors. */
export const CONFIG_SCHEMA_FILE = "lib/config/goal-loops.config.schema.json";

/**
 * The configuration file's JSON Schema (draft-07, which editors support best), generated from the
 * zod schema: the input side, where every field may be left out.
 */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(GoalLoopsConfigSchema, { io: "input", target: "draft-7" }) as Record<string, unknown>;
}
