import { startDynamoDbLocal } from "../support/dynamo-backends";
import { describeRunChainProperties } from "./run-chains.contract";

describeRunChainProperties("DynamoDB Local", startDynamoDbLocal, { runs: 2, corners: false });
