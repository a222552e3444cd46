// The worker thread's entry: tsx's loader registered in this thread (worker threads do not inherit
// the main thread's loader hooks), then the baseline's steps, which are TypeScript.
import { register } from "tsx/esm/api";

register();
await import("./in-process-steps.ts");
