/** dynalite 4 ships no types: the part of its API the local runtime and the tests use. */
declare module "dynalite" {
  import type { Server } from "node:http";

  interface DynaliteOptions {
    /** LevelDB directory; in memory when absent. */
    path?: string;
    /** How long tables stay CREATING / DELETING / UPDATING. @default 500 */
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
    ssl?: boolean;
    verbose?: boolean;
    debug?: boolean;
  }

  function dynalite(options?: DynaliteOptions): Server;
  export = dynalite;
}
