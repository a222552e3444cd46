import { startDynalite } from "../support/dynamo-backends";
import { describeRunChainProperties } from "./run-chains.contract";

describeRunChainProperties("dynalite", startDynalite, { runs: 3, corners: true });
