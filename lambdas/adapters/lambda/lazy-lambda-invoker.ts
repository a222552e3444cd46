import type { LambdaInvoker } from "../../tools/lambda-tool";
import { loadOnce } from "../shared/load-once";

const loadInvoker = loadOnce(async () => (await import("./lambda-tool-invoker")).createLambdaInvoker());

/**
 * The one Lambda client a function invokes other functions with (user tools, their compensate
 * functions, the McpGateway), loaded on the first invocation: a goal that calls none of them never
 * loads `@aws-sdk/client-lambda`.
 */
export const lazyLambdaInvoker: LambdaInvoker = {
  invoke: async (functionArn, event) => (await loadInvoker()).invoke(functionArn, event),
};
