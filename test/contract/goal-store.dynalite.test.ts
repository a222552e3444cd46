import { startDynalite } from "../support/dynamo-backends";
import { describeGoalStoreContract } from "./goal-store.contract";

describeGoalStoreContract("dynalite", startDynalite);
