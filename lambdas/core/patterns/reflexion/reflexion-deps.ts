import type { LoopSettings } from "../../loop/loop-deps";

/** Reflexion's steps read the same settings as every loop's: default tools, model tiers, continue-as-new. */
export type ReflexionSettings = LoopSettings;
