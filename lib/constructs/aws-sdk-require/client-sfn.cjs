// Bundled in place of "@aws-sdk/client-sfn" (see goal-loop-function.ts): require() the runtime's copy.
const id = "@aws-sdk/client-sfn";
module.exports = require(id);
