import { MemoryCapacityStore } from "../support/memory-capacity-store";
import { describeCapacityContract } from "./capacity-governor.contract";

describeCapacityContract("in memory", async () => ({
  store: new MemoryCapacityStore(),
  close: async () => {},
}));
