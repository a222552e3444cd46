import { describe, expect, it } from "vitest";
import * as classic from "zod";
import * as z from "../../../lambdas/core/zod";

describe("lazySchema", () => {
  it("builds nothing until the schema is first used, then builds it once", () => {
    // Prepare
    let builds = 0;
    const Schema = z.lazySchema(() => {
      builds += 1;
      return z.object({ name: z.string() });
    });

    // Act
    const composed = z.object({ inner: Schema });
    const before = builds;
    const first = composed.parse({ inner: { name: "a" } });
    const second = Schema.parse({ name: "b" });

    // Assess
    expect(before).toBe(0);
    expect(first).toEqual({ inner: { name: "a" } });
    expect(second).toEqual({ name: "b" });
    expect(builds).toBe(1);
  });

  it("answers as the schema it builds: shape, extend, pick, instanceof, errors", () => {
    // Prepare
    const Schema = z.lazySchema(() => z.object({ id: z.string(), count: z.number() }));

    // Act
    const extended = z.extend(Schema, { extra: z.boolean() });
    const picked = z.pick(Schema, { id: true });
    const bad = Schema.safeParse({ id: 1, count: 2 });

    // Assess
    expect(Object.keys(Schema.shape)).toEqual(["id", "count"]);
    expect(Schema).toBeInstanceOf(z.ZodMiniObject);
    expect(extended.parse({ id: "x", count: 1, extra: true })).toEqual({ id: "x", count: 1, extra: true });
    expect(picked.parse({ id: "x", count: 1 })).toEqual({ id: "x" });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(["id"]);
  });

  it("keeps the description its builder registers, for JSON Schema and for classic zod composing it", () => {
    // Prepare
    const Schema = z.lazySchema(() =>
      z.string().register(z.globalRegistry, { description: "the thing's name" }),
    );
    const Outer = classic.object({ name: Schema });

    // Act
    const jsonSchema = z.toJSONSchema(Outer);

    // Assess
    expect(jsonSchema.properties?.name).toMatchObject({ type: "string", description: "the thing's name" });
  });

  it("serves a recursive schema that refers to itself", () => {
    // Prepare
    type Tree = { children: Tree[] };
    const TreeSchema: z.ZodMiniType<Tree> = z.lazySchema(() =>
      z.object({
        get children() {
          return z.array(TreeSchema);
        },
      }),
    );

    // Act
    const parsed = TreeSchema.safeParse({ children: [{ children: [] }, { children: "no" }] });

    // Assess
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(["children", 1, "children"]);
  });
});
