// Bundled in place of "@aws-sdk/client-s3" (see goal-loop-function.ts): require() the runtime's copy.
const id = "@aws-sdk/client-s3";
module.exports = require(id);
