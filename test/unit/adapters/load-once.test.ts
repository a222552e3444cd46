import { describe, expect, it } from "vitest";
import { loadOnce } from "../../../lambdas/adapters/shared/load-once";

describe("loadOnce", () => {
  it("loads on first use and keeps the value; a failed load is tried again on the next use", async () => {
    // Prepare
    let loads = 0;
    const value = loadOnce(async () => {
      loads += 1;
      if (loads === 1) throw new Error("module not found");
      return { loaded: loads };
    });

    // Act
    const first = await value().catch((error: unknown) => error);
    const second = await value();
    const third = await value();

    // Assess
    expect(first).toMatchObject({ message: "module not found" });
    expect(second).toEqual({ loaded: 2 });
    expect(third).toBe(second);
    expect(loads).toBe(2);
  });
});
