import { flattenReferences } from "./template-queries";

interface TemplateJson {
  readonly Resources: Readonly<
    Record<string, { readonly Type: string; readonly Properties?: Record<string, unknown> }>
  >;
}

/**
 * A resolved reference of at most this many characters (a logical id's physical name, an API id,
 * a region …): the largest CloudFormation gives. Sizes are the worst case, not a guess of the mean.
 */
const REFERENCE_CHARS = 64;

/**
 * The size in bytes of each function's resource policy as Lambda holds it (one statement per
 * `AWS::Lambda::Permission`), by function; Lambda refuses a policy above 20 KB. Every reference is
 * counted at REFERENCE_CHARS, every statement id at the 100 characters CloudFormation may give it.
 */
export function functionPolicySizes(template: TemplateJson): Map<string, number> {
  const statements = new Map<string, unknown[]>();
  for (const resource of Object.values(template.Resources)) {
    if (resource.Type !== "AWS::Lambda::Permission") continue;
    const properties = resource.Properties ?? {};
    const fn = flattenReferences(properties.FunctionName);
    const resolve = (value: unknown) =>
      value === undefined
        ? undefined
        : flattenReferences(value).replace(/<[^<>]*>/g, "x".repeat(REFERENCE_CHARS));
    const sourceArn = resolve(properties.SourceArn);
    const statement = {
      Sid: "x".repeat(100),
      Effect: "Allow",
      Principal: { Service: properties.Principal },
      Action: properties.Action,
      Resource: resolve(properties.FunctionName),
      ...(sourceArn === undefined ? {} : { Condition: { ArnLike: { "AWS:SourceArn": sourceArn } } }),
    };
    statements.set(fn, [...(statements.get(fn) ?? []), statement]);
  }
  return new Map(
    [...statements].map(([fn, list]) => [
      fn,
      Buffer.byteLength(JSON.stringify({ Version: "2012-10-17", Id: "default", Statement: list })),
    ]),
  );
}
