import type { AccountReader } from "../../../lib/preflight/account-reader";

/** An account reader answering only what a test gives it; any other call fails the test. */
export function account(answers: Partial<AccountReader>): AccountReader {
  const unexpected = (name: string) => () => {
    throw new Error(`unexpected call: ${name}`);
  };
  return {
    parameter: unexpected("parameter"),
    inferenceProfile: unexpected("inferenceProfile"),
    foundationModel: unexpected("foundationModel"),
    sesAccount: unexpected("sesAccount"),
    emailIdentity: unexpected("emailIdentity"),
    secret: unexpected("secret"),
    apiGatewayCloudWatchRoleArn: unexpected("apiGatewayCloudWatchRoleArn"),
    converse: unexpected("converse"),
    serviceQuotas: unexpected("serviceQuotas"),
    lambdaConcurrency: unexpected("lambdaConcurrency"),
    ...answers,
  };
}
