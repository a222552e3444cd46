import { MemoryTenantStore } from "../support/memory-tenant-store";
import { describeTenantStoreContract } from "./tenant-store.contract";

describeTenantStoreContract("in memory", async () => ({
  store: new MemoryTenantStore(),
  close: async () => {},
}));
