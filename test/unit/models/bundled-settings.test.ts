import { describe, expect, it } from "vitest";
import {
  ContextSettingsSchema,
  DEFAULT_CONTEXT_SETTINGS,
} from "../../../lambdas/core/models/context/context-settings";
import contextFile from "../../../lambdas/core/models/context/context-settings.json" with { type: "json" };
import { MODEL_PRICES, PriceTableSchema } from "../../../lambdas/core/models/model-prices";
import priceFile from "../../../lambdas/core/models/model-prices.json" with { type: "json" };

// The Lambdas use these files as they are, unparsed: they are compiled into each bundle, so their
// schemas check them here, once, instead of at every cold start.
describe("settings files compiled into the bundles", () => {
  it("model-prices.json passes PriceTableSchema, and the prices used are the file's as the schema reads them", () => {
    // Act
    const parsed = PriceTableSchema.safeParse(priceFile);

    // Assess
    expect(parsed.error?.issues).toBeUndefined();
    expect(MODEL_PRICES).toEqual(parsed.data?.models);
  });

  it("context-settings.json passes ContextSettingsSchema, and the defaults used are the file's as the schema reads them", () => {
    // Act
    const parsed = ContextSettingsSchema.safeParse(contextFile);

    // Assess
    expect(parsed.error?.issues).toBeUndefined();
    expect(DEFAULT_CONTEXT_SETTINGS).toEqual(parsed.data);
  });
});
