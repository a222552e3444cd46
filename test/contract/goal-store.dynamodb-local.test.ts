import { startDynamoDbLocal } from "../support/dynamo-backends";
import { describeGoalStoreContract } from "./goal-store.contract";

describeGoalStoreContract("DynamoDB Local", startDynamoDbLocal);
